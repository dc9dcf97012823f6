// SPDX-License-Identifier: Apache-2.0
// DrainControl: SERVING -> DRAINING -> DRAINED from the operator, the drain
// file and a stop; the force-undrain file's override; the grace; reasons.
#include "servo/fleet/drain_control.h"

#include "gtest/gtest.h"

namespace zg::servo {
namespace drain_control_test {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(DrainControlTest, OperatorDrainThenGraceThenUndrain) {
  DrainControl d(absl::Seconds(5), "/run/drain", "/run/undrain");
  EXPECT_FALSE(d.Update({}, 1 * kS).has_value());
  EXPECT_EQ(d.state(), DrainState::kServing);
  d.SetOperatorRequest(true, "zgctl drain (uid 0, pid 7)");
  auto c = d.Update({}, 2 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->from, DrainState::kServing);
  EXPECT_EQ(c->to, DrainState::kDraining);
  EXPECT_EQ(c->why, "zgctl drain (uid 0, pid 7)");
  EXPECT_TRUE(d.draining());
  EXPECT_EQ(d.grace_left(4 * kS), absl::Seconds(3));
  EXPECT_FALSE(d.Update({}, 6 * kS).has_value());  // 4 s of 5
  c = d.Update({}, 7 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kDrained);
  EXPECT_EQ(c->why, "grace of 5s over");
  EXPECT_EQ(d.reason(), "zgctl drain (uid 0, pid 7)");
  EXPECT_EQ(d.grace_left(8 * kS), absl::ZeroDuration());
  d.SetOperatorRequest(false, "zgctl undrain (uid 0, pid 9)");
  c = d.Update({}, 9 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->from, DrainState::kDrained);
  EXPECT_EQ(c->to, DrainState::kServing);
  EXPECT_EQ(c->why, "zgctl undrain (uid 0, pid 9)");
  EXPECT_EQ(d.reason(), "");
  EXPECT_EQ(d.changes_to(DrainState::kDraining), 1u);
  EXPECT_EQ(d.changes_to(DrainState::kDrained), 1u);
  EXPECT_EQ(d.changes_to(DrainState::kServing), 1u);
}

TEST(DrainControlTest, UndrainWhileDrainingReturnsToServing) {
  DrainControl d(absl::Seconds(5));
  d.SetOperatorRequest(true, "a");
  ASSERT_TRUE(d.Update({}, 0).has_value());
  d.SetOperatorRequest(false, "b");
  auto c = d.Update({}, 1 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->from, DrainState::kDraining);
  EXPECT_EQ(c->to, DrainState::kServing);
}

TEST(DrainControlTest, DrainFileDrainsUntilRemoved) {
  DrainControl d(absl::ZeroDuration(), "/run/drain", "/run/undrain");
  auto c = d.Update({.drain_file = true}, 1 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->why, "drain file /run/drain exists");
  // A zero grace: DRAINED on the next pass.
  c = d.Update({.drain_file = true}, 1 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kDrained);
  c = d.Update({}, 2 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kServing);
  EXPECT_EQ(c->why, "drain file /run/drain removed");
}

TEST(DrainControlTest, ForceUndrainOverridesDrainFileAndOperator) {
  DrainControl d(absl::Seconds(1), "/run/drain", "/run/undrain");
  d.SetOperatorRequest(true, "zgctl drain");
  EXPECT_FALSE(d.Update({.drain_file = true, .force_undrain_file = true}, 0)
                   .has_value());
  EXPECT_EQ(d.state(), DrainState::kServing);
  ASSERT_TRUE(d.Update({.drain_file = true}, 1 * kS).has_value());
  auto c = d.Update({.drain_file = true, .force_undrain_file = true}, 2 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kServing);
  EXPECT_EQ(c->why, "force-undrain file /run/undrain exists");
}

TEST(DrainControlTest, StoppingOverridesForceUndrain) {
  DrainControl d(absl::Seconds(2));
  auto c = d.Update({.force_undrain_file = true, .stopping = true}, 0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kDraining);
  EXPECT_EQ(c->why, "stopping");
  EXPECT_FALSE(d.Update({.stopping = true}, 1 * kS).has_value());
  c = d.Update({.stopping = true}, 2 * kS);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->to, DrainState::kDrained);
}

TEST(DrainControlTest, DrainedStaysWhileAnotherAskerTakesOver) {
  DrainControl d(absl::ZeroDuration(), "/f");
  d.SetOperatorRequest(true, "op");
  ASSERT_TRUE(d.Update({.drain_file = true}, 0).has_value());
  ASSERT_TRUE(d.Update({.drain_file = true}, 0).has_value());  // DRAINED
  d.SetOperatorRequest(false, "op undrain");
  // The drain file still asks: no change, now for the file's sake.
  EXPECT_FALSE(d.Update({.drain_file = true}, 1).has_value());
  EXPECT_EQ(d.state(), DrainState::kDrained);
  EXPECT_EQ(d.reason(), "drain file /f exists");
}

TEST(DrainControlTest, Names) {
  EXPECT_STREQ(DrainStateName(DrainState::kServing), "SERVING");
  EXPECT_STREQ(DrainStateName(DrainState::kDraining), "DRAINING");
  EXPECT_STREQ(DrainStateName(DrainState::kDrained), "DRAINED");
}

}  // namespace
}  // namespace drain_control_test
}  // namespace zg::servo
