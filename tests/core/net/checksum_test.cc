// SPDX-License-Identifier: Apache-2.0
#include "core/net/checksum.h"

#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core {
namespace checksum_test {
namespace {

using testing::FromHex;
using testing::RefChecksum;
using testing::RefFold;
using testing::RefSum;

TEST(ChecksumTest, Rfc1071Example) {
  // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
  const uint8_t data[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(OnesComplementSum(data, sizeof(data)), 0xddf2);
  EXPECT_EQ(InternetChecksum(data, sizeof(data)), 0x220d);
}

TEST(ChecksumTest, Ipv4HeaderKnownAnswer) {
  // A classic example header (192.168.0.1 -> 192.168.0.199, UDP) whose
  // checksum is b861.
  std::vector<uint8_t> h = FromHex("450000730000400040110000c0a80001c0a800c7");
  EXPECT_EQ(Ipv4HeaderChecksum(h.data(), 20), 0xb861);
  EXPECT_FALSE(Ipv4HeaderChecksumValid(h.data(), 20));
  h[10] = 0xb8;
  h[11] = 0x61;
  EXPECT_TRUE(Ipv4HeaderChecksumValid(h.data(), 20));
  // The current field contents are ignored when computing.
  EXPECT_EQ(Ipv4HeaderChecksum(h.data(), 20), 0xb861);
}

TEST(ChecksumTest, UdpAndIcmp6KnownAnswersFromTshark) {
  // Checksums in testdata/frame_vectors.inc, validated by tshark.
  const std::vector<uint8_t> v4 = FromHex(testing::kNtp4Hex);
  const uint8_t* ip = v4.data() + 14;
  EXPECT_EQ(UdpChecksumV4(Ipv4Addr::Load(ip + 12), Ipv4Addr::Load(ip + 16),
                          ip + 20, 56),
            0xef99);
  const std::vector<uint8_t> v6 = FromHex(testing::kNtp6Hex);
  ip = v6.data() + 14;
  EXPECT_EQ(UdpChecksumV6(Ipv6Addr::Load(ip + 8), Ipv6Addr::Load(ip + 24),
                          ip + 40, 56),
            0xa8ed);
  const std::vector<uint8_t> ns = FromHex(testing::kNsHex);
  ip = ns.data() + 14;
  EXPECT_EQ(Icmp6Checksum(Ipv6Addr::Load(ip + 8), Ipv6Addr::Load(ip + 24),
                          ip + 40, 32),
            0x1c27);
  EXPECT_EQ(L4Checksum(0, v4.data() + 14, 20, ipv4::kChecksum), 0x13a5);
}

// Both loops: the AVX2 one (where the CPU has it) and the scalar one.
TEST(ChecksumTest, SumMatchesReferenceForAllLengthsAndAlignments) {
  for (const bool scalar : {false, true}) {
    SCOPED_TRACE(scalar ? "scalar" : "default");
    checksum_internal::ForceScalarSumForTesting(scalar);
    EXPECT_TRUE(!scalar || !checksum_internal::UsesWideSum());
    std::mt19937 rng(1071);
    std::vector<uint8_t> buf(2100);
    for (uint8_t& b : buf) b = static_cast<uint8_t>(rng());
    for (uint32_t len = 0; len <= 2000; ++len) {
      const uint32_t align = len % 8;
      const uint16_t initial = static_cast<uint16_t>(rng());
      const uint8_t* p = buf.data() + align;
      uint16_t want = RefFold(RefSum(p, len, initial));
      ASSERT_EQ(OnesComplementSum(p, len, initial), want) << "len " << len;
    }
  }
  checksum_internal::ForceScalarSumForTesting(false);
}

// Every 32-bit word at its largest, in the longest sums the data plane
// makes (a jumbo frame): the wide loop's lanes and its fold stay exact.
TEST(ChecksumTest, LongAllOnesSumsAreExactOnBothLoops) {
  std::vector<uint8_t> ones(9000, 0xff);
  for (const bool scalar : {false, true}) {
    checksum_internal::ForceScalarSumForTesting(scalar);
    for (uint32_t len : {64u, 65u, 1500u, 8999u, 9000u}) {
      EXPECT_EQ(OnesComplementSum(ones.data(), len, 0),
                RefFold(RefSum(ones.data(), len, 0)))
          << "len " << len << (scalar ? " scalar" : "");
    }
  }
  checksum_internal::ForceScalarSumForTesting(false);
}

TEST(ChecksumTest, SumOfAllOnesAndAllZeros) {
  std::vector<uint8_t> ones(1500, 0xff), zeros(1500, 0);
  EXPECT_EQ(OnesComplementSum(ones.data(), 1500), 0xFFFF);
  EXPECT_EQ(OnesComplementSum(zeros.data(), 1500), 0);
  EXPECT_EQ(InternetChecksum(zeros.data(), 1500), 0xFFFF);
  // Odd length: the last byte is the high byte of a zero-padded word.
  const uint8_t three[] = {0x12, 0x34, 0x56};
  EXPECT_EQ(OnesComplementSum(three, 3), 0x1234 + 0x5600);
}

TEST(ChecksumTest, PseudoHeaderV6MatchesReference) {
  std::mt19937 rng(8200);
  for (int i = 0; i < 1000; ++i) {
    uint8_t ip[40];
    for (uint8_t& b : ip) b = static_cast<uint8_t>(rng());
    const uint32_t len = rng() % 70000;
    const uint8_t nh = static_cast<uint8_t>(rng());
    EXPECT_EQ(PseudoHeaderSumV6(ip + 8, ip + 24, nh, len),
              RefFold(testing::RefPseudo6(ip, nh, len)));
  }
}

// A UDP datagram whose computed checksum is 0 is sent with 0xFFFF, which
// verifies as correct.
TEST(ChecksumTest, UdpComputedZeroIsSentAsAllOnes) {
  const Ipv4Addr src = Ipv4Addr::FromOctets(10, 0, 0, 1);
  const Ipv4Addr dst = Ipv4Addr::FromOctets(10, 0, 0, 2);
  uint8_t udp[12] = {0x30, 0x39, 0x00, 0x7b, 0x00, 12, 0, 0, 0, 0, 0, 0};
  // Choose the last word so that the total sum (with the pseudo-header:
  // addresses, protocol, length) is 0xFFFF.
  const uint32_t pseudo = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 12;
  const uint16_t partial = RefFold(RefSum(udp, 10, pseudo));
  const uint16_t last = static_cast<uint16_t>(0xFFFF - partial);
  udp[10] = last >> 8;
  udp[11] = last & 0xFF;
  EXPECT_EQ(L4Checksum(PseudoHeaderSumV4(src, dst, kIpProtoUdp, 12), udp, 12,
                       udp::kChecksum),
            0);
  EXPECT_EQ(UdpChecksumV4(src, dst, udp, 12), 0xFFFF);
  udp[6] = udp[7] = 0xFF;
  EXPECT_TRUE(
      L4ChecksumValid(PseudoHeaderSumV4(src, dst, kIpProtoUdp, 12), udp, 12));
}

// Full recomputation, as a receiver would, of a buffer whose checksum field
// sits at bytes 6..7.
uint16_t Full(const std::vector<uint8_t>& d) {
  std::vector<uint8_t> c = d;
  c[6] = c[7] = 0;
  return RefChecksum(c.data(), c.size());
}

std::vector<uint8_t> WithChecksum(std::vector<uint8_t> d, uint16_t c) {
  d[6] = c >> 8;
  d[7] = c & 0xFF;
  return d;
}

TEST(ChecksumTest, Update16EqualsFullRecomputationOnRandomData) {
  std::mt19937 rng(1624);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> d(10 + 2 * (rng() % 40));
    for (uint8_t& b : d) b = static_cast<uint8_t>(rng());
    // Bias toward the corner values.
    if (trial % 4 == 0) std::fill(d.begin() + 8, d.end(), 0xFF);
    if (trial % 8 == 1) std::fill(d.begin() + 8, d.end(), 0x00);
    uint16_t c = Full(d);
    // The stored checksum may be either representation of zero.
    if (c == 0 && (trial / 4) % 2) c = 0xFFFF;
    d = WithChecksum(d, c);
    size_t w = 8 + 2 * (rng() % ((d.size() - 8) / 2));
    const uint16_t old_word = static_cast<uint16_t>(d[w] << 8 | d[w + 1]);
    const uint16_t new_word = trial % 3 == 0   ? 0xFFFF
                              : trial % 3 == 1 ? 0x0000
                                               : static_cast<uint16_t>(rng());
    d[w] = new_word >> 8;
    d[w + 1] = new_word & 0xFF;
    ASSERT_EQ(ChecksumUpdate16(c, old_word, new_word), Full(d))
        << "trial " << trial;
  }
}

// Every possible new value of one word, from a buffer whose checksum is
// 0x0000 (sum 0xFFFF) and one whose checksum is 0xFFFF-free: this reaches the
// new checksums 0x0000 and 0xFFFE.
TEST(ChecksumTest, Update16ExhaustiveOverOneWord) {
  for (uint16_t seed : {uint16_t{0}, uint16_t{0x1234}, uint16_t{0xFFFE}}) {
    std::vector<uint8_t> d = {0x45, 0x00, 0x12, 0x34, 0, 0, 0, 0, 0xab, 0xcd};
    d[2] = seed >> 8;
    d[3] = seed & 0xFF;
    const uint16_t c = Full(d);
    d = WithChecksum(d, c);
    const uint16_t old_word = static_cast<uint16_t>(d[8] << 8 | d[9]);
    bool saw_zero = false;
    for (uint32_t v = 0; v <= 0xFFFF; ++v) {
      d[8] = static_cast<uint8_t>(v >> 8);
      d[9] = static_cast<uint8_t>(v);
      const uint16_t want = Full(d);
      saw_zero |= want == 0;
      ASSERT_EQ(ChecksumUpdate16(c, old_word, static_cast<uint16_t>(v)), want)
          << "new word " << v;
      // From 0xFFFF as the stored form of zero as well.
      if (c == 0) {
        ASSERT_EQ(ChecksumUpdate16(0xFFFF, old_word, static_cast<uint16_t>(v)),
                  want);
      }
    }
    EXPECT_TRUE(saw_zero);
  }
}

// RFC 1624's corner: ~HC, ~m and m' all zero. Data summing to 0xFFFF
// (checksum 0, stored as 0xFFFF as UDP does) in which a 0xFFFF word becomes
// 0x0000: the sum stays 0xFFFF and the checksum must stay 0, not 0xFFFF.
TEST(ChecksumTest, Update16AllZeroOperandsCorner) {
  std::vector<uint8_t> d = {0xFF, 0xFF, 0x12, 0x34, 0x00,
                            0x00, 0x00, 0x00, 0xED, 0xCB};
  ASSERT_EQ(Full(d), 0);
  d = WithChecksum(d, 0xFFFF);
  d[0] = d[1] = 0;
  EXPECT_EQ(Full(d), 0);
  EXPECT_EQ(ChecksumUpdate16(0xFFFF, 0xFFFF, 0x0000), 0);
  const uint8_t old_bytes[2] = {0xFF, 0xFF}, new_bytes[2] = {0, 0};
  EXPECT_EQ(ChecksumUpdateBytes(0xFFFF, 0, old_bytes, new_bytes, 2), 0);
  EXPECT_EQ(UdpChecksumUpdateBytes(0xFFFF, 0, old_bytes, new_bytes, 2), 0xFFFF);
}

TEST(ChecksumTest, UpdateBytesEqualsFullRecomputationAtAnyOffset) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> d(9 + rng() % 90);
    for (uint8_t& b : d) b = static_cast<uint8_t>(rng());
    if (trial % 5 == 0) std::fill(d.begin() + 8, d.end(), 0xFF);
    uint16_t c = Full(d);
    if (c == 0 && (trial / 5) % 2) c = 0xFFFF;
    d = WithChecksum(d, c);
    const uint32_t off = 8 + rng() % (d.size() - 8);
    const uint32_t len = 1 + rng() % (d.size() - off);
    std::vector<uint8_t> old_bytes(d.begin() + off, d.begin() + off + len);
    std::vector<uint8_t> new_bytes(len);
    for (uint8_t& b : new_bytes) {
      b = trial % 7 == 0   ? 0
          : trial % 7 == 1 ? 0xFF
                           : static_cast<uint8_t>(rng());
    }
    std::copy(new_bytes.begin(), new_bytes.end(), d.begin() + off);
    ASSERT_EQ(
        ChecksumUpdateBytes(c, off, old_bytes.data(), new_bytes.data(), len),
        Full(d))
        << "trial " << trial << " off " << off << " len " << len;
  }
}

TEST(ChecksumTest, UdpUpdateKeepsDisabledChecksumAndMapsZero) {
  const uint8_t a[2] = {0x12, 0x34}, b[2] = {0x56, 0x78};
  EXPECT_EQ(UdpChecksumUpdateBytes(0, 8, a, b, 2), 0);
  // A change that makes the computed checksum 0 is sent as 0xFFFF: with
  // checksum C the data sums to ~C; a word going from 0 to C brings the sum
  // to 0xFFFF.
  const uint8_t zero[2] = {0, 0};
  const uint16_t c = 0x1234;
  const uint8_t to[2] = {0x12, 0x34};
  EXPECT_EQ(ChecksumUpdateBytes(c, 8, zero, to, 2), 0);
  EXPECT_EQ(UdpChecksumUpdateBytes(c, 8, zero, to, 2), 0xFFFF);
}

}  // namespace
}  // namespace checksum_test
}  // namespace zg::core
