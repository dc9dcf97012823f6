// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/clock_quality.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace zg::servo {
namespace clock_quality_test {
namespace {

using core::SyncState;

uint8_t Class(SyncState s, ClassProfile p, FrequencyCategory cat,
              bool alt_b = false, bool traceable = true) {
  ClassPolicy policy;
  policy.profile = p;
  policy.degradation_alternative_b = alt_b;
  return ClockClassFor(s, traceable, cat, policy);
}

TEST(ClockQualityTest, Ieee1588DefaultClasses) {
  const auto p = ClassProfile::kIeee1588;
  const auto c = FrequencyCategory::kCategory2;
  EXPECT_EQ(Class(SyncState::kLocked, p, c), 6);
  EXPECT_EQ(Class(SyncState::kHoldoverInSpec, p, c), 7);
  EXPECT_EQ(Class(SyncState::kHoldoverOutOfSpec, p, c), 52);
  EXPECT_EQ(Class(SyncState::kHoldoverOutOfSpec, p, c, /*alt_b=*/true), 187);
  EXPECT_EQ(Class(SyncState::kFreerun, p, c), 248);
  EXPECT_EQ(Class(SyncState::kLocking, p, c), 248);
}

TEST(ClockQualityTest, G8275Classes) {
  const auto gm = ClassProfile::kG8275Gm;
  EXPECT_EQ(Class(SyncState::kLocked, gm, FrequencyCategory::kCategory1), 6);
  EXPECT_EQ(
      Class(SyncState::kHoldoverInSpec, gm, FrequencyCategory::kCategory1), 7);
  EXPECT_EQ(
      Class(SyncState::kHoldoverOutOfSpec, gm, FrequencyCategory::kCategory1),
      140);
  EXPECT_EQ(
      Class(SyncState::kHoldoverOutOfSpec, gm, FrequencyCategory::kCategory2),
      150);
  EXPECT_EQ(
      Class(SyncState::kHoldoverOutOfSpec, gm, FrequencyCategory::kCategory3),
      160);
  EXPECT_EQ(Class(SyncState::kFreerun, gm, FrequencyCategory::kCategory1), 248);
  const auto bc = ClassProfile::kG8275Bc;
  EXPECT_EQ(Class(SyncState::kLocked, bc, FrequencyCategory::kCategory3), 6);
  EXPECT_EQ(
      Class(SyncState::kHoldoverInSpec, bc, FrequencyCategory::kCategory3),
      135);
  EXPECT_EQ(
      Class(SyncState::kHoldoverOutOfSpec, bc, FrequencyCategory::kCategory3),
      165);
  EXPECT_EQ(Class(SyncState::kFreerun, bc, FrequencyCategory::kCategory3), 248);
}

TEST(ClockQualityTest, UntraceableSourceIsAlwaysDefaultClass) {
  for (SyncState s : {SyncState::kLocked, SyncState::kHoldoverInSpec,
                      SyncState::kHoldoverOutOfSpec}) {
    EXPECT_EQ(Class(s, ClassProfile::kG8275Gm, FrequencyCategory::kCategory1,
                    false, /*traceable=*/false),
              248);
  }
}

TEST(ClockQualityTest, AccuracyTableEdges) {
  EXPECT_EQ(ClockAccuracyForBound(0), 0x17);
  EXPECT_EQ(ClockAccuracyForBound(1), 0x1D);  // 1 ns
  EXPECT_EQ(ClockAccuracyForBound(2), 0x1E);  // 2.5 ns
  EXPECT_EQ(ClockAccuracyForBound(25), 0x20);
  EXPECT_EQ(ClockAccuracyForBound(26), 0x21);  // 100 ns
  EXPECT_EQ(ClockAccuracyForBound(100), 0x21);
  EXPECT_EQ(ClockAccuracyForBound(101), 0x22);
  EXPECT_EQ(ClockAccuracyForBound(1'000), 0x23);
  EXPECT_EQ(ClockAccuracyForBound(25'000), 0x26);
  EXPECT_EQ(ClockAccuracyForBound(1'000'000), 0x29);
  EXPECT_EQ(ClockAccuracyForBound(1'000'000'000), 0x2F);
  EXPECT_EQ(ClockAccuracyForBound(10'000'000'000), 0x30);
  EXPECT_EQ(ClockAccuracyForBound(10'000'000'001), 0x31);
  EXPECT_EQ(ClockAccuracyForBound(-1), kClockAccuracyUnknown);
}

TEST(ClockQualityTest, TimeVarianceOfWhiteNoiseIsItsVariance) {
  // Alternating +-s: second differences are +-4s, TVAR = 16 s^2 / 6.
  std::vector<double> x;
  for (int i = 0; i < 100; ++i) x.push_back(i % 2 ? 10 : -10);
  EXPECT_NEAR(TimeVarianceNs2(x), 1600.0 / 6, 1e-9);
  // A frequency offset (linear phase) has no TVAR at tau0.
  std::vector<double> ramp;
  for (int i = 0; i < 100; ++i) ramp.push_back(3.0 * i);
  EXPECT_NEAR(TimeVarianceNs2(ramp), 0, 1e-9);
  EXPECT_EQ(TimeVarianceNs2({}), 0);
}

TEST(ClockQualityTest, OffsetScaledLogVarianceEncoding) {
  EXPECT_EQ(OffsetScaledLogVariance(std::ldexp(1.0, -50)), 0x8000 - 50 * 256);
  EXPECT_EQ(OffsetScaledLogVariance(1.0), 0x8000);
  // G.8275.1's locked T-GM value 0x4E5D is a PTP deviation of ~34 ns.
  EXPECT_EQ(OffsetScaledLogVariance(std::pow(33.8e-9, 2)), 0x4E5D);
  EXPECT_EQ(OffsetScaledLogVariance(0), kVarianceUnknown);
  EXPECT_EQ(OffsetScaledLogVariance(NAN), kVarianceUnknown);
  EXPECT_EQ(OffsetScaledLogVariance(1e300), 0xFFFE);
  EXPECT_EQ(OffsetScaledLogVariance(1e-300), 0);
}

TEST(ClockQualityTest, NtpStratum) {
  EXPECT_EQ(NtpStratumFor(SyncState::kLocked, 0), 1);
  EXPECT_EQ(NtpStratumFor(SyncState::kHoldoverInSpec, 2), 3);
  EXPECT_EQ(NtpStratumFor(SyncState::kLocking, 0), 1);
  EXPECT_EQ(NtpStratumFor(SyncState::kLocked, 15), 15);
  EXPECT_EQ(NtpStratumFor(SyncState::kHoldoverOutOfSpec, 0), 16);
  EXPECT_EQ(NtpStratumFor(SyncState::kFreerun, 0), 16);
}

}  // namespace
}  // namespace clock_quality_test
}  // namespace zg::servo
