// SPDX-License-Identifier: Apache-2.0
// BIRD's control-socket replies, from lines BIRD 2.0.12 sent (see
// bird_cli.h), and the bounds on what a peer can make us hold.
#include "servo/fleet/bird_cli.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::servo {
namespace bird_cli_test {
namespace {

using ::testing::HasSubstr;

BirdReply Read(const std::vector<std::string>& lines) {
  BirdReplyReader r;
  for (size_t i = 0; i < lines.size(); ++i) {
    const BirdReplyReader::Result res = r.Feed(lines[i]);
    EXPECT_EQ(res, i + 1 == lines.size() ? BirdReplyReader::kDone
                                         : BirdReplyReader::kMore)
        << lines[i];
  }
  return r.Take();
}

TEST(BirdCliTest, Welcome) {
  const BirdReply w = Read({"0001 BIRD 2.0.12 ready."});
  EXPECT_EQ(w.code, 1);
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(w.Text(), "BIRD 2.0.12 ready.");
}

TEST(BirdCliTest, ShowProtocols) {
  const BirdReply r = Read({
      "2002-Name       Proto      Table      State  Since         Info",
      "1002-zg_anycast Static     master4    up     22:22:38.866  ",
      "1002-bgp_tor    BGP        ---        start  22:22:38.866  Active",
      "0000 ",
  });
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(BirdProtocolState(r, "zg_anycast"), "up");
  EXPECT_EQ(BirdProtocolState(r, "bgp_tor"), "start");
  EXPECT_EQ(BirdProtocolState(r, "zg"), std::nullopt);
}

TEST(BirdCliTest, ContinuationLinesKeepTheirCode) {
  const BirdReply r =
      Read({"1006-  Channel ipv4", "     State:          DOWN", " ", "0000 "});
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_EQ(r.lines[1].code, 1006);
  EXPECT_EQ(r.Text(), "Channel ipv4; State:          DOWN");
}

TEST(BirdCliTest, Errors) {
  const BirdReply r =
      Read({"9001 syntax error, unexpected CF_SYM_UNDEFINED, expecting "
            "CF_SYM_KNOWN or TEXT or ALL"});
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.Text(), HasSubstr("syntax error"));
  EXPECT_FALSE(Read({"8001 Access denied"}).ok());
}

TEST(BirdCliTest, EnableDisableReplies) {
  EXPECT_TRUE(Read({"0011-zg_anycast: enabled", "0000 "}).ok());
  EXPECT_TRUE(Read({"0008-zg_anycast: already disabled", "0000 "}).ok());
}

TEST(BirdCliTest, Malformed) {
  for (const char* bad : {"", "12", "abcd text", "0001x", " orphan"}) {
    BirdReplyReader r;
    EXPECT_EQ(r.Feed(bad), BirdReplyReader::kMalformed) << bad;
  }
  BirdReplyReader r;
  EXPECT_EQ(r.Feed(std::string(kMaxBirdLineBytes + 1, '0')),
            BirdReplyReader::kMalformed);
  BirdReplyReader many;
  for (size_t i = 0; i < kMaxBirdReplyLines; ++i) {
    ASSERT_EQ(many.Feed("1002-row"), BirdReplyReader::kMore);
  }
  EXPECT_EQ(many.Feed("0000 "), BirdReplyReader::kMalformed);
}

TEST(BirdCliTest, Symbols) {
  EXPECT_TRUE(ValidateBirdSymbol("zg_anycast").ok());
  EXPECT_TRUE(ValidateBirdSymbol("_a1").ok());
  for (const char* bad : {"", "1abc", "a b", "a;b", "a\nshow", "é"}) {
    EXPECT_FALSE(ValidateBirdSymbol(bad).ok()) << bad;
  }
  EXPECT_FALSE(ValidateBirdSymbol(std::string(65, 'a')).ok());
}

}  // namespace
}  // namespace bird_cli_test
}  // namespace zg::servo
