// SPDX-License-Identifier: Apache-2.0
// Building the frames we send: in-place UDP replies to classified requests
// (PrepareUdpReply), frames we originate (BuildUdpFrame, BuildL2Frame), and
// their UDP checksums (FinaliseUdpChecksum, the RFC 1624 UpdateUdpChecksum
// for a late rewrite such as the NTP transmit timestamp, and the
// pseudo-header sum for NIC offload). The per-packet back end of every
// data-plane worker, after ClassifyFrame (core/net/frame.h). No allocation,
// exceptions, locks or I/O.
//
//   // info: ClassifyFrame's kNtp verdict; n: the NTP payload bytes written.
//   FrameInfo reply;
//   uint32_t reply_len = PrepareUdpReply(data, info, local, n, &reply);
//   if (reply_len != 0) {
//     FinaliseUdpChecksum(data, reply);
//     ... write T3 at reply.payload_offset + 40, then
//     UpdateUdpChecksum(data, reply, 40, old_t3, new_t3, 8);
//   }
#ifndef ZG_CORE_NET_FRAME_BUILD_H_
#define ZG_CORE_NET_FRAME_BUILD_H_

#include <cstdint>
#include <optional>

#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"

namespace zg::core {

// Rewrites the classified UDP request `req` (ip_version 4 or 6, l4_protocol
// UDP) in place into the headers of a reply carrying `reply_payload_len`
// payload bytes:
//  - Ethernet: destination = the request's source, source = our MAC; VLAN
//    tags kept as received.
//  - IP: source = the address the request was sent to (for a group: our
//    primary IPv4, or Ipv6SourceIndexFor(peer)), destination = the requester;
//    TTL/hop limit 64; DSCP kept, ECN cleared; IPv4: ID 0, DF, header
//    checksum; IPv6: flow label kept.
//  - IPv4 options and IPv6 extension headers are not echoed: the reply has
//    a bare 20/40-byte header, and the first reply_payload_len bytes at
//    req.payload_offset are moved to the reply's payload offset.
//  - UDP: ports swapped, length set, checksum 0 (FinaliseUdpChecksum).
// Returns the reply's frame length, which never exceeds req.frame_len (short
// replies are not padded: the NIC pads to 60 bytes), and describes it in
// *reply (may be &req). Returns 0 and leaves the frame untouched when the
// reply would not fit in req.frame_len or `req` is not UDP.
uint32_t PrepareUdpReply(uint8_t* frame, const FrameInfo& req,
                         const LocalAddresses& local,
                         uint16_t reply_payload_len, FrameInfo* reply);

// Computes and stores the UDP checksum of a prepared or built frame (after
// its payload is written). The pseudo-header and UDP header are taken from
// `reply` (as PrepareUdpReply or BuildUdpFrame left it and the frame), only
// the payload from the frame. A computed 0 is sent as 0xFFFF.
void FinaliseUdpChecksum(uint8_t* frame, const FrameInfo& reply);

// For NIC checksum offload (DPDK RTE_MBUF_F_TX_UDP_CKSUM): stores the
// pseudo-header sum the NIC expects in the UDP checksum field.
void PrepareUdpChecksumOffload(uint8_t* frame, const FrameInfo& reply);

// Updates the stored UDP checksum after `len` payload bytes at
// `payload_offset` (from reply.payload_offset) changed from `old_bytes` to
// `new_bytes` (RFC 1624). The caller writes the new bytes; the frame's
// payload is not read. Equals FinaliseUdpChecksum on the new payload.
void UpdateUdpChecksum(uint8_t* frame, const FrameInfo& reply,
                       uint32_t payload_offset, const uint8_t* old_bytes,
                       const uint8_t* new_bytes, uint32_t len);

// Addressing of a frame we originate (PTP Sync/Announce/Delay_Resp, the
// load generator).
struct UdpFrameSpec {
  MacAddr src_mac;
  MacAddr dst_mac;  // for a group IP: Ipv4MulticastMac / MulticastMac()
  std::optional<uint16_t> vlan_id;  // 802.1Q tag when set (1..4094)
  uint8_t vlan_pcp = 0;             // 0..7
  IpAddress src_ip;                 // same family as dst_ip
  IpAddress dst_ip;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint8_t dscp = 0;  // 0..63
  uint8_t ttl = 64;  // TTL / hop limit (ptp4l uses 1 for multicast)
};

// Writes Ethernet (+802.1Q) + IPv4/IPv6 + UDP headers for `payload_len`
// bytes into `out` (capacity `cap`) and describes the frame in *info (kind
// kOther; payload at info->payload_offset). The payload is not touched; call
// FinaliseUdpChecksum once it is written. Returns the frame length, or 0 if
// it exceeds `cap` or the spec is inconsistent (mixed families, VLAN id or
// PCP or DSCP out of range).
uint32_t BuildUdpFrame(uint8_t* out, uint32_t cap, const UdpFrameSpec& spec,
                       uint16_t payload_len, FrameInfo* info);

// Writes an Ethernet (+802.1Q) header with `ethertype` for `payload_len`
// bytes (PTP over Ethernet: kEtherTypePtp to kPtpPrimaryMac). Returns the
// frame length (payload at info->payload_offset) or 0 as BuildUdpFrame.
uint32_t BuildL2Frame(uint8_t* out, uint32_t cap, const MacAddr& src_mac,
                      const MacAddr& dst_mac, std::optional<uint16_t> vlan_id,
                      uint8_t vlan_pcp, uint16_t ethertype,
                      uint16_t payload_len, FrameInfo* info);

}  // namespace zg::core

#endif  // ZG_CORE_NET_FRAME_BUILD_H_
