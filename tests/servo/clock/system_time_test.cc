// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/system_time.h"

#include <cmath>
#include <cstdlib>

#include "gtest/gtest.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace system_time_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

TEST(ReadBracketedTest, KeepsTheTightestOfSeveralReads) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  // The first two reads are disturbed by 5 us before the clock read.
  w.system_read_delays = {5'000, 5'000};
  const std::optional<CorrelationPoint> p =
      ReadBracketed(tsc, ops, CLOCK_REALTIME, 3);
  ASSERT_TRUE(p.has_value());
  // Undisturbed: 10 ns per read, the clock read mid-bracket.
  EXPECT_EQ(p->half_width_ticks, 25u);  // 20 ns at 2.5 GHz / 2
  EXPECT_EQ(w.TrueUtcAtTicks(p->tsc), static_cast<int64_t>(p->other));
  w.fail_reads = true;
  EXPECT_FALSE(ReadBracketed(tsc, ops, CLOCK_REALTIME, 3).has_value());
}

TEST(SystemTimeMapTest, InterpolatesBetweenAnchors) {
  SimWorld w;
  w.realtime_error_ns = 123'456;  // the mapping doesn't care
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  SystemTimeMap map(&tsc, &ops);
  EXPECT_FALSE(map.TicksAt(w.Realtime()).has_value());
  ASSERT_TRUE(map.Anchor());
  const int64_t event_realtime = w.Realtime() + 300'000'000;
  w.Advance(600'000'000);
  ASSERT_TRUE(map.Anchor());
  const std::optional<SystemTimeMap::Mapping> m = map.TicksAt(event_realtime);
  ASSERT_TRUE(m.has_value());
  EXPECT_LE(std::llabs(w.TrueUtcAtTicks(m->ticks) -
                       (event_realtime - w.realtime_error_ns)),
            2);
  // Half a bracket (10 ns) + 10 ppm of the 300 ms to the nearer anchor.
  EXPECT_NEAR(m->uncertainty_ns, 10 + 3'000, 2);
}

TEST(SystemTimeMapTest, SlewedClockStaysWithinTheBound) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  SystemTimeMap map(&tsc, &ops);
  ASSERT_TRUE(map.Anchor());
  // CLOCK_REALTIME slews: +8 ppm for the first 100 ms, then back to 0.
  w.Advance(100'000'000);
  w.realtime_error_ns += 800;
  const int64_t event_realtime = w.Realtime();
  const int64_t event_true = w.true_utc_ns;
  w.Advance(100'000'000);
  ASSERT_TRUE(map.Anchor());
  const std::optional<SystemTimeMap::Mapping> m = map.TicksAt(event_realtime);
  ASSERT_TRUE(m.has_value());
  const double err =
      std::fabs(static_cast<double>(w.TrueUtcAtTicks(m->ticks) - event_true));
  EXPECT_GT(err, 100);  // the slew did bias the interpolation...
  EXPECT_LE(err, static_cast<double>(m->uncertainty_ns));  // ...within bound
}

TEST(SystemTimeMapTest, ExtrapolatesWithAGrowingBound) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  SystemTimeMap map(&tsc, &ops);
  ASSERT_TRUE(map.Anchor());
  const int64_t later = w.Realtime() + 1'000'000'000;
  const std::optional<SystemTimeMap::Mapping> m = map.TicksAt(later);
  ASSERT_TRUE(m.has_value());
  EXPECT_LE(std::llabs(w.TrueUtcAtTicks(m->ticks) - later), 2);
  EXPECT_NEAR(m->uncertainty_ns, 10 + 500'000, 2);  // 500 ppm of 1 s
  const std::optional<SystemTimeMap::Mapping> before =
      map.TicksAt(later - 2'000'000'000);
  ASSERT_TRUE(before.has_value());
  EXPECT_NEAR(before->uncertainty_ns, 10 + 500'000, 2);
}

TEST(SystemTimeMapTest, StepOfTheSystemClockDropsOldAnchors) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  SystemTimeMap map(&tsc, &ops);
  ASSERT_TRUE(map.Anchor());
  w.Advance(100'000'000);
  ASSERT_TRUE(map.Anchor());
  EXPECT_EQ(map.anchor_count(), 2u);
  w.realtime_error_ns -= 2'000'000'000;  // stepped back 2 s
  w.Advance(100'000'000);
  ASSERT_TRUE(map.Anchor());
  EXPECT_EQ(map.steps_detected(), 1u);
  EXPECT_EQ(map.anchor_count(), 1u);
  w.realtime_error_ns += 50'000'000;  // stepped forward 50 ms
  w.Advance(100'000'000);
  ASSERT_TRUE(map.Anchor());
  EXPECT_EQ(map.steps_detected(), 2u);
  // Mapping uses the new timeline.
  const std::optional<SystemTimeMap::Mapping> m = map.TicksAt(w.Realtime());
  ASSERT_TRUE(m.has_value());
  EXPECT_LE(std::llabs(w.TrueUtcAtTicks(m->ticks) - w.true_utc_ns), 100);
}

TEST(SystemTimeMapTest, RealClocksMapConsistently) {
  // The real kernel clock against a fake TSC is meaningless; use the real
  // CLOCK_MONOTONIC_RAW through a raw clock that reads it too.
  class MonoRawClock final : public RawClock {
   public:
    uint64_t NowTicks() override {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
      return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
    double NominalHz() const override { return 1e9; }
  } raw;
  SystemTimeMapOptions o;
  o.clock = CLOCK_MONOTONIC;
  SystemTimeMap map(&raw, &RealSystemClockOps(), o);
  ASSERT_TRUE(map.Anchor());
  int64_t mono = 0;
  const int64_t raw_before = static_cast<int64_t>(raw.NowTicks());
  ASSERT_TRUE(RealSystemClockOps().ReadNs(CLOCK_MONOTONIC, &mono));
  const int64_t raw_after = static_cast<int64_t>(raw.NowTicks());
  ASSERT_TRUE(map.Anchor());
  const std::optional<SystemTimeMap::Mapping> m = map.TicksAt(mono);
  ASSERT_TRUE(m.has_value());
  // `mono` maps between the raw reads that bracket it (a preemption between
  // them widens the bracket, it cannot fail the test), give or take the
  // mapping's uncertainty and the 100 us that MONOTONIC and MONOTONIC_RAW
  // can drift apart by NTP frequency correction.
  const int64_t slack = 100'000 + m->uncertainty_ns;
  EXPECT_GE(static_cast<int64_t>(m->ticks), raw_before - slack);
  EXPECT_LE(static_cast<int64_t>(m->ticks), raw_after + slack);
}

}  // namespace
}  // namespace system_time_test
}  // namespace zg::servo
