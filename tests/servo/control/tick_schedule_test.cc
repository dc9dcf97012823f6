// SPDX-License-Identifier: Apache-2.0
// TickSchedule: fixed deadlines, lateness, and re-anchoring after a missed
// slot.
#include "servo/control/tick_schedule.h"

#include "gtest/gtest.h"

namespace zg::servo {
namespace tick_schedule_test {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(TickScheduleTest, DeadlinesAreFixedNotSleepAfterWork) {
  TickSchedule s(100 * kMs, 1'000 * kMs);
  EXPECT_EQ(s.deadline_ns(), 1'000 * kMs);
  s.Begin(1'000 * kMs + 3 * kMs);           // woke 3 ms late, worked...
  EXPECT_EQ(s.deadline_ns(), 1'100 * kMs);  // ...the next is still on time
  s.Begin(1'100 * kMs);
  EXPECT_EQ(s.deadline_ns(), 1'200 * kMs);
  const TickStats& t = s.stats();
  EXPECT_EQ(t.ticks, 2u);
  EXPECT_EQ(t.late_ticks, 0u);
  EXPECT_EQ(t.max_lateness_ns, 3 * kMs);
  EXPECT_EQ(t.last_lateness_ns, 0);
}

TEST(TickScheduleTest, ATickAWholeIntervalLateIsLateAndReanchors) {
  TickSchedule s(100 * kMs, 0);
  s.Begin(0);
  s.Begin(350 * kMs);  // due at 100: 250 ms late, slots 200 and 300 missed
  const TickStats& t = s.stats();
  EXPECT_EQ(t.late_ticks, 1u);
  EXPECT_EQ(t.missed_slots, 2u);
  EXPECT_EQ(t.max_lateness_ns, 250 * kMs);
  EXPECT_EQ(s.deadline_ns(), 450 * kMs);  // one interval after now
  s.Begin(450 * kMs + 99 * kMs);          // 99 ms: late, but not a miss
  EXPECT_EQ(s.stats().late_ticks, 1u);
}

TEST(TickScheduleTest, AnEarlyWakeIsNotNegativeLateness) {
  TickSchedule s(10 * kMs, 100 * kMs);
  s.Begin(95 * kMs);
  EXPECT_EQ(s.stats().last_lateness_ns, 0);
  EXPECT_EQ(s.deadline_ns(), 110 * kMs);
}

}  // namespace
}  // namespace tick_schedule_test
}  // namespace zg::servo
