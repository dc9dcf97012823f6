// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/frequency_estimator.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace zg::servo {

absl::Status ValidateFrequencyEstimatorConfig(
    const FrequencyEstimatorConfig& c) {
  if (c.min_points < 4 || c.max_points < 2 * c.min_points ||
      c.max_points > 4096) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "frequency estimator: need 4 <= min_points (%d) and 2 * min_points <= "
        "max_points (%d) <= 4096",
        c.min_points, c.max_points));
  }
  if (!(c.max_span_s > 0) || !(c.runs_z > 0)) {
    return absl::InvalidArgumentError(
        "frequency estimator: max_span_s and runs_z must be positive");
  }
  return absl::OkStatus();
}

FrequencyEstimator::FrequencyEstimator(double nominal_ns_per_tick,
                                       const FrequencyEstimatorConfig& config)
    : nominal_ns_per_tick_(nominal_ns_per_tick), config_(config) {
  points_.reserve(config_.max_points + 1);
  fit_buf_.reserve(config_.max_points + 1);
  residual_buf_.reserve(config_.max_points + 1);
}

void FrequencyEstimator::Reset() {
  points_.clear();
  have_base_ = false;
  estimate_ = FrequencyEstimate{};
}

void FrequencyEstimator::Add(uint64_t raw_ticks, core::TaiNs reference,
                             int64_t uncertainty_ns) {
  if (have_base_ && static_cast<int64_t>(raw_ticks - last_raw_) <= 0) return;
  if (!have_base_) {
    have_base_ = true;
    base_raw_ = raw_ticks;
    base_tai_ns_ = reference.value;
  }
  last_raw_ = raw_ticks;
  const double x =
      static_cast<double>(static_cast<int64_t>(raw_ticks - base_raw_));
  const double y = static_cast<double>(reference.value - base_tai_ns_) -
                   x * nominal_ns_per_tick_;
  const double u = std::max<double>(1.0, static_cast<double>(uncertainty_ns));
  points_.push_back(Point{x, y, 1.0 / (u * u)});
  DropOlderThan(x - config_.max_span_s * 1e9 / nominal_ns_per_tick_);
  if (static_cast<int>(points_.size()) > config_.max_points)
    MergeLightestPair();
  Refit();
  Rebase();
}

void FrequencyEstimator::MergeLightestPair() {
  // Merge the adjacent pair with the least combined weight (the oldest of
  // equals), never the newest point: block sizes stay even across the window,
  // which keeps the slope estimate efficient, and the span is kept.
  const size_t n = points_.size();
  if (n < 3) return;
  size_t best = 0;
  double best_w = points_[0].w + points_[1].w;
  for (size_t i = 1; i + 2 < n; ++i) {
    const double w = points_[i].w + points_[i + 1].w;
    if (w < best_w) {
      best_w = w;
      best = i;
    }
  }
  const Point& a = points_[best];
  const Point& b = points_[best + 1];
  points_[best] = Point{(a.x * a.w + b.x * b.w) / best_w,
                        (a.y * a.w + b.y * b.w) / best_w, best_w};
  points_.erase(points_.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  ++merges_;
}

void FrequencyEstimator::DropOlderThan(double min_x) {
  size_t k = 0;
  while (k < points_.size() && points_[k].x < min_x) ++k;
  if (k > 0) points_.erase(points_.begin(), points_.begin() + k);
}

void FrequencyEstimator::Refit() {
  estimate_ = FrequencyEstimate{};
  for (;;) {
    const int n = static_cast<int>(points_.size());
    fit_buf_.clear();
    const double x_last = points_.back().x;
    for (const Point& p : points_) {
      fit_buf_.push_back(FitPoint{p.x - x_last, p.y, p.w});
    }
    const LinearFit fit = FitLine(fit_buf_);
    if (!fit.ok) return;
    residual_buf_.resize(n);
    Residuals(fit_buf_, fit, absl::MakeSpan(residual_buf_));
    if (n > config_.min_points && RunsTestZ(residual_buf_) < -config_.runs_z) {
      const int drop = std::max(1, std::min(n / 4, n - config_.min_points));
      points_.erase(points_.begin(), points_.begin() + drop);
      ++trims_;
      continue;
    }
    estimate_.points = n;
    estimate_.valid = n >= config_.min_points;
    estimate_.ppb = fit.slope / nominal_ns_per_tick_ * 1e9;
    estimate_.stderr_ppb = fit.SlopeStdErr() / nominal_ns_per_tick_ * 1e9;
    estimate_.dof = n - 2;
    estimate_.span_s =
        (x_last - points_.front().x) * nominal_ns_per_tick_ * 1e-9;
    estimate_.residual_rms_ns =
        fit.w_sum > 0 ? std::sqrt(fit.chi2 / fit.w_sum) : 0.0;
    return;
  }
}

void FrequencyEstimator::Rebase() {
  // Keep x and y small: move the base to the oldest point's whole tick.
  const double shift_x = std::floor(points_.front().x);
  if (shift_x < 1e12) return;  // ~5 min at 3 GHz: plenty of precision left
  const int64_t ticks = static_cast<int64_t>(shift_x);
  base_raw_ += static_cast<uint64_t>(ticks);
  const double shift_y_full = shift_x * nominal_ns_per_tick_;
  // y = ref - base_tai - x*nominal; moving base_raw by ticks and base_tai by
  // a whole number of ns keeps ref exact.
  const int64_t tai_shift = static_cast<int64_t>(std::floor(shift_y_full));
  base_tai_ns_ += tai_shift;
  const double y_shift = static_cast<double>(tai_shift) - shift_y_full;
  for (Point& p : points_) {
    p.x -= shift_x;
    p.y -= y_shift;
  }
}

}  // namespace zg::servo
