// SPDX-License-Identifier: Apache-2.0
#include "servo/holdover/oscillator.h"

#include <cmath>

#include "gtest/gtest.h"

namespace zg::servo {
namespace oscillator_test {
namespace {

constexpr double kDay = 86400;

// The design brief's 24 h holdover anchors, for a frequency learned down to
// the profile's floor, 1 K of temperature excursion, 3 sigma.
TEST(OscillatorTest, DayLongHoldoverMatchesTheBriefsAnchors) {
  const HoldoverEnvironment env;
  const double tcxo = HoldoverBoundNs(TcxoProfile(), env, 0, 0, kDay);
  const double ocxo = HoldoverBoundNs(OcxoProfile(), env, 0, 0, kDay);
  const double rb = HoldoverBoundNs(RubidiumProfile(), env, 0, 0, kDay);
  EXPECT_GT(tcxo, 400e3);  // TCXO ~450 us
  EXPECT_LT(tcxo, 500e3);
  EXPECT_GT(ocxo, 10e3);  // OCXO 10-25 us
  EXPECT_LT(ocxo, 25e3);
  EXPECT_GT(rb, 0.5e3);  // rubidium ~1 us
  EXPECT_LT(rb, 1.5e3);
}

TEST(OscillatorTest, TermsAddUp) {
  OscillatorProfile p;
  p.frequency_floor_ppb = 1;
  p.aging_ppb_per_day = 86400;  // 1 ppb/s
  p.temperature_ppb_per_k = 2;
  p.random_walk_ppb2_per_s = 3;
  HoldoverEnvironment env;
  env.temperature_excursion_k = 0.5;
  env.sigmas = 2;
  // aging 0.5*1*100 + rw 2*sqrt(3*1000/3) + temp 2*0.5*10
  EXPECT_NEAR(WanderNs(p, env, 10), 50 + 2 * std::sqrt(1000.0) + 10, 1e-9);
  EXPECT_NEAR(HoldoverBoundNs(p, env, 7, 5, 10), 7 + 50 + WanderNs(p, env, 10),
              1e-9);
  // The floor applies to a smaller learned uncertainty.
  EXPECT_NEAR(HoldoverBoundNs(p, env, 0, 0.1, 10), 10 + WanderNs(p, env, 10),
              1e-9);
  EXPECT_EQ(WanderNs(p, env, -5), 0);
}

TEST(OscillatorTest, BoundGrowsMonotonically) {
  for (const OscillatorProfile& p :
       {TcxoProfile(), OcxoProfile(), RubidiumProfile()}) {
    double last = -1;
    for (double t = 0; t < 2 * kDay; t += 97) {
      const double b = HoldoverBoundNs(p, {}, 10, 0.01, t);
      EXPECT_GE(b, last) << p.name << " at " << t;
      last = b;
    }
  }
}

TEST(OscillatorTest, LearnedUncertaintyHasFloorAndWidensForFewPoints) {
  const OscillatorProfile p = OcxoProfile();
  EXPECT_EQ(LearnedFrequencyUncertaintyPpb(p, {}, 0, 100, 0),
            p.frequency_floor_ppb);
  const double many = LearnedFrequencyUncertaintyPpb(p, {}, 0.1, 1000, 0);
  const double few = LearnedFrequencyUncertaintyPpb(p, {}, 0.1, 4, 0);
  EXPECT_NEAR(many, 0.3, 0.01);
  EXPECT_GT(few, 2 * many);
  // A long window adds the aging and random walk inside it.
  EXPECT_GT(LearnedFrequencyUncertaintyPpb(p, {}, 0.1, 1000, 3600), many);
}

TEST(OscillatorTest, ProfilesByNameAndValidation) {
  EXPECT_EQ(OscillatorProfileByName("ocxo")->kind, OscillatorKind::kOcxo);
  EXPECT_EQ(OscillatorProfileByName("rubidium")->category,
            FrequencyCategory::kCategory1);
  EXPECT_FALSE(OscillatorProfileByName("cesium").ok());
  OscillatorProfile p = TcxoProfile();
  EXPECT_TRUE(ValidateOscillatorProfile(p).ok());
  p.aging_ppb_per_day = -1;
  EXPECT_FALSE(ValidateOscillatorProfile(p).ok());
  p = TcxoProfile();
  p.frequency_floor_ppb = 0;
  EXPECT_FALSE(ValidateOscillatorProfile(p).ok());
  p = TcxoProfile();
  p.random_walk_ppb2_per_s = NAN;
  EXPECT_FALSE(ValidateOscillatorProfile(p).ok());
}

}  // namespace
}  // namespace oscillator_test
}  // namespace zg::servo
