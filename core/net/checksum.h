// SPDX-License-Identifier: Apache-2.0
// The Internet checksum (RFC 1071) and its incremental update (RFC 1624),
// for IPv4 headers and for UDP/ICMP/ICMPv6 with the IPv4 and IPv6
// pseudo-headers. Hot-path code: no allocation, no branches on data.
//
// Conventions. A "sum" is the 16-bit ones' complement sum of the data read as
// big-endian 16-bit words (a trailing odd byte is the high byte of a last
// word padded with zero), returned as a host-order integer in [0, 0xFFFF],
// not complemented. A "checksum" is a value as read with LoadBe16 from, or
// written with StoreBe16 to, the header's checksum field.
//
//   // Fill the UDP checksum of an IPv4 datagram after writing its payload:
//   StoreBe16(udp + udp::kChecksum, 0);
//   StoreBe16(udp + udp::kChecksum, UdpChecksumV4(src, dst, udp, udp_len));
//   // Later, after rewriting 8 payload bytes at udp + 48:
//   uint16_t c = LoadBe16(udp + udp::kChecksum);
//   c = UdpChecksumUpdateBytes(c, 48, old8, new8, 8);
//   StoreBe16(udp + udp::kChecksum, c);
#ifndef ZG_CORE_NET_CHECKSUM_H_
#define ZG_CORE_NET_CHECKSUM_H_

#include <cstdint>

#include "core/net/net_headers.h"

namespace zg::core {

// Ones' complement sum of `len` bytes plus `initial` (a sum). Never returns 0
// unless every byte and `initial` are 0: the result is in [1, 0xFFFF]
// otherwise. Any alignment; 32 bytes a step with AVX2 (x86-64 CPUs that
// have it), 16 otherwise.
uint16_t OnesComplementSum(const uint8_t* data, uint32_t len,
                           uint16_t initial = 0);

namespace checksum_internal {
// Whether OnesComplementSum takes its AVX2 loop for long data (the CPU has
// AVX2, read once at start). Test hook: force the scalar loop (true) or
// back to the default; not for production.
bool UsesWideSum();
void ForceScalarSumForTesting(bool force);

// Folds a sum of 16-bit words accumulated in 64 bits to 16 bits with
// end-around carries; nonzero unless `acc` is 0.
constexpr uint16_t Fold64(uint64_t acc) {
  acc = (acc & 0xFFFFFFFF) + (acc >> 32);  // <= 2^33 - 2
  acc = (acc & 0xFFFFFFFF) + (acc >> 32);  // <= 2^32 - 1
  acc = (acc & 0xFFFF) + (acc >> 16);      // <= 0x1FFFE
  acc = (acc & 0xFFFF) + (acc >> 16);      // <= 0xFFFF
  return static_cast<uint16_t>(acc);
}
}  // namespace checksum_internal

// Ones' complement addition of two sums (end-around carry).
constexpr uint16_t OnesComplementAdd(uint16_t a, uint16_t b) {
  const uint32_t s = uint32_t{a} + b;
  return static_cast<uint16_t>((s & 0xFFFF) + (s >> 16));
}

// RFC 1071 checksum of a buffer: ~OnesComplementSum(data, len).
inline uint16_t InternetChecksum(const uint8_t* data, uint32_t len) {
  return static_cast<uint16_t>(~OnesComplementSum(data, len));
}

// IPv4 header checksum of `header_len` bytes (20..60), computed as if the
// checksum field were zero (its current contents are ignored).
uint16_t Ipv4HeaderChecksum(const uint8_t* header, uint32_t header_len);
// True if the header's checksum field is correct. Inline for the common
// 20-byte header.
bool Ipv4HeaderChecksumValidSlow(const uint8_t* header, uint32_t header_len);
inline bool Ipv4HeaderChecksumValid(const uint8_t* header,
                                    uint32_t header_len) {
  if (header_len != ipv4::kMinHeaderLen) {
    return Ipv4HeaderChecksumValidSlow(header, header_len);
  }
  // A sum of 0xFFFF reads the same in either byte order.
  return checksum_internal::Fold64(uint64_t{Load32(header)} +
                                   Load32(header + 4) + Load32(header + 8) +
                                   Load32(header + 12) + Load32(header + 16)) ==
         0xFFFF;
}

// Pseudo-header sums (RFC 768, RFC 8200 8.1). `l4_len` is the UDP length or
// the ICMPv6 message length.
constexpr uint16_t PseudoHeaderSumV4(Ipv4Addr src, Ipv4Addr dst,
                                     uint8_t protocol, uint16_t l4_len) {
  uint64_t s = uint64_t{src.value >> 16} + (src.value & 0xFFFF) +
               (dst.value >> 16) + (dst.value & 0xFFFF) + protocol + l4_len;
  s = (s & 0xFFFF) + (s >> 16);
  s = (s & 0xFFFF) + (s >> 16);
  return static_cast<uint16_t>(s);
}
uint16_t PseudoHeaderSumV6(const uint8_t* src16, const uint8_t* dst16,
                           uint8_t next_header, uint32_t l4_len);
inline uint16_t PseudoHeaderSumV6(const Ipv6Addr& src, const Ipv6Addr& dst,
                                  uint8_t next_header, uint32_t l4_len) {
  return PseudoHeaderSumV6(src.b.data(), dst.b.data(), next_header, l4_len);
}

// Checksum of an upper-layer message (UDP, ICMP, ICMPv6) or IPv4 header
// whose checksum field is at `checksum_offset`, computed as if that field
// were zero; `pseudo_sum` is 0 for ICMPv4. The result is in [0, 0xFFFE]: 0
// when the other data sums to 0xFFFF. UDP transmits a computed 0 as 0xFFFF:
// use the Udp* functions.
uint16_t L4Checksum(uint16_t pseudo_sum, const uint8_t* l4, uint32_t l4_len,
                    uint32_t checksum_offset);
// True if the checksum field in `l4` is correct (the sum including it is
// 0xFFFF). For UDP over IPv4 a zero field means "no checksum": check first.
inline bool L4ChecksumValid(uint16_t pseudo_sum, const uint8_t* l4,
                            uint32_t l4_len) {
  return OnesComplementSum(l4, l4_len, pseudo_sum) == 0xFFFF;
}

// UDP checksum to store, with a computed 0 sent as 0xFFFF (RFC 768).
constexpr uint16_t UdpChecksumForWire(uint16_t computed) {
  return computed == 0 ? 0xFFFF : computed;
}
inline uint16_t UdpChecksumV4(Ipv4Addr src, Ipv4Addr dst, const uint8_t* udp,
                              uint16_t udp_len) {
  return UdpChecksumForWire(
      L4Checksum(PseudoHeaderSumV4(src, dst, kIpProtoUdp, udp_len), udp,
                 udp_len, udp::kChecksum));
}
inline uint16_t UdpChecksumV6(const Ipv6Addr& src, const Ipv6Addr& dst,
                              const uint8_t* udp, uint16_t udp_len) {
  return UdpChecksumForWire(
      L4Checksum(PseudoHeaderSumV6(src, dst, kIpProtoUdp, udp_len), udp,
                 udp_len, udp::kChecksum));
}
inline uint16_t Icmp6Checksum(const Ipv6Addr& src, const Ipv6Addr& dst,
                              const uint8_t* icmp6, uint32_t len) {
  return L4Checksum(PseudoHeaderSumV6(src, dst, kIpProtoIcmp6, len), icmp6, len,
                    icmp6::kChecksum);
}

// ---- Incremental update (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')) ---------
//
// The result equals a full recomputation ([0, 0xFFFE], as L4Checksum and
// Ipv4HeaderChecksum return) for any covered data that is not all zero; the
// old checksum may be either representation of zero (0x0000 or 0xFFFF).

// One changed 16-bit word (at an even offset from the start of the coverage).
constexpr uint16_t ChecksumUpdate16(uint16_t checksum, uint16_t old_word,
                                    uint16_t new_word) {
  uint32_t s = uint32_t{static_cast<uint16_t>(~checksum)} +
               static_cast<uint16_t>(~old_word) + new_word;
  s = (s & 0xFFFF) + (s >> 16);
  s = (s & 0xFFFF) + (s >> 16);
  // A zero sum here stands for 0xFFFF: the data is not all zero.
  if (s == 0) s = 0xFFFF;
  return static_cast<uint16_t>(~s);
}

// A changed byte range of `len` bytes that starts `offset` bytes after the
// start of the checksum's coverage (only its parity matters: for UDP pass the
// offset from the UDP header, for the payload add 8).
uint16_t ChecksumUpdateBytes(uint16_t checksum, uint32_t offset,
                             const uint8_t* old_bytes, const uint8_t* new_bytes,
                             uint32_t len);

// The same for a UDP checksum field: a 0 field (no checksum, IPv4 only) stays
// 0, and a computed 0 is sent as 0xFFFF.
inline uint16_t UdpChecksumUpdateBytes(uint16_t checksum, uint32_t offset,
                                       const uint8_t* old_bytes,
                                       const uint8_t* new_bytes, uint32_t len) {
  if (checksum == 0) return 0;
  return UdpChecksumForWire(
      ChecksumUpdateBytes(checksum, offset, old_bytes, new_bytes, len));
}

}  // namespace zg::core

#endif  // ZG_CORE_NET_CHECKSUM_H_
