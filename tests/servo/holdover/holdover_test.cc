// SPDX-License-Identifier: Apache-2.0
#include "servo/holdover/holdover.h"

#include "gtest/gtest.h"

namespace zg::servo {
namespace holdover_test {
namespace {

using core::SyncState;

HoldoverConfig Limits() {
  HoldoverConfig c;
  c.in_spec_limit_ns = 1'000;
  c.freerun_limit_ns = 100'000;
  return c;
}

HoldoverInputs Ref(bool stable, int64_t bound = 50) {
  HoldoverInputs in;
  in.reference_available = true;
  in.servo_stable = stable;
  in.bound_ns = bound;
  return in;
}
HoldoverInputs NoRef(int64_t bound) {
  HoldoverInputs in;
  in.bound_ns = bound;
  return in;
}

TEST(HoldoverTest, FullCycle) {
  HoldoverStateMachine m(Limits());
  EXPECT_EQ(m.state(), SyncState::kFreerun);
  EXPECT_EQ(m.Update(NoRef(0)), SyncState::kFreerun);
  EXPECT_EQ(m.Update(Ref(false)), SyncState::kLocking);
  EXPECT_FALSE(m.holdover_capable());
  EXPECT_EQ(m.Update(Ref(true)), SyncState::kLocked);
  EXPECT_TRUE(m.holdover_capable());
  EXPECT_EQ(m.Update(NoRef(60)), SyncState::kHoldoverInSpec);
  EXPECT_EQ(m.Update(NoRef(1'000)), SyncState::kHoldoverInSpec);  // at limit
  EXPECT_EQ(m.Update(NoRef(1'001)), SyncState::kHoldoverOutOfSpec);
  EXPECT_EQ(m.Update(NoRef(100'000)), SyncState::kHoldoverOutOfSpec);
  EXPECT_EQ(m.Update(NoRef(100'001)), SyncState::kFreerun);
  EXPECT_FALSE(m.holdover_capable());
}

TEST(HoldoverTest, ReferenceBackReacquiresThroughLocking) {
  HoldoverStateMachine m(Limits());
  m.Update(Ref(false));
  m.Update(Ref(true));
  m.Update(NoRef(5'000));  // straight to out of spec
  EXPECT_EQ(m.state(), SyncState::kHoldoverOutOfSpec);
  EXPECT_EQ(m.Update(Ref(true)), SyncState::kLocking);
  EXPECT_EQ(m.Update(Ref(true)), SyncState::kLocked);
}

TEST(HoldoverTest, LosingReferenceWhileNeverLockedIsFreerun) {
  HoldoverStateMachine m(Limits());
  m.Update(Ref(false));
  EXPECT_EQ(m.Update(NoRef(10)), SyncState::kFreerun);
}

TEST(HoldoverTest, LockingAfterHoldoverCanFallBackToHoldover) {
  HoldoverStateMachine m(Limits());
  m.Update(Ref(false));
  m.Update(Ref(true));
  m.Update(NoRef(100));
  m.Update(Ref(false));
  EXPECT_EQ(m.state(), SyncState::kLocking);
  EXPECT_EQ(m.Update(NoRef(200)), SyncState::kHoldoverInSpec);
}

TEST(HoldoverTest, UnstableServoOrOutvotedModelDropsToLocking) {
  HoldoverStateMachine m(Limits());
  m.Update(Ref(false));
  m.Update(Ref(true));
  EXPECT_EQ(m.Update(Ref(false)), SyncState::kLocking);
  EXPECT_EQ(m.Update(Ref(true)), SyncState::kLocked);
  HoldoverInputs in = Ref(true);
  in.reacquire = true;
  EXPECT_EQ(m.Update(in), SyncState::kLocking);
  EXPECT_EQ(m.Update(in), SyncState::kLocking);  // not while still outvoted
  EXPECT_EQ(m.Update(Ref(true)), SyncState::kLocked);
}

TEST(HoldoverTest, NeverBackIntoSpecWithoutReference) {
  HoldoverStateMachine m(Limits());
  m.Update(Ref(false));
  m.Update(Ref(true));
  m.Update(NoRef(2'000));
  EXPECT_EQ(m.Update(NoRef(500)), SyncState::kHoldoverOutOfSpec);
}

TEST(HoldoverTest, ValidatesLimits) {
  EXPECT_TRUE(ValidateHoldoverConfig(Limits()).ok());
  HoldoverConfig c = Limits();
  c.freerun_limit_ns = c.in_spec_limit_ns;
  EXPECT_FALSE(ValidateHoldoverConfig(c).ok());
  c = Limits();
  c.in_spec_limit_ns = 0;
  EXPECT_FALSE(ValidateHoldoverConfig(c).ok());
  EXPECT_STREQ(SyncStateName(SyncState::kHoldoverOutOfSpec),
               "HOLDOVER_OUT_OF_SPEC");
}

}  // namespace
}  // namespace holdover_test
}  // namespace zg::servo
