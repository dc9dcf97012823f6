// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/sample_filter.h"

#include <limits>

#include "gtest/gtest.h"

namespace zg::servo {
namespace sample_filter_test {
namespace {

TEST(PickBestTest, KeepsTheLeastUncertainSample) {
  EXPECT_EQ(PickBest({}), nullptr);
  ReferenceSample s[3];
  s[0].uncertainty_ns = 50;
  s[1].uncertainty_ns = 20;
  s[2].uncertainty_ns = 20;
  EXPECT_EQ(PickBest(s), &s[1]);  // the earliest of equals
}

TEST(OutlierFilterTest, DropsASpikeOnceGated) {
  OutlierFilter f({});
  const double noise[] = {3, -5, 8, -2, 0, 6, -7, 4, -1};
  for (double n : noise)
    EXPECT_EQ(f.Check(n, 10, true), FilterVerdict::kAccept);
  // Sorted: -7 -5 -2 -1 [0] 3 4 6 8, so the median is 0; the deviations from
  // it, sorted: 0 1 2 3 [4] 5 6 7 8, so MAD = 4. Both are small integers,
  // exact in double, and GateNs() multiplies in the order written here, so
  // max(5 * 1.4826 * 4, 20) ~ 29.652 is the very same double: no tolerance
  // is needed (DOUBLE_EQ allows 4 ulps). The 20 ns floor, or a MAD off by
  // one (22.239 or 37.065 ns), fails it.
  EXPECT_DOUBLE_EQ(f.GateNs(), 5.0 * 1.4826 * 4.0);
  EXPECT_EQ(f.Check(500, 10, true), FilterVerdict::kOutlier);
  EXPECT_EQ(f.Check(30, 10, true), FilterVerdict::kAccept);
  EXPECT_EQ(f.outliers(), 1u);
}

TEST(OutlierFilterTest, UngatedSamplesAlwaysPass) {
  OutlierFilter f({});
  for (int i = 0; i < 9; ++i) f.Check(0, 10, true);
  EXPECT_EQ(f.Check(1e6, 10, /*gate=*/false), FilterVerdict::kAccept);
}

TEST(OutlierFilterTest, ALevelShiftRestartsTheWindow) {
  OutlierFilterConfig cfg;
  cfg.max_consecutive = 3;
  OutlierFilter f(cfg);
  for (int i = 0; i < 9; ++i) f.Check(i % 2, 5, true);
  EXPECT_EQ(f.Check(1000, 5, true), FilterVerdict::kOutlier);
  EXPECT_EQ(f.Check(1001, 5, true), FilterVerdict::kOutlier);
  EXPECT_EQ(f.Check(1002, 5, true), FilterVerdict::kAccept);  // restart
  EXPECT_EQ(f.restarts(), 1u);
  EXPECT_EQ(f.Check(1001, 5, true), FilterVerdict::kAccept);
}

TEST(OutlierFilterTest, NeedsThreeOffsetsBeforeJudging) {
  OutlierFilter f({});
  EXPECT_EQ(f.Check(0, 1, true), FilterVerdict::kAccept);
  EXPECT_EQ(f.Check(1e9, 1, true), FilterVerdict::kAccept);
  EXPECT_EQ(f.GateNs(), 0.0);
}

TEST(CheckJumpTest, RejectsBeyondBoundPlusUncertaintyPlusMargin) {
  JumpGateConfig cfg;
  cfg.margin_ns = 1'000;
  EXPECT_TRUE(CheckJump(1'599, 100, 500, cfg).accept);
  const GateResult r = CheckJump(-1'601, 100, 500, cfg);
  EXPECT_FALSE(r.accept);
  EXPECT_EQ(r.limit_ns, 1'600);
  EXPECT_FALSE(CheckJump(1e6, 100, 500, cfg).accept);  // a 1 ms spoof
}

TEST(CheckJumpTest, NoBoundNoGate) {
  const GateResult r = CheckJump(1e15, 100, -1, {});
  EXPECT_TRUE(r.accept);
  EXPECT_EQ(r.limit_ns, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(
      CheckJump(1e15, 0, std::numeric_limits<int64_t>::max(), {}).accept);
}

TEST(OutlierFilterConfigTest, Validates) {
  EXPECT_TRUE(ValidateOutlierFilterConfig({}).ok());
  OutlierFilterConfig c;
  c.window = 2;
  EXPECT_FALSE(ValidateOutlierFilterConfig(c).ok());
  c = {};
  c.mad_multiplier = 0;
  EXPECT_FALSE(ValidateOutlierFilterConfig(c).ok());
}

}  // namespace
}  // namespace sample_filter_test
}  // namespace zg::servo
