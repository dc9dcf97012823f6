// SPDX-License-Identifier: Apache-2.0
// Frame classification: the per-packet front end of every data-plane worker.
//
// ClassifyFrame walks Ethernet / VLAN / IPv4 / IPv6 / UDP / ARP / ICMP / ND
// with every length bounds-checked against the frame, checks checksums and
// addressing against our LocalAddresses (core/net/local_addresses.h), and
// says what the frame is (a FrameKind) or why it is dropped (a FrameDrop,
// one Prometheus counter each). The FrameInfo it fills is what the reply
// builders of core/net/frame_build.h (PrepareUdpReply, FinaliseUdpChecksum,
// UpdateUdpChecksum) and the L2/L3 responders work from. No allocation,
// exceptions, locks or I/O; a few ns per frame.
//
//   FrameInfo info = ClassifyFrame(data, len, local);
//   if (info.kind == FrameKind::kDrop) {
//     ++stats.drops[static_cast<size_t>(info.drop)];
//   } else if (info.kind == FrameKind::kNtp) {
//     uint16_t n = BuildNtpReplyPayload(data + info.payload_offset, ...);
//     ... PrepareUdpReply(data, info, local, n, &reply) (frame_build.h)
//   }
//
// Frames must be contiguous and carry their VLAN tags in the data (disable
// VLAN stripping offload, or re-insert the tag before classifying).
#ifndef ZG_CORE_NET_FRAME_H_
#define ZG_CORE_NET_FRAME_H_

#include <cstddef>
#include <cstdint>

#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"

namespace zg::core {

// What a frame is. Everything but kDrop was addressed to us and passed every
// check of its layers.
enum class FrameKind : uint8_t {
  kDrop = 0,              // see FrameInfo::drop
  kArpRequest,            // ARP request for one of our IPv4 addresses
  kIcmpEchoRequest,       // ICMP echo request to one of our IPv4 addresses
  kIcmp6EchoRequest,      // ICMPv6 echo request to one of our IPv6 addresses
  kNeighborSolicitation,  // NS for one of our IPv6 addresses (RFC 4861 7.1.1)
  kNtp,                   // UDP to port 123 of one of our addresses
  kPtpEvent,              // UDP to port 319 (ours or a PTP group)
  kPtpGeneral,            // UDP to port 320 (ours or a PTP group)
  kPtpL2,                 // ethertype 0x88F7 to our MAC or a PTP group MAC
  kOther,  // valid and ours, but nothing we answer (other ports, ARP
           // replies, ICMP errors, ND other than NS, TCP, ESP, ...)
  kCount
};
const char* FrameKindName(FrameKind kind);  // "ntp", "ptp_event", ...

// Why a frame was dropped. Names are stable: they are metric label values.
enum class FrameDrop : uint8_t {
  kNone = 0,
  // Ethernet and VLAN
  kEthTruncated,      // shorter than an Ethernet header (or its VLAN tags)
  kEthTooLong,        // longer than 65535 bytes
  kEthBadSourceMac,   // source MAC is a group address
  kEthDstNotOurs,     // destination MAC is not ours, nor a group valid here
  kVlanMismatch,      // tag missing, unexpected, or another VLAN id
  kUnknownEthertype,  // not IPv4, IPv6, ARP or PTP
  // ARP
  kArpTruncated,
  kArpBadHeader,  // not Ethernet/IPv4, or a group sender MAC
  kArpNotOurs,    // request for an address that is not ours
  // IPv4
  kIpv4Truncated,       // shorter than the 20-byte header
  kIpv4BadHeader,       // version != 4, IHL < 5 or beyond the frame
  kIpv4BadTotalLength,  // total length < header or beyond the frame
  kIpv4BadChecksum,
  kIpv4Fragment,   // MF set or a nonzero fragment offset
  kIpv4BadSource,  // 0/8, 127/8, multicast, 240/4, broadcast
  kIpv4NotOurs,    // destination is not ours (nor a PTP group on 319/320)
  // IPv6
  kIpv6Truncated,         // shorter than the 40-byte header
  kIpv6BadHeader,         // version != 6
  kIpv6BadPayloadLength,  // payload length beyond the frame
  kIpv6BadExtHeader,      // truncated, too many, misplaced hop-by-hop,
                          // routing header with segments left
  kIpv6Fragment,          // a fragment header
  kIpv6BadSource,         // multicast, loopback, unspecified (except DAD)
  kIpv6NotOurs,           // destination is not ours (nor a group we serve)
  // UDP
  kUdpBadLength,  // length < 8 or beyond the IP payload
  kUdpBadChecksum,
  kUdpZeroChecksumV6,  // a zero (absent) checksum over IPv6 (RFC 8200 8.1)
  kUdpSourcePortZero,  // nowhere to reply to
  // ICMP, ICMPv6 and neighbour discovery
  kIcmpBadLength,  // shorter than 8 bytes
  kIcmpBadChecksum,
  kIcmp6BadLength,  // shorter than 8 bytes
  kIcmp6BadChecksum,
  kNdBadHopLimit,  // NS with an IPv6 hop limit other than 255
  kNdBadMessage,   // NS with code != 0, too short, multicast target, a
                   // zero-length option, or DAD with a link-layer option
  kNdTargetNotOurs,
  // Reply construction (responders, PrepareUdpReply)
  kReplyTooLong,    // the reply would not fit where the request was
  kReplyWrongKind,  // asked to answer a frame of another kind
  kCount
};
const char* FrameDropName(FrameDrop drop);  // "ipv4_bad_checksum", ...

inline constexpr size_t kFrameKindCount =
    static_cast<size_t>(FrameKind::kCount);
inline constexpr size_t kFrameDropCount =
    static_cast<size_t>(FrameDrop::kCount);

// The result of ClassifyFrame. Offsets are from the start of the frame and,
// for any kind but kDrop, lie within it: x_offset + x_len <= frame_len.
// For kDrop only `kind`, `drop` and the fields filled before the failing
// layer are meaningful.
struct FrameInfo {
  static constexpr uint8_t kNoLocalIndex = 0xFF;

  FrameKind kind = FrameKind::kDrop;
  FrameDrop drop = FrameDrop::kNone;
  uint8_t ip_version = 0;   // 4, 6, or 0 (ARP, PTP over Ethernet)
  uint8_t l4_protocol = 0;  // IPv4 protocol / IPv6 upper-layer next header
  uint8_t vlan_tags = 0;    // 0, 1, or 2 (802.1ad outer + 802.1Q inner)
  // Which of our addresses the frame was for: the IPv4/IPv6 destination
  // (ARP and NS: the target), as an index into LocalAddresses::ipv4()/ipv6();
  // LocalAddresses::kRangeIndex for an address of the range; kNoLocalIndex
  // for a PTP group destination.
  uint8_t local_index = kNoLocalIndex;
  uint8_t hop_limit = 0;       // IPv4 TTL / IPv6 hop limit
  bool dst_multicast = false;  // sent to an IP group (PTP, solicited-node)
  uint16_t vlan_tci = 0;       // TCI of the innermost tag (PCP, DEI, VID)
  uint16_t ethertype = 0;      // after the VLAN tags
  uint16_t frame_len = 0;
  uint16_t l3_offset = 0;       // == the L2 header length (14, 18 or 22)
  uint16_t l3_len = 0;          // IPv4 total length, IPv6 40 + payload, ARP 28
  uint16_t l4_offset = 0;       // after IPv4 options / IPv6 extension headers
  uint16_t l4_len = 0;          // UDP length, ICMP/ICMPv6 message length
  uint16_t payload_offset = 0;  // UDP payload; PTP L2: the PTP message
  uint16_t payload_len = 0;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  // NS: offset of the 6-byte address in the source link-layer address
  // option, 0 if absent.
  uint16_t nd_lladdr_offset = 0;
  Ipv4Addr src_ipv4;  // ip_version 4 and ARP (sender / target address)
  Ipv4Addr dst_ipv4;
  Ipv6Addr src_ipv6;  // ip_version 6
  Ipv6Addr dst_ipv6;
};

// Hints from the NIC's receive checksum offload (DPDK
// RTE_MBUF_F_RX_IP_CKSUM_GOOD / RTE_MBUF_F_RX_L4_CKSUM_GOOD): checks the NIC
// already passed are skipped. Pass 0 when unsure.
inline constexpr uint32_t kRxIpv4ChecksumGood = 1u << 0;
inline constexpr uint32_t kRxL4ChecksumGood = 1u << 1;

// Classifies `len` bytes at `frame` (without FCS). Never reads outside them.
FrameInfo ClassifyFrame(const uint8_t* frame, uint32_t len,
                        const LocalAddresses& local, uint32_t rx_flags = 0);

}  // namespace zg::core

#endif  // ZG_CORE_NET_FRAME_H_
