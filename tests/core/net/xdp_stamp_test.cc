// SPDX-License-Identifier: Apache-2.0
#include "core/net/xdp_stamp.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

namespace zg::core {
namespace xdp_stamp_test {
namespace {

std::vector<uint8_t> WithHeader(uint64_t magic, uint64_t ns, size_t tail) {
  std::vector<uint8_t> f(kXdpStampLen + tail, 0xee);
  std::memcpy(f.data(), &magic, 8);
  std::memcpy(f.data() + 8, &ns, 8);
  return f;
}

TEST(XdpStamp, KernelAndNicHeadersCarryTheirClock) {
  const auto k = ParseXdpStamp(WithHeader(kXdpStampMagicKernel, 123456789, 60));
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->clock, XdpClock::kKernel);
  EXPECT_EQ(k->ns, 123456789u);
  const auto n = ParseXdpStamp(WithHeader(kXdpStampMagicNic, 987654321, 0));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->clock, XdpClock::kNic);
  EXPECT_EQ(n->ns, 987654321u);
}

TEST(XdpStamp, MatchesTheProgramsMagicStrings) {
  // dataplane/bpf/zg_xdp.c writes the magic as a native-endian uint64_t
  // (little-endian on x86 and arm64): "pmtsxrgz" / "stwhxrgz" in memory.
  uint64_t k = 0, n = 0;
  std::memcpy(&k, "pmtsxrgz", 8);
  std::memcpy(&n, "stwhxrgz", 8);
  EXPECT_EQ(k, kXdpStampMagicKernel);
  EXPECT_EQ(n, kXdpStampMagicNic);
}

TEST(XdpStamp, NoHeaderShortFrameOrZeroStamp) {
  // An Ethernet header first: not a stamp.
  std::vector<uint8_t> eth(64, 0x02);
  EXPECT_FALSE(ParseXdpStamp(eth).has_value());
  auto f = WithHeader(kXdpStampMagicNic, 5, 0);
  EXPECT_FALSE(
      ParseXdpStamp(std::span<const uint8_t>(f.data(), kXdpStampLen - 1))
          .has_value());
  EXPECT_FALSE(ParseXdpStamp({}).has_value());
  EXPECT_FALSE(ParseXdpStamp(WithHeader(kXdpStampMagicNic, 0, 10)).has_value());
  // One bit off in the magic.
  EXPECT_FALSE(
      ParseXdpStamp(WithHeader(kXdpStampMagicKernel ^ 1, 5, 10)).has_value());
}

TEST(XdpStamp, WriteThenParseRoundTrips) {
  for (XdpClock c : {XdpClock::kKernel, XdpClock::kNic}) {
    std::array<uint8_t, kXdpStampLen> buf{};
    WriteXdpStamp({c, 0xfedcba9876543210ULL}, buf.data());
    const auto s = ParseXdpStamp(buf);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->clock, c);
    EXPECT_EQ(s->ns, 0xfedcba9876543210ULL);
  }
}

}  // namespace
}  // namespace xdp_stamp_test
}  // namespace zg::core
