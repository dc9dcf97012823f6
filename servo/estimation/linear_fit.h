// SPDX-License-Identifier: Apache-2.0
// Weighted least-squares line fitting and the small statistics the servo
// needs around it: the slope's standard error, a Student-t widening for few
// points, and a runs test that tells white residuals from a trend.
//
// Used by the linear-regression servo (servo/estimation/linreg_servo.h) and by
// the frequency estimator behind holdover
// (servo/estimation/frequency_estimator.h).
//
//   FitPoint pts[] = {{0, 10, 1}, {1, 12, 1}, {2, 14, 1}};
//   LinearFit fit = FitLine(pts);       // fit.slope == 2, fit.ValueAt(0) == 10
//   double se = fit.SlopeStdErr();       // 0: the points lie on the line
#ifndef ZG_SERVO_LINEAR_FIT_H_
#define ZG_SERVO_LINEAR_FIT_H_

#include "absl/types/span.h"

namespace zg::servo {

// One observation: y at x, with weight w (> 0; 1/variance up to a common
// scale: the fit estimates the scale from the residuals).
struct FitPoint {
  double x = 0;
  double y = 0;
  double w = 1;
};

struct LinearFit {
  bool ok = false;  // at least two points with distinct x
  int n = 0;
  double slope = 0;
  double x_mean = 0;  // weighted mean of x
  double y_mean = 0;  // weighted mean of y (the line passes through it)
  double sxx = 0;     // sum w (x - x_mean)^2
  double w_sum = 0;   // sum w
  double chi2 = 0;    // sum w r^2 (r: residual)

  double ValueAt(double x) const { return y_mean + slope * (x - x_mean); }
  // Estimated variance of unit weight: chi2 / (n - 2); 0 with two points.
  double UnitVariance() const;
  // Standard error of the slope (same units as slope); 0 if n <= 2.
  double SlopeStdErr() const;
  // Standard error of the line's value at x.
  double ValueStdErr(double x) const;
};

LinearFit FitLine(absl::Span<const FitPoint> points);

// Residuals y - line(x) of `points` against `fit`, into `out` (same size).
void Residuals(absl::Span<const FitPoint> points, const LinearFit& fit,
               absl::Span<double> out);

// The two-sided Student-t quantile matching the normal quantile `z` (e.g. 3
// for 99.73 %) with `dof` degrees of freedom, by the Cornish-Fisher expansion
// (within a few percent of the exact value for dof >= 4). dof < 4 is treated
// as 4: callers should not trust fits with fewer points.
double StudentT(double z, int dof);

// Wald-Wolfowitz runs test on the signs of `residuals` (zeros skipped).
// Returns the z score of the number of runs: strongly negative when there are
// too few runs, i.e. the residuals follow a trend rather than noise. Returns
// 0 when either sign has fewer than 2 residuals (too few to judge).
double RunsTestZ(absl::Span<const double> residuals);

}  // namespace zg::servo

#endif  // ZG_SERVO_LINEAR_FIT_H_
