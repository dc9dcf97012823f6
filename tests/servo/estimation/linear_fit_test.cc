// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/linear_fit.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/servo/test_noise.h"

namespace zg::servo {
namespace linear_fit_test {
namespace {

TEST(LinearFitTest, ExactLine) {
  const FitPoint pts[] = {{0, 10, 1}, {1, 12, 1}, {2, 14, 1}, {5, 20, 3}};
  const LinearFit fit = FitLine(pts);
  ASSERT_TRUE(fit.ok);
  EXPECT_NEAR(fit.slope, 2.0, 1e-12);
  EXPECT_NEAR(fit.ValueAt(0), 10.0, 1e-12);
  EXPECT_NEAR(fit.SlopeStdErr(), 0.0, 1e-9);
  EXPECT_NEAR(fit.w_sum, 6.0, 1e-12);
}

TEST(LinearFitTest, DegenerateInputsAreNotOk) {
  EXPECT_FALSE(FitLine({}).ok);
  const FitPoint one[] = {{1, 1, 1}};
  EXPECT_FALSE(FitLine(one).ok);
  const FitPoint same_x[] = {{1, 1, 1}, {1, 2, 1}};
  EXPECT_FALSE(FitLine(same_x).ok);
}

TEST(LinearFitTest, WeightsFavourPreciseObservations) {
  // Two precise points on y = x and one imprecise far off.
  const FitPoint pts[] = {{0, 0, 1e6}, {10, 10, 1e6}, {5, 100, 1}};
  const LinearFit fit = FitLine(pts);
  EXPECT_NEAR(fit.slope, 1.0, 1e-3);
  EXPECT_NEAR(fit.ValueAt(5), 5.0, 0.01);
}

TEST(LinearFitTest, SlopeStdErrMatchesTheNoise) {
  // sigma 2 on 100 points at x = 0..99: stderr = 2 / sqrt(sum (x-xbar)^2).
  TestNoise noise(42);
  double worst = 0;
  std::vector<double> slopes;
  for (int run = 0; run < 200; ++run) {
    std::vector<FitPoint> pts;
    for (int i = 0; i < 100; ++i)
      pts.push_back({double(i), 3 + 0.5 * i + 2 * noise.Next(), 1});
    const LinearFit fit = FitLine(pts);
    slopes.push_back(fit.slope);
    worst = std::max(
        worst, std::fabs(fit.SlopeStdErr() / (2 / std::sqrt(83325.0)) - 1));
  }
  EXPECT_LT(worst, 0.3);  // each estimate within 30 % of the truth
  double var = 0;
  for (double s : slopes) var += (s - 0.5) * (s - 0.5);
  var /= slopes.size();
  EXPECT_NEAR(std::sqrt(var), 2 / std::sqrt(83325.0), 0.0015);
}

TEST(LinearFitTest, StudentTWidensForFewPoints) {
  EXPECT_NEAR(StudentT(3, 10), 3.96, 0.1);
  EXPECT_NEAR(StudentT(3, 4), 6.62, 0.4);
  EXPECT_NEAR(StudentT(3, 100000), 3.0, 1e-3);
  EXPECT_GT(StudentT(3, 1), StudentT(3, 20));  // dof < 4 treated as 4
  EXPECT_NEAR(StudentT(1.96, 30), 2.042, 0.01);
}

TEST(LinearFitTest, RunsTestTellsTrendFromNoise) {
  std::vector<double> alternating, trend, noise_only;
  TestNoise noise(42);
  for (int i = 0; i < 40; ++i) {
    alternating.push_back(i % 2 ? 1 : -1);
    trend.push_back(i < 20 ? -1.0 - i : 1.0 + i);  // one run each side
    noise_only.push_back(noise.Next());
  }
  EXPECT_GT(RunsTestZ(alternating), 3);
  EXPECT_LT(RunsTestZ(trend), -5);
  EXPECT_GT(RunsTestZ(noise_only), -2.6);
  const double one_sign[] = {1, 2, 3, 4};
  EXPECT_EQ(RunsTestZ(one_sign), 0.0);
}

}  // namespace
}  // namespace linear_fit_test
}  // namespace zg::servo
