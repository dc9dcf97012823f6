// SPDX-License-Identifier: Apache-2.0
// LeapWatch: a leap is "scheduled" when it enters the last day before it and
// "applied" once the served time passes it; a table without it forgets it.
#include "servo/leap/leap_watch.h"

#include "gtest/gtest.h"

namespace zg::servo {
namespace leap_watch_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
constexpr int64_t kDay = core::kSecondsPerDay * kS;

// TAI-UTC 36 until 2030-01-01 (a synthetic leap second at its start).
core::LeapTable Table() {
  const core::UtcNs leap_day{1'893'456'000 * kS};  // 2030-01-01T00:00:00Z
  auto t = core::LeapTable::Create(
      {{core::UtcNs{1'435'708'800 * kS}, 36}, {leap_day, 37}},
      core::UtcNs{1'700'000'000 * kS}, core::UtcNs{1'950'000'000 * kS});
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(LeapWatchTest, ScheduledInTheLastDayThenApplied) {
  const core::LeapTable table = Table();
  const core::LeapEvent leap = *table.NextLeap(core::UtcNs{1'800'000'000 * kS});
  EXPECT_EQ(leap.kind, core::LeapPending::kInsert);
  LeapWatch w;
  EXPECT_FALSE(w.Update(table, leap.tai - 2 * kDay));
  EXPECT_FALSE(w.pending());
  std::optional<LeapWatch::Change> c = w.Update(table, leap.tai - kDay + kS);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->applied);
  EXPECT_EQ(c->leap, leap);
  EXPECT_TRUE(w.pending());
  EXPECT_FALSE(w.Update(table, leap.tai - kS)) << "reported once";
  c = w.Update(table, leap.tai);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->applied);
  EXPECT_EQ(c->leap.offset_after_s, 37);
  EXPECT_FALSE(w.pending());
  EXPECT_FALSE(w.Update(table, leap.tai + kS));
}

TEST(LeapWatchTest, ForgetsALeapTheTableNoLongerLists) {
  const core::LeapTable with = Table();
  const core::LeapEvent leap = *with.NextLeap(core::UtcNs{1'800'000'000 * kS});
  LeapWatch w;
  ASSERT_TRUE(w.Update(with, leap.tai - kS));
  const core::LeapTable without = core::LeapTable::BuiltIn();
  EXPECT_FALSE(w.Update(without, leap.tai - kS / 2));
  EXPECT_FALSE(w.pending());
}

}  // namespace
}  // namespace leap_watch_test
}  // namespace zg::servo
