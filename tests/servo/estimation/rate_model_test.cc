// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/rate_model.h"

#include <cmath>

#include "gtest/gtest.h"

namespace zg::servo {
namespace rate_model_test {
namespace {

constexpr double kThreeGhz = 1.0 / 3.0;  // ns per tick
const core::TaiNs kT0{1'700'000'037'000'000'000};

TEST(RateModelTest, MapsRawTicksThroughAnchorAndRate) {
  const RateModel m(1'000, kT0, kThreeGhz);
  EXPECT_EQ(m.TaiAt(1'000), kT0);
  EXPECT_EQ(m.TaiAt(1'000 + 3'000'000'000ULL), kT0 + 1'000'000'000);
  EXPECT_EQ(m.TaiAt(1'000 - 3), kT0 - 1);  // before the anchor
}

TEST(RateModelTest, OffsetIsPositiveWhenModelIsAhead) {
  const RateModel m(0, kT0, 1.0);
  EXPECT_DOUBLE_EQ(m.OffsetNs(100, kT0 + 90), 10.0);
  EXPECT_DOUBLE_EQ(m.OffsetNs(100, kT0 + 110), -10.0);
}

TEST(RateModelTest, SetRateIsContinuousAtTheChange) {
  RateModel m(0, kT0, kThreeGhz);
  const uint64_t raw = 7'777'777'777;
  const double before = m.OffsetNs(raw, kT0);
  m.SetRate(raw, kThreeGhz * (1 + 1e-6));
  EXPECT_NEAR(m.OffsetNs(raw, kT0), before, 1e-6);
  // 3e9 ticks later the new rate shows: 1 s + 1 us.
  EXPECT_NEAR(m.OffsetNs(raw + 3'000'000'000ULL, kT0) - before, 1e9 + 1e3,
              1e-3);
  EXPECT_EQ(m.raw_anchor(), raw);
}

TEST(RateModelTest, StepShiftsTimeByDelta) {
  RateModel m(0, kT0, 1.0);
  m.Step(50, -20.5);
  EXPECT_NEAR(m.OffsetNs(50, kT0 + 50), -20.5, 1e-9);
  EXPECT_NEAR(m.OffsetNs(150, kT0 + 150), -20.5, 1e-9);
}

TEST(RateModelTest, KeepsSubNanosecondPhaseAcrossManyReanchors) {
  RateModel m(0, kT0, kThreeGhz);
  uint64_t raw = 0;
  for (int i = 0; i < 100'000; ++i) {  // ~28 h of 1 s re-anchors
    raw += 3'000'000'000ULL;
    m.Reanchor(raw);
  }
  EXPECT_NEAR(m.OffsetNs(raw, kT0 + 100'000 * int64_t{1'000'000'000}), 0.0,
              1e-3);
}

TEST(RateModelTest, FillClockModelMatchesTheModelWithinRounding) {
  RateModel m(5'000, kT0, kThreeGhz * (1 + 37e-9));
  core::ClockModel cm;
  const uint64_t raw = 9'000'000'000'000ULL;
  m.FillClockModel(raw, &cm);
  EXPECT_EQ(cm.raw_anchor, raw);
  EXPECT_EQ(cm.tai_anchor, m.TaiAt(raw));
  // One second of ticks later the fixed-point model is within the q32
  // rounding (0.35 ppb at 3 GHz) of the double one.
  const uint64_t later = raw + 3'000'000'000ULL;
  const double diff =
      static_cast<double>(cm.RawToTai(later).value - m.TaiAt(later).value);
  EXPECT_LE(std::fabs(diff), 1.0 + RateModel::Q32RoundingPpb(kThreeGhz));
  EXPECT_NEAR(RateModel::Q32RoundingPpb(kThreeGhz), 0.349, 0.001);
}

TEST(RateModelTest, SaturatesInsteadOfOverflowingOnAbsurdRawTicks) {
  RateModel m(0, kT0, 1e3);                            // 1 us per tick
  const core::TaiNs far = m.TaiAt(uint64_t{1} << 62);  // ~146 years of ns
  EXPECT_GT(far.value, kT0.value);
  m.Reanchor(uint64_t{1} << 62);
  m.Step(5, -1e300);
  EXPECT_LE(m.TaiAt(5).value, kT0.value);
  core::ClockModel cm;
  RateModel(0, kT0, 1e30).FillClockModel(0, &cm);
  EXPECT_EQ(cm.ns_per_tick_q32, 0u);  // unusable, not undefined
}

}  // namespace
}  // namespace rate_model_test
}  // namespace zg::servo
