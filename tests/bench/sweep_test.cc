// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"

namespace zg::bench {
namespace sweep_test {
namespace {

// A synthetic rig: a generator that can offer at most `generator_pps`, a
// server that answers at most `capacity_pps` (the excess is lost), plus a
// background loss ratio and optional noise on the generator's rate.
struct SyntheticRig {
  double generator_pps = 10e6;
  double capacity_pps = 3e6;
  double background_loss = 0;
  double trial_s = 1;
  double rate_noise = 0;  // relative, uniform +-
  std::mt19937_64 rng{1};
  int trials = 0;

  TrialResult operator()(double offered) {
    ++trials;
    double achieved =
        offered == 0 ? generator_pps : std::min(offered, generator_pps);
    if (rate_noise > 0) {
      std::uniform_real_distribution<double> u(-rate_noise, rate_noise);
      achieved *= 1 + u(rng);
    }
    const uint64_t sent = static_cast<uint64_t>(achieved * trial_s);
    const double served =
        std::min(static_cast<double>(sent), capacity_pps * trial_s);
    const uint64_t answered =
        static_cast<uint64_t>(std::floor(served * (1 - background_loss)));
    return {offered, achieved, sent, answered};
  }
};

SweepResult Search(SyntheticRig& rig, SweepConfig config = {}) {
  EXPECT_TRUE(ValidateSweepConfig(config).ok());
  return FindNoDropRate(config, [&](double pps) { return rig(pps); });
}

TEST(SweepTest, FindsTheServerCapacity) {
  for (double capacity : {5e3, 123'456.0, 1e6, 2.9e6, 7.77e6}) {
    SyntheticRig rig;
    rig.capacity_pps = capacity;
    const SweepResult r = Search(rig);
    ASSERT_TRUE(r.found) << capacity;
    EXPECT_FALSE(r.generator_limited);
    EXPECT_LE(r.no_drop_pps(), capacity) << capacity;
    EXPECT_GE(r.no_drop_pps(), capacity * (1 - 0.01 - 1e-9)) << capacity;
    // Binary search: about log2(generator / capacity) + log2(1 / resolution)
    // trials, never the cap.
    EXPECT_LE(r.trials.size(), 20u);
    EXPECT_EQ(static_cast<int>(r.trials.size()), rig.trials);
    EXPECT_EQ(r.trials.front().offered_pps, 0);  // first trial at max
  }
}

TEST(SweepTest, GeneratorLimitedWhenTheServerKeepsUp) {
  SyntheticRig rig;
  rig.capacity_pps = 50e6;
  const SweepResult r = Search(rig);
  ASSERT_TRUE(r.found);
  EXPECT_TRUE(r.generator_limited);
  EXPECT_EQ(r.trials.size(), 1u);
  EXPECT_DOUBLE_EQ(r.no_drop_pps(), rig.generator_pps);
}

TEST(SweepTest, LossThresholdIsRespected) {
  // Background loss below the threshold still passes; above it, nothing.
  SyntheticRig ok_rig;
  ok_rig.background_loss = 0.5e-4;
  EXPECT_TRUE(Search(ok_rig).found);
  SyntheticRig bad_rig;
  bad_rig.background_loss = 2e-4;
  const SweepResult r = Search(bad_rig);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.no_drop_pps(), 0);
  // It stopped when the rate fell below min_rate_pps, not after 20 trials
  // of nonsense: 10 Mpps halved down to 1 kpps is 14 trials.
  EXPECT_LE(r.trials.size(), 15u);
  for (const TrialResult& t : r.trials) {
    EXPECT_TRUE(t.offered_pps == 0 || t.offered_pps >= 1000);
  }
}

TEST(SweepTest, ExactThresholdPasses) {
  EXPECT_TRUE(TrialPasses({.sent = 10'000, .answered = 9'999}, 1e-4));
  EXPECT_FALSE(TrialPasses({.sent = 10'000, .answered = 9'998}, 1e-4));
  EXPECT_FALSE(TrialPasses({.sent = 0, .answered = 0}, 1e-4));
  EXPECT_TRUE(TrialPasses({.sent = 5, .answered = 5}, 0));
}

TEST(SweepTest, CeilingFromConfig) {
  // With a max rate below the generator's, the first trial runs there.
  SyntheticRig rig;
  rig.capacity_pps = 1e6;
  SweepConfig c;
  c.max_rate_pps = 4e6;
  const SweepResult r = Search(rig, c);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.trials.front().offered_pps, 4e6);
  for (const TrialResult& t : r.trials) EXPECT_LE(t.offered_pps, 4e6);
  EXPECT_GE(r.no_drop_pps(), 0.99e6);
}

TEST(SweepTest, ReportsAchievedNotOfferedRate) {
  // A generator that delivers 5 % less than asked: the result is what it
  // delivered, so it cannot exceed the server's real capacity.
  SyntheticRig rig;
  rig.capacity_pps = 2e6;
  SweepResult r = FindNoDropRate({}, [&](double pps) {
    TrialResult t = rig(pps);
    t.achieved_pps *= 0.95;
    t.sent = static_cast<uint64_t>(t.sent * 0.95);
    t.answered = std::min<uint64_t>(
        t.sent, static_cast<uint64_t>(std::min(t.achieved_pps, 2e6)));
    return t;
  });
  ASSERT_TRUE(r.found);
  EXPECT_LE(r.no_drop_pps(), 2e6);
  EXPECT_LT(r.best.achieved_pps, r.best.offered_pps);
}

TEST(SweepTest, NoisyGeneratorStillConverges) {
  SyntheticRig rig;
  rig.capacity_pps = 1.5e6;
  rig.rate_noise = 0.003;
  const SweepResult r = Search(rig);
  ASSERT_TRUE(r.found);
  EXPECT_LE(r.no_drop_pps(), 1.5e6);
  EXPECT_GE(r.no_drop_pps(), 1.5e6 * 0.98);
}

TEST(SweepTest, MaxTrialsBoundsTheSearch) {
  SyntheticRig rig;
  SweepConfig c;
  c.max_trials = 3;
  c.resolution = 1e-6;
  const SweepResult r = Search(rig, c);
  EXPECT_EQ(r.trials.size(), 3u);
  EXPECT_EQ(rig.trials, 3);
}

TEST(SweepTest, ValidateConfig) {
  EXPECT_TRUE(ValidateSweepConfig({}).ok());
  EXPECT_FALSE(ValidateSweepConfig({.max_rate_pps = -1}).ok());
  EXPECT_FALSE(ValidateSweepConfig({.min_rate_pps = 0}).ok());
  EXPECT_FALSE(
      ValidateSweepConfig({.max_rate_pps = 100, .min_rate_pps = 100}).ok());
  EXPECT_FALSE(ValidateSweepConfig({.loss_threshold = 1}).ok());
  EXPECT_FALSE(ValidateSweepConfig({.resolution = 0}).ok());
  EXPECT_FALSE(ValidateSweepConfig({.max_trials = 0}).ok());
}

}  // namespace
}  // namespace sweep_test
}  // namespace zg::bench
