// SPDX-License-Identifier: Apache-2.0
// The access-list flags (dataplane/daemon/flags/trust.h): every occurrence
// and flagfile counts, values become an AccessConfig, errors name the flag and
// the value, and ParseDaemonFlags fills DaemonConfig::access (no EAL needed).
#include "dataplane/daemon/flags/trust.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/net/ip_prefix.h"
#include "dataplane/daemon/flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace trust_test {
namespace {

using ::testing::HasSubstr;

std::vector<core::IpPrefix> P(const char* list) {
  return core::ParseNetworkPrefixList(list).value();
}

std::string TempFile(const std::string& tag, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/zg_access_flags_" + tag +
                           "_" + std::to_string(getpid());
  std::ofstream(path) << content;
  return path;
}

TEST(AccessFlagsTest, NoFlagsMeansOpenAndDrop) {
  absl::StatusOr<AccessConfig> c = ParseAccessFlags({"--vlan=3"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->ntp.empty());
  EXPECT_TRUE(c->ptp.empty());
  EXPECT_EQ(c->ntp_deny_action, NtpDenyAction::kDrop);
}

TEST(AccessFlagsTest, EveryOccurrenceCountsFlagfilesIncluded) {
  const std::string file =
      TempFile("every",
               "# ACL\n--ntp_allow=2001:db8::/32\n--ntp_deny_action=kod\n"
               "--ptp_deny=10.1.66.0/24\n");
  absl::StatusOr<AccessConfig> c = ParseAccessFlags(
      {"--ntp_allow=10.0.0.0/8, 192.0.2.7", "--flagfile=" + file, "--ntp_allow",
       "198.51.100.0/24", "--ntp_deny=10.66.0.0/16", "--ptp_allow=all"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ntp.allow,
            P("10.0.0.0/8,192.0.2.7,2001:db8::/32,198.51.100.0/24"));
  EXPECT_EQ(c->ntp.deny, P("10.66.0.0/16"));
  EXPECT_EQ(c->ptp.allow, P("0.0.0.0/0,::/0"));
  EXPECT_EQ(c->ptp.deny, P("10.1.66.0/24"));
  EXPECT_EQ(c->ntp_deny_action, NtpDenyAction::kKod);
}

TEST(AccessFlagsTest, TheLastDenyActionCounts) {
  EXPECT_EQ(
      ParseAccessFlags({"--ntp_deny_action=kod", "--ntp_deny_action=drop"})
          ->ntp_deny_action,
      NtpDenyAction::kDrop);
  EXPECT_EQ(ParseAccessFlags({"--ntp_deny_action=KoD"})->ntp_deny_action,
            NtpDenyAction::kKod);
  EXPECT_STREQ(NtpDenyActionName(NtpDenyAction::kKod), "kod");
}

TEST(AccessFlagsTest, ErrorsNameTheFlagAndTheValue) {
  EXPECT_THAT(ParseAccessFlags({"--ntp_deny=10.0.0.1/8"}).status().message(),
              HasSubstr("--ntp_deny=10.0.0.1/8: prefix \"10.0.0.1/8\" has "
                        "host bits set beyond /8: write 10.0.0.0/8"));
  EXPECT_THAT(
      ParseAccessFlags({"--ptp_allow=10.0.0.0/8,bogus"}).status().message(),
      HasSubstr("--ptp_allow=10.0.0.0/8,bogus: item 2"));
  EXPECT_THAT(
      ParseAccessFlags({"--ntp_allow=2001:db8::/129"}).status().message(),
      HasSubstr("--ntp_allow=2001:db8::/129: invalid prefix length"));
  EXPECT_THAT(ParseAccessFlags({"--ntp_deny_action=reject"}).status().message(),
              HasSubstr("--ntp_deny_action=reject: expected drop"));
}

TEST(AccessFlagsTest, APrefixBothAllowedAndDeniedIsAnError) {
  const absl::Status s =
      ParseAccessFlags({"--ptp_allow=10.0.0.0/8", "--ptp_deny=10.0.0.0/8"})
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("10.0.0.0/8 is in both --ptp_allow and --ptp_deny"));
  // NTP and PTP lists are separate: the same prefix in each is fine.
  EXPECT_TRUE(
      ParseAccessFlags({"--ntp_allow=10.0.0.0/8", "--ptp_deny=10.0.0.0/8"})
          .ok());
}

TEST(AccessFlagsTest, ThePureFunctionGivesTheSameConfigAgain) {
  // A reload calls it again on freshly collected values.
  AccessFlagValues v;
  v.ntp_allow = {"10.0.0.0/8", "2001:db8::/32"};
  v.ntp_deny = {"10.9.0.0/16"};
  v.ntp_deny_action = "kod";
  absl::StatusOr<AccessConfig> a = AccessConfigFromFlags(v);
  absl::StatusOr<AccessConfig> b = AccessConfigFromFlags(v);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, *b);
  // An edited flagfile is read again by the next collection.
  const std::string file = TempFile("reload", "--ntp_deny=10.9.0.0/16\n");
  EXPECT_EQ(ParseAccessFlags({"--flagfile=" + file})->ntp.deny,
            P("10.9.0.0/16"));
  std::ofstream(file) << "--ntp_deny=10.8.0.0/16\n";
  EXPECT_EQ(ParseAccessFlags({"--flagfile=" + file})->ntp.deny,
            P("10.8.0.0/16"));
}

absl::StatusOr<DaemonConfig> ParseDaemon(std::vector<std::string> args) {
  static std::vector<std::vector<std::string>> keep;  // argv must outlive
  args.insert(args.begin(), "zeitgeberd");
  keep.push_back(args);
  std::vector<char*> argv;
  for (std::string& a : keep.back()) argv.push_back(a.data());
  return ParseDaemonFlags(argv);
}

TEST(AccessFlagsTest, DaemonConfigCarriesTheAccessConfig) {
  absl::StatusOr<DaemonConfig> c =
      ParseDaemon({"--address=192.0.2.10/24", "--ntp_allow=10.0.0.0/8",
                   "--ntp_allow=10.1.0.0/16", "--ntp_deny_action=kod",
                   "--ptp_deny=2001:db8::/32"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access.ntp.allow, P("10.0.0.0/8,10.1.0.0/16"));
  EXPECT_EQ(c->access.ptp.deny, P("2001:db8::/32"));
  EXPECT_EQ(c->access.ntp_deny_action, NtpDenyAction::kKod);
  EXPECT_THAT(ParseDaemon({"--address=192.0.2.10/24", "--ntp_allow=10.0.0.0/8",
                           "--ntp_deny=10.0.0.0/8"})
                  .status()
                  .message(),
              HasSubstr("is in both --ntp_allow and --ntp_deny"));
}

}  // namespace
}  // namespace trust_test
}  // namespace zg::dataplane
