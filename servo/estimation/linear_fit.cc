// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/linear_fit.h"

#include <algorithm>
#include <cmath>

namespace zg::servo {

double LinearFit::UnitVariance() const { return n > 2 ? chi2 / (n - 2) : 0.0; }

double LinearFit::SlopeStdErr() const {
  if (!ok || n <= 2 || sxx <= 0) return 0.0;
  return std::sqrt(UnitVariance() / sxx);
}

double LinearFit::ValueStdErr(double x) const {
  if (!ok || n <= 2 || sxx <= 0 || w_sum <= 0) return 0.0;
  const double dx = x - x_mean;
  return std::sqrt(UnitVariance() * (1.0 / w_sum + dx * dx / sxx));
}

LinearFit FitLine(absl::Span<const FitPoint> points) {
  LinearFit fit;
  fit.n = static_cast<int>(points.size());
  for (const FitPoint& p : points) fit.w_sum += p.w;
  if (fit.n < 2 || !(fit.w_sum > 0)) return fit;
  // Two passes (means first) keep the sums well conditioned.
  double wx = 0, wy = 0;
  for (const FitPoint& p : points) {
    wx += p.w * p.x;
    wy += p.w * p.y;
  }
  fit.x_mean = wx / fit.w_sum;
  fit.y_mean = wy / fit.w_sum;
  double sxy = 0;
  for (const FitPoint& p : points) {
    const double dx = p.x - fit.x_mean;
    fit.sxx += p.w * dx * dx;
    sxy += p.w * dx * (p.y - fit.y_mean);
  }
  if (!(fit.sxx > 0)) return fit;
  fit.slope = sxy / fit.sxx;
  for (const FitPoint& p : points) {
    const double r = p.y - fit.ValueAt(p.x);
    fit.chi2 += p.w * r * r;
  }
  fit.ok = true;
  return fit;
}

void Residuals(absl::Span<const FitPoint> points, const LinearFit& fit,
               absl::Span<double> out) {
  const size_t n = std::min(points.size(), out.size());
  for (size_t i = 0; i < n; ++i) {
    out[i] = points[i].y - fit.ValueAt(points[i].x);
  }
}

double StudentT(double z, int dof) {
  const double v = std::max(dof, 4);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

double RunsTestZ(absl::Span<const double> residuals) {
  double n_pos = 0, n_neg = 0, runs = 0;
  int last_sign = 0;
  for (double r : residuals) {
    const int sign = r > 0 ? 1 : (r < 0 ? -1 : 0);
    if (sign == 0) continue;
    if (sign > 0) {
      ++n_pos;
    } else {
      ++n_neg;
    }
    if (sign != last_sign) ++runs;
    last_sign = sign;
  }
  if (n_pos < 2 || n_neg < 2) return 0.0;
  const double n = n_pos + n_neg;
  const double two_pn = 2 * n_pos * n_neg;
  const double mean = two_pn / n + 1;
  const double var = two_pn * (two_pn - n) / (n * n * (n - 1));
  if (!(var > 0)) return 0.0;
  return (runs - mean) / std::sqrt(var);
}

}  // namespace zg::servo
