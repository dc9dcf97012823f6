// SPDX-License-Identifier: Apache-2.0
// Test helpers for the frame tests: the known-answer frames of
// testdata/frame_vectors.inc, the addresses they use, a naive reference
// checksum (16-bit words, one at a time) independent of core/net/checksum.cc,
// and ClassifyFrame wrapped for tests (Classify checks every reported offset
// lies within the frame; Reseal fixes checksums after a test edits a field).
#ifndef ZG_TESTS_CORE_FRAME_TEST_UTIL_H_
#define ZG_TESTS_CORE_FRAME_TEST_UTIL_H_

#include <algorithm>
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

// ---- ClassifyFrame for tests ------------------------------------------------

// Every offset ClassifyFrame reports lies within the first `n` bytes.
inline void ExpectWithinFrame(const FrameInfo& i, uint32_t n) {
  if (i.kind == FrameKind::kDrop) return;
  EXPECT_EQ(i.frame_len, n);
  EXPECT_LE(uint32_t{i.l3_offset} + i.l3_len, n);
  EXPECT_LE(uint32_t{i.l4_offset} + i.l4_len, n);
  EXPECT_LE(uint32_t{i.payload_offset} + i.payload_len, n);
  if (i.l4_offset != 0) {
    EXPECT_GE(i.l4_offset, i.l3_offset);
  }
  if (i.nd_lladdr_offset != 0) {
    EXPECT_LE(i.nd_lladdr_offset + 6u, n);
  }
}

inline FrameInfo Classify(const std::vector<uint8_t>& f,
                          const LocalAddresses& local, uint32_t flags = 0) {
  FrameInfo i =
      ClassifyFrame(f.data(), static_cast<uint32_t>(f.size()), local, flags);
  ExpectWithinFrame(i, static_cast<uint32_t>(f.size()));
  return i;
}

// Re-seals the IPv4 header and UDP/ICMP/ICMPv6 checksums of an untagged or
// tagged frame without IPv4 options or IPv6 extension headers, after a test
// changed a field. Lengths are taken from the headers, clamped to the frame.
inline void Reseal(std::vector<uint8_t>& f) {
  uint32_t l3 = 14;
  uint16_t type = static_cast<uint16_t>(f[12] << 8 | f[13]);
  while (type == 0x8100 || type == 0x88A8) {
    type = static_cast<uint16_t>(f[l3 + 2] << 8 | f[l3 + 3]);
    l3 += 4;
  }
  const auto be16 = [&](uint32_t o) {
    return static_cast<uint32_t>(f[o] << 8 | f[o + 1]);
  };
  const auto clamp = [&](uint32_t start, uint32_t len) {
    return std::min<uint32_t>(len, static_cast<uint32_t>(f.size()) - start);
  };
  if (type == 0x0800) {
    RefSealIpv4Header(f.data(), l3);
    const uint32_t l4 = l3 + (f[l3] & 0xF) * 4u;
    const uint8_t proto = f[l3 + 9];
    if (proto == 17) {
      RefSealL4(f.data(), l3, l4, clamp(l4, be16(l4 + 4)), 17, 6);
    } else if (proto == 1) {
      RefSealL4(f.data(), l3, l4, clamp(l4, be16(l3 + 2) - 20), 1, 2);
    }
  } else if (type == 0x86DD) {
    const uint32_t l4 = l3 + 40;
    const uint8_t nh = f[l3 + 6];
    if (nh == 17) {
      RefSealL4(f.data(), l3, l4, clamp(l4, be16(l4 + 4)), 17, 6);
    } else if (nh == 58) {
      RefSealL4(f.data(), l3, l4, clamp(l4, be16(l3 + 4)), 58, 2);
    }
  }
}

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_FRAME_TEST_UTIL_H_
