// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/frequency_estimator.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/servo/test_noise.h"

namespace zg::servo {
namespace frequency_estimator_test {
namespace {

const core::TaiNs kT0{1'700'000'037'000'000'000};
constexpr double kNominal = 1.0 / 3.0;  // 3 GHz

// Raw ticks at true second t for a clock `ppb` fast (frequency may change).
struct Clock {
  uint64_t raw = 777'000'000'000ULL;
  double t = 0;
  void Advance(double dt, double ppb) {
    raw += static_cast<uint64_t>(std::llround(3e9 * dt * (1 + ppb * 1e-9)));
    t += dt;
  }
  core::TaiNs Tai(double noise_ns = 0) const {
    return kT0 + static_cast<int64_t>(std::llround(t * 1e9 + noise_ns));
  }
};

// Model rate relative to nominal for a clock y ppb fast.
double WantPpb(double y) { return (1 / (1 + y * 1e-9) - 1) * 1e9; }

TEST(FrequencyEstimatorTest, MeasuresFrequencyOfANoiselessClock) {
  FrequencyEstimator est(kNominal, {});
  Clock c;
  for (int i = 0; i < 5; ++i) {
    est.Add(c.raw, c.Tai(), 10);
    c.Advance(1, 2'000);
  }
  EXPECT_FALSE(est.estimate().valid);  // min_points = 6
  est.Add(c.raw, c.Tai(), 10);
  ASSERT_TRUE(est.estimate().valid);
  EXPECT_NEAR(est.estimate().ppb, WantPpb(2'000), 0.5);  // 1 ns rounding / 5 s
  EXPECT_NEAR(est.estimate().span_s, 5, 1e-4);  // x measured in raw ticks
  EXPECT_NEAR(est.RateNsPerTick(), kNominal * (1 + WantPpb(2'000) * 1e-9),
              1e-9);
}

TEST(FrequencyEstimatorTest, MergesPairsButKeepsTheSpan) {
  FrequencyEstimatorConfig cfg;
  cfg.max_points = 16;
  FrequencyEstimator est(kNominal, cfg);
  Clock c;
  TestNoise noise(3);
  for (int i = 0; i < 200; ++i) {
    est.Add(c.raw, c.Tai(10 * noise.Next()), 30);
    c.Advance(1, -300);
  }
  EXPECT_GT(est.merges(), 0u);
  EXPECT_LE(est.estimate().points, 16);
  EXPECT_GT(est.estimate().span_s, 150);
  EXPECT_NEAR(est.estimate().ppb, WantPpb(-300), 0.05);
  EXPECT_GT(est.estimate().stderr_ppb, 0);
  EXPECT_LT(est.estimate().stderr_ppb, 0.05);
}

TEST(FrequencyEstimatorTest, DropsPointsOlderThanMaxSpan) {
  FrequencyEstimatorConfig cfg;
  cfg.max_span_s = 30;
  FrequencyEstimator est(kNominal, cfg);
  Clock c;
  for (int i = 0; i < 100; ++i) {
    est.Add(c.raw, c.Tai(), 10);
    c.Advance(1, 0);
  }
  EXPECT_LE(est.estimate().span_s, 30.0 + 1e-6);
}

TEST(FrequencyEstimatorTest, RunsTestFollowsAFrequencyStep) {
  FrequencyEstimator est(kNominal, {});
  Clock c;
  TestNoise noise(4);
  for (int i = 0; i < 600; ++i) {
    est.Add(c.raw, c.Tai(5 * noise.Next()), 20);
    c.Advance(1, i < 300 ? 0 : 50);  // +50 ppb from t = 300 s
  }
  EXPECT_GT(est.trims(), 0u);
  // Without trimming, the fit over 600 s would sit half-way (~-25 ppb).
  EXPECT_NEAR(est.estimate().ppb, WantPpb(50), 5);
}

TEST(FrequencyEstimatorTest, IgnoresOutOfOrderSamplesAndResets) {
  FrequencyEstimator est(kNominal, {});
  Clock c;
  for (int i = 0; i < 10; ++i) {
    est.Add(c.raw, c.Tai(), 10);
    c.Advance(1, 100);
  }
  const int points = est.estimate().points;
  est.Add(c.raw - 3'000'000'000ULL * 5, c.Tai(), 10);  // older: ignored
  EXPECT_EQ(est.estimate().points, points);
  est.Reset();
  EXPECT_FALSE(est.estimate().valid);
  EXPECT_EQ(est.estimate().points, 0);
}

TEST(FrequencyEstimatorTest, StaysPreciseAcrossRebases) {
  // Hours at 3 GHz exceed the rebase threshold several times.
  FrequencyEstimatorConfig cfg;
  cfg.max_span_s = 1e6;
  FrequencyEstimator est(kNominal, cfg);
  Clock c;
  for (int i = 0; i < 1'000; ++i) {
    est.Add(c.raw, c.Tai(), 10);
    c.Advance(20, 12.5);
  }
  EXPECT_NEAR(est.estimate().ppb, WantPpb(12.5), 1e-3);
}

TEST(FrequencyEstimatorTest, ValidatesConfig) {
  FrequencyEstimatorConfig cfg;
  EXPECT_TRUE(ValidateFrequencyEstimatorConfig(cfg).ok());
  cfg.max_points = 8;
  EXPECT_FALSE(ValidateFrequencyEstimatorConfig(cfg).ok());
  cfg = {};
  cfg.min_points = 3;
  EXPECT_FALSE(ValidateFrequencyEstimatorConfig(cfg).ok());
  cfg = {};
  cfg.max_span_s = 0;
  EXPECT_FALSE(ValidateFrequencyEstimatorConfig(cfg).ok());
}

}  // namespace
}  // namespace frequency_estimator_test
}  // namespace zg::servo
