// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/clock_correlator.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace zg::servo {
namespace clock_correlator_test {
namespace {

constexpr double kTscHz = 3e9;

// A second clock at `other_hz` (e.g. a NIC clock in ns, 1e9) read between
// two TSC reads; `delay_before` and `delay_after` are the TSC ticks from the
// first TSC read to the other clock's read and from there to the second.
struct Pair {
  double other_per_tick;
  uint64_t other_at_zero;
  BracketedRead Read(uint64_t tsc, uint64_t delay_before,
                     uint64_t delay_after) const {
    const uint64_t at = tsc + delay_before;
    return {tsc,
            other_at_zero + static_cast<uint64_t>(std::llround(
                                static_cast<double>(at) * other_per_tick)),
            at + delay_after};
  }
};

TEST(TightestBracketTest, PicksTheNarrowestWellFormedRead) {
  const std::vector<BracketedRead> reads = {
      {1000, 5, 1300}, {2000, 6, 2040}, {3000, 7, 2990}, {4000, 8, 4100}};
  const std::optional<CorrelationPoint> p = TightestBracket(reads);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->tsc, 2020u);
  EXPECT_EQ(p->other, 6u);
  EXPECT_EQ(p->half_width_ticks, 20u);
  const std::vector<BracketedRead> broken = {{10, 1, 5}};
  EXPECT_FALSE(TightestBracket(broken).has_value());
  EXPECT_FALSE(TightestBracket({}).has_value());
}

TEST(ClockCorrelatorTest, RecoversRateAndOffsetFromJitteryBrackets) {
  // A NIC clock counting ns at +37 ppm against a 3 GHz TSC.
  const Pair pair{(1.0 + 37e-6) / 3.0, 1'700'000'000'000'000'000ull};
  ClockCorrelator c(kTscHz, {.window_points = 32});
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> jitter(30, 3000);
  uint64_t tsc = 10'000'000;
  for (int i = 0; i < 32; ++i, tsc += 30'000'000) {  // every 10 ms
    std::vector<BracketedRead> burst;
    for (int k = 0; k < 8; ++k) {
      // Asymmetric disturbances; the tightest read is kept.
      burst.push_back(pair.Read(tsc + k * 10'000, jitter(rng), jitter(rng)));
    }
    EXPECT_EQ(c.AddBurst(burst), ClockCorrelator::AddResult::kAdded);
  }
  ASSERT_TRUE(c.fit().has_value());
  const CorrelatorFit& f = *c.fit();
  const double rel_error =
      std::fabs(f.other_per_tick - pair.other_per_tick) / pair.other_per_tick;
  EXPECT_LT(rel_error, f.RelativeRateUncertainty());
  EXPECT_LT(f.RelativeRateUncertainty(), 1e-6);
  EXPECT_GT(f.RelativeRateUncertainty(), 0);
  EXPECT_EQ(f.points, 32u);
  // Mapping both ways agrees with the true pair to within the brackets.
  const uint64_t probe = tsc - 45'000'000;
  const int64_t err =
      static_cast<int64_t>(f.OtherAt(probe) - pair.Read(probe, 0, 0).other);
  EXPECT_LE(std::llabs(err), 1000);  // ns, the widest half-bracket
  EXPECT_LE(std::llabs(static_cast<int64_t>(f.TscAt(f.OtherAt(probe)) - probe)),
            2);
}

TEST(ClockCorrelatorTest, WindowSlidesAndRejectsBadPoints) {
  const Pair pair{1.0 / 3.0, 0};
  ClockCorrelator c(kTscHz, {.window_points = 4, .max_half_width_ticks = 100});
  for (int i = 0; i < 10; ++i) {
    c.AddBurst(std::vector<BracketedRead>{pair.Read(1000 + i * 1000, 20, 20)});
  }
  EXPECT_EQ(c.window_size(), 4u);
  EXPECT_EQ(c.fit()->points, 4u);
  EXPECT_EQ(c.fit()->tsc_base, 7020u);
  EXPECT_EQ(c.AddBurst(std::vector<BracketedRead>{pair.Read(20000, 500, 500)}),
            ClockCorrelator::AddResult::kRejectedWide);
  EXPECT_EQ(c.Add({500, 1, 1}), ClockCorrelator::AddResult::kRejectedBackwards);
  EXPECT_EQ(c.stats().rejected_wide, 1u);
  EXPECT_EQ(c.stats().rejected_backwards, 1u);
  EXPECT_EQ(c.stats().points_added, 10u);
}

TEST(ClockCorrelatorTest, StepInTheOtherClockRestartsTheWindow) {
  Pair pair{1.0 / 3.0, 1'000'000'000};
  ClockCorrelator c(kTscHz,
                    {.window_points = 16, .step_threshold_other = 10'000});
  uint64_t tsc = 3'000'000;
  for (int i = 0; i < 10; ++i, tsc += 3'000'000) {
    ASSERT_EQ(c.AddBurst(std::vector<BracketedRead>{pair.Read(tsc, 30, 30)}),
              ClockCorrelator::AddResult::kAdded);
  }
  pair.other_at_zero += 50'000;  // phc2sys stepped the NIC clock by 50 us
  EXPECT_EQ(c.AddBurst(std::vector<BracketedRead>{pair.Read(tsc, 30, 30)}),
            ClockCorrelator::AddResult::kStep);
  EXPECT_EQ(c.stats().steps, 1u);
  EXPECT_EQ(c.window_size(), 1u);
  EXPECT_FALSE(c.fit().has_value());
  tsc += 3'000'000;
  c.AddBurst(std::vector<BracketedRead>{pair.Read(tsc, 30, 30)});
  ASSERT_TRUE(c.fit().has_value());
  EXPECT_NEAR(static_cast<double>(c.fit()->OtherAt(tsc)),
              static_cast<double>(pair.Read(tsc, 30, 0).other), 20);
  // A 5 us wobble is under the threshold: no step.
  pair.other_at_zero += 5'000;
  tsc += 3'000'000;
  EXPECT_EQ(c.AddBurst(std::vector<BracketedRead>{pair.Read(tsc, 30, 30)}),
            ClockCorrelator::AddResult::kAdded);
}

TEST(ClockCorrelatorTest, TracksDriftOfTheRate) {
  // The other clock's rate ramps by +2 ppb per second of TSC time.
  ClockCorrelator c(kTscHz, {.window_points = 20, .segment_points = 20});
  const double drift_per_s = 2e-9;
  double other = 0;
  uint64_t tsc = 0;
  const uint64_t dt = 3'000'000'000;  // 1 s
  for (int i = 0; i < 100; ++i) {
    const double t_s = static_cast<double>(tsc) / kTscHz;
    const double rate = (1.0 + drift_per_s * t_s) / 3.0;  // ns per tick
    c.Add({tsc, static_cast<uint64_t>(std::llround(other)), 10});
    other += rate * static_cast<double>(dt);
    tsc += dt;
  }
  ASSERT_TRUE(c.stats().drift_ppb_per_s.has_value());
  EXPECT_EQ(c.stats().segments, 5u);
  EXPECT_NEAR(*c.stats().drift_ppb_per_s, 2.0, 0.2);
  EXPECT_GE(c.stats().max_abs_drift_ppb_per_s, 1.8);
}

TEST(ClockCorrelatorTest, ConstantRateShowsNoDrift) {
  ClockCorrelator c(kTscHz, {.window_points = 10});
  for (uint64_t i = 0; i < 50; ++i) {
    c.Add({i * 3'000'000'000, i * 1'000'000'123, 5});
  }
  ASSERT_TRUE(c.stats().drift_ppb_per_s.has_value());
  EXPECT_NEAR(*c.stats().drift_ppb_per_s, 0.0, 1e-3);
}

}  // namespace
}  // namespace clock_correlator_test
}  // namespace zg::servo
