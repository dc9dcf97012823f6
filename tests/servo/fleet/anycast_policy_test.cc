// SPDX-License-Identifier: Apache-2.0
// AnycastPolicy: the health checks, and the hysteresis that keeps a
// flapping source from flapping the route.
#include "servo/fleet/anycast_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::servo {
namespace anycast_policy_test {
namespace {

using ::testing::HasSubstr;
constexpr int64_t kS = 1'000'000'000;

HealthVerdict Healthy() {
  return JudgeHealth({.sync = core::SyncState::kLocked});
}
HealthVerdict Lost() {
  return JudgeHealth({.sync = core::SyncState::kHoldoverOutOfSpec});
}

TEST(JudgeHealthTest, EachCheck) {
  EXPECT_TRUE(Healthy().healthy);
  EXPECT_EQ(Healthy().why, "");
  EXPECT_TRUE(JudgeHealth({.sync = core::SyncState::kHoldoverInSpec}).healthy);
  for (core::SyncState s :
       {core::SyncState::kFreerun, core::SyncState::kLocking,
        core::SyncState::kHoldoverOutOfSpec}) {
    const HealthVerdict v = JudgeHealth({.sync = s});
    EXPECT_FALSE(v.healthy);
    EXPECT_THAT(v.why, HasSubstr("reference not within the holdover spec"));
  }
  HealthVerdict v = JudgeHealth({.sync = core::SyncState::kLocked,
                                 .stalled_workers = {0, 2},
                                 .ports_down = {"net_af_xdp1"}});
  EXPECT_FALSE(v.healthy);
  EXPECT_EQ(v.why, "worker(s) 0,2 stalled; port(s) net_af_xdp1 down");
}

TEST(AnycastPolicyTest, AnnouncesOnlyAfterTheHoldUp) {
  AnycastPolicy p({.announce_after = absl::Seconds(10)});
  EXPECT_FALSE(p.Update(Healthy(), false, 0).has_value());
  EXPECT_FALSE(p.Update(Healthy(), false, 9 * kS).has_value());
  auto c = p.Update(Healthy(), false, 10 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->announce);
  EXPECT_EQ(c->why, "healthy for 10s");
  EXPECT_TRUE(p.announce());
  EXPECT_EQ(p.announcements(), 1u);
}

TEST(AnycastPolicyTest, WithdrawsAtOnceAndFlappingDoesNotReannounce) {
  AnycastPolicy p({.announce_after = absl::Seconds(10)});
  p.Update(Healthy(), false, 0);
  ASSERT_TRUE(p.Update(Healthy(), false, 10 * kS).has_value());
  auto c = p.Update(Lost(), false, 11 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->announce);
  EXPECT_THAT(c->why, HasSubstr("unhealthy: reference not within"));
  // Healthy, sick, healthy ... every few seconds: never healthy for 10 s.
  for (int64_t t = 12; t < 60; t += 4) {
    EXPECT_FALSE(p.Update(Healthy(), false, t * kS).has_value()) << t;
    EXPECT_FALSE(p.Update(Lost(), false, (t + 2) * kS).has_value()) << t;
  }
  EXPECT_FALSE(p.announce());
  EXPECT_THAT(p.unhealthy_why(), HasSubstr("HOLDOVER_OUT_OF_SPEC"));
  p.Update(Healthy(), false, 60 * kS);
  ASSERT_TRUE(p.Update(Healthy(), false, 70 * kS).has_value());
  EXPECT_EQ(p.withdrawals(), 1u);
  EXPECT_EQ(p.announcements(), 2u);
}

TEST(AnycastPolicyTest, WithdrawDelayIgnoresShortTrouble) {
  AnycastPolicy p({.announce_after = absl::ZeroDuration(),
                   .withdraw_after = absl::Seconds(3)});
  ASSERT_TRUE(p.Update(Healthy(), false, 0).has_value());
  EXPECT_FALSE(p.Update(Lost(), false, 1 * kS).has_value());
  EXPECT_FALSE(p.Update(Lost(), false, 3 * kS).has_value());  // 2 s
  EXPECT_FALSE(p.Update(Healthy(), false, 3 * kS).has_value());
  EXPECT_FALSE(p.Update(Lost(), false, 4 * kS).has_value());
  auto c = p.Update(Lost(), false, 7 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->announce);
}

TEST(AnycastPolicyTest, DrainWithdrawsAtOnceUndrainReannouncesAtOnce) {
  AnycastPolicy p({.announce_after = absl::Seconds(5)});
  p.Update(Healthy(), false, 0);
  ASSERT_TRUE(p.Update(Healthy(), false, 5 * kS).has_value());
  auto c = p.Update(Healthy(), true, 6 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->announce);
  EXPECT_EQ(c->why, "draining");
  EXPECT_FALSE(p.Update(Healthy(), true, 20 * kS).has_value());
  c = p.Update(Healthy(), false, 21 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->announce);
}

TEST(AnycastPolicyTest, UndrainWhileUnhealthyStaysWithdrawn) {
  AnycastPolicy p({.announce_after = absl::Seconds(5)});
  p.Update(Healthy(), true, 0);
  EXPECT_FALSE(p.Update(Lost(), true, 1 * kS).has_value());
  EXPECT_FALSE(p.Update(Lost(), false, 2 * kS).has_value());
  EXPECT_FALSE(p.Update(Healthy(), false, 3 * kS).has_value());
  ASSERT_TRUE(p.Update(Healthy(), false, 8 * kS).has_value());
}

}  // namespace
}  // namespace anycast_policy_test
}  // namespace zg::servo
