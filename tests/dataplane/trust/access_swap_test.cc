// SPDX-License-Identifier: Apache-2.0
// ReloadableAccessList (dataplane/trust/access_swap.h): the list built at
// start-up, a reload that changes it (staged, published at commit, the old
// tables freed after the grace period), one that changes nothing, and one
// that is invalid (the old list stays). Needs the EAL (rte_lpm).
#include "dataplane/trust/access_swap.h"

#include "core/net/ip_prefix.h"
#include "dataplane/daemon/flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace access_swap_test {
namespace {

using core::AccessVerdict;

core::Ipv4Addr V4(const char* text) {
  return core::ParseIpAddress(text).value().v4;
}

AccessConfig Deny(const char* prefixes) {
  AccessConfig c;
  c.ntp.deny = core::ParseNetworkPrefixList(prefixes).value();
  return c;
}

TEST(ReloadableAccessListTest, AReloadSwapsTheListAfterCommit) {
  ReaderEpochs epochs;
  ReloadableAccessList acl(AccessProtocol::kNtp, &epochs);
  EXPECT_EQ(acl.Current(), nullptr);
  ASSERT_TRUE(acl.Configure(Deny("192.0.2.0/24")).ok());
  EXPECT_EQ(acl.Current()->list->Check(V4("192.0.2.7")),
            AccessVerdict::kDenyRule);
  epochs.Online(0);
  const AccessPolicy* held = acl.Current();  // a worker mid-burst

  DaemonConfig next;
  next.access = Deny("198.51.100.0/24");
  next.access.ntp_deny_action = NtpDenyAction::kKod;
  ReloadPlan plan;
  ASSERT_TRUE(acl.Reload({{}, &next, &plan}).ok());
  EXPECT_EQ(plan.staged(), 1u);
  EXPECT_THAT(plan.changes()[0], ::testing::HasSubstr("deny action kod"));
  EXPECT_EQ(acl.Current(), held);  // nothing published before the commit
  plan.Commit();
  const AccessPolicy* now = acl.Current();
  EXPECT_EQ(now->list->Check(V4("192.0.2.7")), AccessVerdict::kAllowDefault);
  EXPECT_EQ(now->list->Check(V4("198.51.100.7")), AccessVerdict::kDenyRule);
  EXPECT_EQ(now->deny_action, NtpDenyAction::kKod);
  // The old list is still usable until the worker's next boundary.
  EXPECT_EQ(epochs.pending(), 1u);
  EXPECT_EQ(held->list->Check(V4("192.0.2.7")), AccessVerdict::kDenyRule);
  epochs.Quiescent(0);
  EXPECT_EQ(epochs.Reclaim(), 1u);

  // The same values again: nothing staged.
  ReloadPlan same;
  ASSERT_TRUE(acl.Reload({{}, &next, &same}).ok());
  EXPECT_EQ(same.staged(), 0u);
}

TEST(ReloadableAccessListTest, AnInvalidListIsRejectedAndTheOldStays) {
  ReaderEpochs epochs;
  ReloadableAccessList acl(AccessProtocol::kNtp, &epochs);
  ASSERT_TRUE(acl.Configure(Deny("192.0.2.0/24")).ok());
  DaemonConfig next;
  next.access = Deny("10.0.0.0/8");
  next.access.ntp.allow = next.access.ntp.deny;  // allowed and denied
  ReloadPlan plan;
  const absl::Status s = acl.Reload({{}, &next, &plan});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(plan.staged(), 0u);
  EXPECT_EQ(acl.Current()->list->Check(V4("192.0.2.7")),
            AccessVerdict::kDenyRule);
}

TEST(ReloadableAccessListTest, ThePtpListFollowsThePtpRules) {
  ReaderEpochs epochs;
  ReloadableAccessList acl(AccessProtocol::kPtp, &epochs);
  AccessConfig c;
  c.ptp.allow = core::ParseNetworkPrefixList("10.1.0.0/16").value();
  ASSERT_TRUE(acl.Configure(c).ok());
  EXPECT_EQ(acl.Current()->list->Check(V4("10.2.0.1")),
            AccessVerdict::kDenyDefault);
  DaemonConfig next;
  next.access = c;
  next.access.ntp = Deny("10.2.0.0/16").ntp;  // NTP only: nothing for PTP
  ReloadPlan plan;
  ASSERT_TRUE(acl.Reload({{}, &next, &plan}).ok());
  EXPECT_EQ(plan.staged(), 0u);
}

}  // namespace
}  // namespace access_swap_test
}  // namespace zg::dataplane
