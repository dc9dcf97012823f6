// SPDX-License-Identifier: Apache-2.0
// GeneratorClock against simulated kernel clocks (tests/servo/fake_clocks.h):
// the published model maps TSC stamps to CLOCK_REALTIME (+ TAI-UTC), learns
// the rate from the fit, and follows a step.
#include "bench/loadgen/generator_clock.h"

#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"
#include "tests/servo/fake_clocks.h"

namespace zg::bench {
namespace generator_clock_test {
namespace {

using servo::testing::FakeRawClock;
using servo::testing::FakeSystemClockOps;
using servo::testing::SimWorld;

// A TSC whose calibrated rate is off by `ppm` (as a 100 ms calibration
// against MONOTONIC_RAW may be, against a slewed CLOCK_REALTIME).
class MiscalibratedTsc final : public servo::RawClock {
 public:
  MiscalibratedTsc(SimWorld* w, double ppm) : tsc_(w), ppm_(ppm) {}
  uint64_t NowTicks() override { return tsc_.NowTicks(); }
  double NominalHz() const override {
    return tsc_.NominalHz() * (1 + ppm_ * 1e-6);
  }

 private:
  FakeRawClock tsc_;
  double ppm_;
};

// |model(tsc now) - (CLOCK_REALTIME now + TAI-UTC)| in ns.
int64_t ModelError(const GeneratorClock& c, const SimWorld& w) {
  const int64_t want =
      w.Realtime() + int64_t{c.tai_minus_utc_s()} * core::kNanosPerSecond;
  return std::llabs(c.model().RawToTai(w.Tsc()).value - want);
}

TEST(GeneratorClockTest, MapsTheTscToRealtimePlusTaiOffset) {
  SimWorld w;
  w.realtime_error_ns = 12'345;  // the kernel's clock is what we follow
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  auto c = GeneratorClock::Create(&tsc, &ops, {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->tai_minus_utc_s(), 37);
  EXPECT_TRUE((*c)->tai_from_kernel());
  EXPECT_LE(ModelError(**c, w), 20);
  EXPECT_LE((*c)->anchor_half_width_ns(), 20);
  // Published for the lanes.
  core::ClockModel read;
  ASSERT_TRUE((*c)->published().TryRead(&read));
  EXPECT_EQ(read.raw_anchor, (*c)->model().raw_anchor);
  EXPECT_EQ(read.TaiToUtc(read.RawToTai(w.Tsc())).value,
            (*c)->model().TaiToUtc((*c)->model().RawToTai(w.Tsc())).value);
}

TEST(GeneratorClockTest, KernelWithoutTaiOffsetUsesTheFallback) {
  SimWorld w;
  w.tai_offset_s = 0;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  auto c = GeneratorClock::Create(&tsc, &ops, {.fallback_tai_minus_utc_s = 36});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->tai_minus_utc_s(), 36);
  EXPECT_FALSE((*c)->tai_from_kernel());
}

TEST(GeneratorClockTest, LearnsTheRateFromTheFit) {
  SimWorld w;
  MiscalibratedTsc tsc(&w, 20);  // 20 ppm off
  FakeSystemClockOps ops(&w);
  auto c = GeneratorClock::Create(&tsc, &ops, {});
  ASSERT_TRUE(c.ok()) << c.status();
  // Before the fit spans 0.5 s the calibrated rate stands in: 100 ms later
  // the model is off by about 20 ppm * 100 ms = 2 us.
  w.Advance(100'000'000);
  EXPECT_NEAR(static_cast<double>(ModelError(**c, w)), 2000, 100);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE((*c)->Update().ok());
    w.Advance(100'000'000);
  }
  EXPECT_NEAR((*c)->hz() / w.tsc_hz - 1, 0, 1e-9);
  // 100 ms past the last anchor, the model is still within a few ns.
  EXPECT_LE(ModelError(**c, w), 10);
}

TEST(GeneratorClockTest, FollowsAStepOfRealtime) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  auto c = GeneratorClock::Create(&tsc, &ops, {});
  ASSERT_TRUE(c.ok()) << c.status();
  for (int i = 0; i < 10; ++i) {
    w.Advance(100'000'000);
    ASSERT_TRUE((*c)->Update().ok());
  }
  w.realtime_error_ns += 5'000'000;  // stepped 5 ms
  w.Advance(100'000'000);
  ASSERT_TRUE((*c)->Update().ok());
  EXPECT_EQ((*c)->steps(), 1u);
  EXPECT_LE(ModelError(**c, w), 20);
}

TEST(GeneratorClockTest, UnreadableRealtimeIsAnError) {
  SimWorld w;
  FakeRawClock tsc(&w);
  FakeSystemClockOps ops(&w);
  w.fail_reads = true;
  EXPECT_EQ(GeneratorClock::Create(&tsc, &ops, {}).status().code(),
            absl::StatusCode::kUnavailable);
  w.fail_reads = false;
  auto c = GeneratorClock::Create(&tsc, &ops, {});
  ASSERT_TRUE(c.ok());
  w.fail_reads = true;
  EXPECT_FALSE((*c)->Update().ok());
  EXPECT_FALSE(GeneratorClock::Create(&tsc, &ops, {.window_points = 1}).ok());
}

}  // namespace
}  // namespace generator_clock_test
}  // namespace zg::bench
