// SPDX-License-Identifier: Apache-2.0
#include "core/net/access_rules.h"

#include "core/net/ip_prefix.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace access_rules_test {
namespace {

using ::testing::HasSubstr;

std::vector<IpPrefix> P(const char* list) {
  return ParseNetworkPrefixList(list).value();
}
IpAddress A(const char* text) { return ParseIpAddress(text).value(); }

TEST(AccessRulesTest, NoRulesAllowsEverything) {
  const AccessRules r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(DecideByScan(r, A("192.0.2.1")), AccessVerdict::kAllowDefault);
  EXPECT_EQ(DecideByScan(r, A("2001:db8::1")), AccessVerdict::kAllowDefault);
}

TEST(AccessRulesTest, DenyOnlyListsStayOpenElsewhere) {
  const AccessRules r{.deny = P("192.0.2.0/24")};
  EXPECT_EQ(DecideByScan(r, A("192.0.2.9")), AccessVerdict::kDenyRule);
  EXPECT_EQ(DecideByScan(r, A("198.51.100.1")), AccessVerdict::kAllowDefault);
  EXPECT_EQ(DecideByScan(r, A("2001:db8::1")), AccessVerdict::kAllowDefault);
}

TEST(AccessRulesTest, AnAllowRuleClosesTheRestOfBothFamilies) {
  const AccessRules r{.allow = P("10.0.0.0/8")};
  EXPECT_EQ(DecideByScan(r, A("10.1.2.3")), AccessVerdict::kAllowRule);
  EXPECT_EQ(DecideByScan(r, A("11.0.0.1")), AccessVerdict::kDenyDefault);
  EXPECT_EQ(DecideByScan(r, A("2001:db8::1")), AccessVerdict::kDenyDefault);
}

TEST(AccessRulesTest, MostSpecificWins) {
  const AccessRules r{.allow = P("10.0.0.0/8,10.9.9.0/24,2001:db8::/32"),
                      .deny = P("10.9.0.0/16,10.9.9.9,2001:db8:bad::/48")};
  EXPECT_EQ(DecideByScan(r, A("10.1.1.1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(DecideByScan(r, A("10.9.1.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(DecideByScan(r, A("10.9.9.1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(DecideByScan(r, A("10.9.9.9")), AccessVerdict::kDenyRule);
  EXPECT_EQ(DecideByScan(r, A("2001:db8:1::1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(DecideByScan(r, A("2001:db8:bad::1")), AccessVerdict::kDenyRule);
}

TEST(AccessRulesTest, SlashZeroIsARule) {
  const AccessRules r{.allow = P("10.0.0.0/8"), .deny = P("all")};
  EXPECT_EQ(DecideByScan(r, A("11.0.0.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(DecideByScan(r, A("::1")), AccessVerdict::kDenyRule);
  const AccessRules open{.allow = P("0.0.0.0/0"), .deny = P("10.0.0.0/8")};
  EXPECT_EQ(DecideByScan(open, A("11.0.0.1")), AccessVerdict::kAllowRule);
  EXPECT_EQ(DecideByScan(open, A("10.0.0.1")), AccessVerdict::kDenyRule);
  EXPECT_EQ(DecideByScan(open, A("::1")), AccessVerdict::kDenyDefault);
}

TEST(AccessRulesTest, SamePrefixInBothListsIsAnError) {
  const AccessRules r{.allow = P("10.0.0.0/8,192.0.2.0/24"),
                      .deny = P("192.0.2.0/24")};
  const absl::Status s = ValidateAccessRules(r, "ntp");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("192.0.2.0/24 is in both --ntp_allow and --ntp_deny"));
  // A more specific exception is fine, and so are duplicates in one list.
  EXPECT_TRUE(
      ValidateAccessRules(
          {.allow = P("10.0.0.0/8,10.0.0.0/8"), .deny = P("10.0.0.0/9")}, "ptp")
          .ok());
  // The same bits in the other family are another prefix.
  EXPECT_TRUE(
      ValidateAccessRules({.allow = P("0.0.0.0/0"), .deny = P("::/0")}, "ptp")
          .ok());
}

TEST(AccessRulesTest, HostBitsAreAnError) {
  AccessRules r;
  r.deny.push_back(IpPrefix{A("192.0.2.1"), 24});
  EXPECT_THAT(ValidateAccessRules(r, "ptp").message(),
              HasSubstr("--ptp_deny: prefix 192.0.2.1/24 has host bits set; "
                        "write 192.0.2.0/24"));
}

TEST(AccessRulesTest, NamesAndDescription) {
  EXPECT_STREQ(AccessVerdictName(AccessVerdict::kAllowRule), "allow_rule");
  EXPECT_STREQ(AccessVerdictName(AccessVerdict::kDenyDefault), "deny_default");
  EXPECT_TRUE(IsAllowed(AccessVerdict::kAllowDefault));
  EXPECT_FALSE(IsByRule(AccessVerdict::kAllowDefault));
  EXPECT_TRUE(IsByRule(AccessVerdict::kDenyRule));
  EXPECT_FALSE(IsAllowed(AccessVerdict::kDenyRule));
  EXPECT_EQ(DescribeAccessRules({.allow = P("10.0.0.0/8,2001:db8::/32"),
                                 .deny = P("10.9.0.0/16")}),
            "2 allow, 1 deny (2 IPv4, 1 IPv6); default deny");
}

}  // namespace
}  // namespace access_rules_test
}  // namespace zg::core
