// SPDX-License-Identifier: Apache-2.0
#include "tests/util/hex.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace zg::testutil {
namespace hex_test {
namespace {

using Bytes = std::vector<uint8_t>;

TEST(HexTest, FromHexReadsPairsAndSkipsSeparators) {
  EXPECT_EQ(FromHex(""), Bytes{});
  EXPECT_EQ(FromHex("e30AfF"), (Bytes{0xe3, 0x0a, 0xff}));
  EXPECT_EQ(FromHex("02:00:5e 10-00 01"),
            (Bytes{0x02, 0x00, 0x5e, 0x10, 0x00, 0x01}));
}

TEST(HexTest, ToHexInverts) {
  const Bytes b = {0x02, 0x00, 0x5e, 0xff};
  EXPECT_EQ(ToHex(b), "02005eff");
  EXPECT_EQ(ToHex(b, ":"), "02:00:5e:ff");
  EXPECT_EQ(FromHex(ToHex(b, ":")), b);
  EXPECT_EQ(ToHex({}), "");
}

TEST(HexDeathTest, TyposAbort) {
  EXPECT_DEATH(FromHex("e3g0"), "bad hex at offset 2");
  EXPECT_DEATH(FromHex("e30"), "bad hex at offset 3");
  EXPECT_DEATH(FromHex("e 3"), "bad hex at offset 1");  // a split byte
}

}  // namespace
}  // namespace hex_test
}  // namespace zg::testutil
