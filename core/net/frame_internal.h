// SPDX-License-Identifier: Apache-2.0
// Header writers shared by core/net/frame_build.cc and
// core/net/l2l3_responder.cc. Not a public API: callers outside core/ use
// PrepareUdpReply, BuildUdpFrame (core/net/frame_build.h) and the
// responders. Each writes a complete, option-free header at `p`.
#ifndef ZG_CORE_NET_FRAME_INTERNAL_H_
#define ZG_CORE_NET_FRAME_INTERNAL_H_

#include <cstdint>
#include <cstring>

#include "core/net/checksum.h"
#include "core/net/net_headers.h"

namespace zg::core::internal {

inline constexpr uint8_t kReplyTtl = 64;

// Reply Ethernet addressing: destination = `dst`, source = `src`. `dst` may
// point into the frame (the request's source MAC at frame + 6).
inline void WriteMacs(uint8_t* frame, const uint8_t* dst, const MacAddr& src) {
  uint8_t d[6];
  std::memcpy(d, dst, 6);
  std::memcpy(frame + eth::kDst, d, 6);
  src.Store(frame + eth::kSrc);
}

// A 20-byte IPv4 header: ID 0, DF (RFC 6864 atomic datagram), checksum.
inline void WriteIpv4Header(uint8_t* ip, uint8_t tos, uint16_t total_len,
                            uint8_t ttl, uint8_t protocol, Ipv4Addr src,
                            Ipv4Addr dst) {
  ip[ipv4::kVersionIhl] = 0x45;
  ip[ipv4::kTos] = tos;
  StoreBe16(ip + ipv4::kTotalLength, total_len);
  StoreBe16(ip + ipv4::kId, 0);
  StoreBe16(ip + ipv4::kFlagsFragment, ipv4::kFlagDf);
  ip[ipv4::kTtl] = ttl;
  ip[ipv4::kProtocol] = protocol;
  src.Store(ip + ipv4::kSrc);
  dst.Store(ip + ipv4::kDst);
  // From the values, not the bytes just stored: re-reading them with wide
  // loads would stall on store forwarding.
  const uint64_t sum = (0x4500u | tos) + total_len + ipv4::kFlagDf +
                       (uint32_t{ttl} << 8 | protocol) + (src.value >> 16) +
                       (src.value & 0xFFFF) + (dst.value >> 16) +
                       (dst.value & 0xFFFF);
  StoreBe16(ip + ipv4::kChecksum,
            static_cast<uint16_t>(~checksum_internal::Fold64(sum)));
}

// A 40-byte IPv6 header. `flow_label` is 20 bits.
inline void WriteIpv6Header(uint8_t* ip, uint8_t traffic_class,
                            uint32_t flow_label, uint16_t payload_len,
                            uint8_t next_header, uint8_t hop_limit,
                            const Ipv6Addr& src, const Ipv6Addr& dst) {
  StoreBe32(ip + ipv6::kVersionClassFlow, (6u << 28) |
                                              (uint32_t{traffic_class} << 20) |
                                              (flow_label & 0xFFFFF));
  StoreBe16(ip + ipv6::kPayloadLength, payload_len);
  ip[ipv6::kNextHeader] = next_header;
  ip[ipv6::kHopLimit] = hop_limit;
  src.Store(ip + ipv6::kSrc);
  dst.Store(ip + ipv6::kDst);
}

// The IPv6 traffic class and flow label of a received header.
inline uint8_t Ipv6TrafficClass(const uint8_t* ip) {
  return static_cast<uint8_t>(LoadBe32(ip) >> 20);
}
inline uint32_t Ipv6FlowLabel(const uint8_t* ip) {
  return LoadBe32(ip) & 0xFFFFF;
}

// DSCP kept, ECN cleared: a reply must not echo the request's ECN marks.
inline constexpr uint8_t kDscpMask = 0xFC;

}  // namespace zg::core::internal

#endif  // ZG_CORE_NET_FRAME_INTERNAL_H_
