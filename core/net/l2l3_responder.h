// SPDX-License-Identifier: Apache-2.0
// In-place answers to the L2/L3 housekeeping a kernel-bypass port must do
// itself so that kernel neighbours can reach it: ARP replies for our IPv4
// addresses, ICMP and ICMPv6 echo replies, and neighbour advertisements for
// our IPv6 addresses. Each takes a frame ClassifyFrame (core/net/frame.h) gave
// the matching kind and rewrites it into the reply in the same buffer.
//
//   FrameInfo info = ClassifyFrame(data, len, local);
//   FrameDrop why;
//   uint32_t reply_len = AnswerL2L3(data, buffer_capacity, info, local, &why);
//   if (reply_len != 0) transmit(data, reply_len); else count(why);
//
// Reply lengths never exceed the request's frame length, except a neighbour
// advertisement: it always carries our target link-layer address option
// (RFC 4861 7.2.4), so it is l3_offset + 72 bytes, 8 more than the smallest
// valid NS (one without a source link-layer address option) and no more than
// an NS that has one. ARP replies are padded with zeros to 60 bytes when the
// request was at least that long. IPv4 options and IPv6 extension headers are
// not echoed (RFC 1122 3.2.2.6 lets an echo reply omit them: SHOULD).
// Hot path: no allocation, exceptions, locks or I/O.
#ifndef ZG_CORE_NET_L2L3_RESPONDER_H_
#define ZG_CORE_NET_L2L3_RESPONDER_H_

#include <cstdint>
#include <optional>

#include "core/net/frame.h"
#include "core/net/local_addresses.h"

namespace zg::core {

// Each function returns the reply's frame length, or 0 with *drop set
// (kReplyWrongKind if `req` is not of the kind the function answers,
// kReplyTooLong if the reply does not fit in `frame_cap`).

// kArpRequest -> ARP reply from our MAC for the requested address.
uint32_t AnswerArpRequest(uint8_t* frame, const FrameInfo& req,
                          const LocalAddresses& local, FrameDrop* drop);

// kIcmpEchoRequest -> echo reply (same identifier, sequence and data).
uint32_t AnswerIcmpEcho(uint8_t* frame, const FrameInfo& req,
                        const LocalAddresses& local, FrameDrop* drop);

// kIcmp6EchoRequest -> ICMPv6 echo reply.
uint32_t AnswerIcmp6Echo(uint8_t* frame, const FrameInfo& req,
                         const LocalAddresses& local, FrameDrop* drop);

// kNeighborSolicitation -> solicited (S=1, O=1) neighbour advertisement to
// the solicitor, hop limit 255, with our target link-layer address option;
// for duplicate address detection (source ::) an unsolicited one (S=0) to
// all nodes (ff02::1). `frame_cap` is the buffer's size (>= req.frame_len).
uint32_t AnswerNeighborSolicitation(uint8_t* frame, uint32_t frame_cap,
                                    const FrameInfo& req,
                                    const LocalAddresses& local,
                                    FrameDrop* drop);

// Dispatches on req.kind to one of the above.
uint32_t AnswerL2L3(uint8_t* frame, uint32_t frame_cap, const FrameInfo& req,
                    const LocalAddresses& local, FrameDrop* drop);

// ---- The asking side (a load generator resolving its target) -------------

// Writes a broadcast ARP request "who has `target_ip`? tell `sender_ip`"
// from `sender_mac` (+ an 802.1Q tag when `vlan_id` is set), padded with
// zeros to the 60-byte minimum frame. Returns the frame length, or 0 if it
// does not fit in `cap`, the MAC is a group address or the VLAN id is out of
// 1..4094.
uint32_t BuildArpRequest(uint8_t* out, uint32_t cap, const MacAddr& sender_mac,
                         Ipv4Addr sender_ip, Ipv4Addr target_ip,
                         std::optional<uint16_t> vlan_id);

// If `info` (ClassifyFrame's verdict on `frame`) is an ARP reply, or an ARP
// announcement, sent by `who`, stores the MAC it gives for `who` and returns
// true.
bool ReadArpReply(const uint8_t* frame, const FrameInfo& info, Ipv4Addr who,
                  MacAddr* mac);

}  // namespace zg::core

#endif  // ZG_CORE_NET_L2L3_RESPONDER_H_
