// Test helpers for the frame tests: the known-answer frames of
// testdata/frame_vectors.inc, the addresses they use, and a naive reference
// checksum (16-bit words, one at a time) independent of core/net/checksum.cc.
#ifndef ZG_TESTS_CORE_FRAME_TEST_UTIL_H_
#define ZG_TESTS_CORE_FRAME_TEST_UTIL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "gtest/gtest.h"
#include "tests/util/hex.h"

namespace zg::core::testing {

#include "tests/core/testdata/frame_vectors.inc"

inline constexpr MacAddr kOurMac{{0x02, 0, 0, 0, 0, 0x01}};
inline constexpr MacAddr kPeerMac{{0x02, 0, 0, 0, 0, 0x02}};
inline constexpr Ipv4Addr kOur4 = Ipv4Addr::FromOctets(10, 99, 0, 1);
inline constexpr Ipv4Addr kPeer4 = Ipv4Addr::FromOctets(10, 99, 0, 2);
inline constexpr Ipv6Addr kOur6{
    {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}};
inline constexpr Ipv6Addr kPeer6{
    {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}};
inline constexpr Ipv6Addr kOurLinkLocal{
    {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}};
inline constexpr Ipv6Addr kPeerLinkLocal{
    {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}};

using testutil::FromHex;

// Our side: 10.99.0.1, 2001:db8::1, fe80::1 on 02:00:00:00:00:01.
inline LocalAddresses OurAddresses(std::optional<uint16_t> vlan = {}) {
  LocalAddresses l = LocalAddresses::Create(kOurMac, vlan).value();
  EXPECT_TRUE(l.AddIpv4(kOur4).ok());
  EXPECT_TRUE(l.AddIpv6(kOur6).ok());
  EXPECT_TRUE(l.AddIpv6(kOurLinkLocal).ok());
  return l;
}
// The peer's side, to classify our replies as the peer would.
inline LocalAddresses PeerAddresses(std::optional<uint16_t> vlan = {}) {
  LocalAddresses l = LocalAddresses::Create(kPeerMac, vlan).value();
  EXPECT_TRUE(l.AddIpv4(kPeer4).ok());
  EXPECT_TRUE(l.AddIpv6(kPeer6).ok());
  EXPECT_TRUE(l.AddIpv6(kPeerLinkLocal).ok());
  return l;
}

// ---- Reference checksums: one 16-bit big-endian word at a time ----------

inline uint32_t RefSum(const uint8_t* p, size_t n, uint32_t s = 0) {
  for (size_t i = 0; i < n; i += 2) {
    s += uint32_t{p[i]} << 8 | (i + 1 < n ? p[i + 1] : 0);
  }
  return s;
}
inline uint16_t RefFold(uint32_t s) {
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return static_cast<uint16_t>(s);
}
inline uint16_t RefChecksum(const uint8_t* p, size_t n, uint32_t s = 0) {
  return static_cast<uint16_t>(~RefFold(RefSum(p, n, s)));
}
inline uint32_t RefPseudo4(const uint8_t* ip, uint8_t proto, uint32_t len) {
  return RefSum(ip + 12, 8) + proto + len;
}
inline uint32_t RefPseudo6(const uint8_t* ip, uint8_t nh, uint32_t len) {
  return RefSum(ip + 8, 32) + (len >> 16) + (len & 0xFFFF) + nh;
}

// Re-seal a modified frame with reference checksums: IPv4 header at `l3`
// (IHL from the header), and the UDP/ICMP/ICMPv6 message at `l4` of
// `l4_len` bytes (`proto`, checksum field at `coff`).
inline void RefSealIpv4Header(uint8_t* f, uint32_t l3) {
  const uint32_t ihl = (f[l3] & 0xF) * 4u;
  f[l3 + 10] = f[l3 + 11] = 0;
  const uint16_t c = RefChecksum(f + l3, ihl);
  f[l3 + 10] = c >> 8;
  f[l3 + 11] = c & 0xFF;
}
inline void RefSealL4(uint8_t* f, uint32_t l3, uint32_t l4, uint32_t l4_len,
                      uint8_t proto, uint32_t coff) {
  const bool v6 = (f[l3] >> 4) == 6;
  f[l4 + coff] = f[l4 + coff + 1] = 0;
  uint32_t pseudo = 0;
  if (v6) {
    pseudo = RefPseudo6(f + l3, proto, l4_len);
  } else if (proto != 1) {
    pseudo = RefPseudo4(f + l3, proto, l4_len);
  }
  uint16_t c = RefChecksum(f + l4, l4_len, pseudo);
  if (proto == 17 && c == 0) c = 0xFFFF;
  f[l4 + coff] = c >> 8;
  f[l4 + coff + 1] = c & 0xFF;
}
// True if the message at l4 verifies against the reference.
inline bool RefL4Valid(const uint8_t* f, uint32_t l3, uint32_t l4,
                       uint32_t l4_len, uint8_t proto) {
  const bool v6 = (f[l3] >> 4) == 6;
  uint32_t pseudo = 0;
  if (v6) {
    pseudo = RefPseudo6(f + l3, proto, l4_len);
  } else if (proto != 1) {
    pseudo = RefPseudo4(f + l3, proto, l4_len);
  }
  return RefFold(RefSum(f + l4, l4_len, pseudo)) == 0xFFFF;
}
inline bool RefIpv4HeaderValid(const uint8_t* f, uint32_t l3) {
  return RefFold(RefSum(f + l3, (f[l3] & 0xF) * 4u)) == 0xFFFF;
}

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_FRAME_TEST_UTIL_H_
