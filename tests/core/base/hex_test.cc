// SPDX-License-Identifier: Apache-2.0
// DecodeHex: abseil's decoding behind a check that refuses what
// absl::HexStringToBytes would silently turn into other bytes.
#include "core/base/hex.h"

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace hex_test {
namespace {

TEST(HexTest, DecodesPairsOfEitherCase) {
  EXPECT_EQ(DecodeHex(""), std::string());
  EXPECT_EQ(DecodeHex("e30AfF"), std::string("\xe3\x0a\xff"));
  EXPECT_EQ(DecodeHex("00"), std::string(1, '\0'));
  const std::string all =
      DecodeHex(absl::BytesToHexString("\x01\x7f\x80")).value();
  EXPECT_EQ(all, "\x01\x7f\x80");
}

TEST(HexTest, RefusesWhatAbseilWouldMisread) {
  for (const char* bad :
       {"e", "e30", "g0", "0g", " e3", "e3 ", "e3:00", "0x12", "+1", "\xe3"}) {
    EXPECT_FALSE(IsHexBytes(bad)) << bad;
    EXPECT_EQ(DecodeHex(bad), std::nullopt) << bad;
  }
  EXPECT_FALSE(DecodeHex(absl::string_view("e\0", 2)));
}

}  // namespace
}  // namespace hex_test
}  // namespace zg::core
