// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/clock_correlator.h"

#include <algorithm>
#include <cmath>

namespace zg::servo {

std::optional<CorrelationPoint> TightestBracket(
    std::span<const BracketedRead> reads) {
  std::optional<CorrelationPoint> best;
  for (const BracketedRead& r : reads) {
    if (r.tsc_after < r.tsc_before) continue;
    const uint64_t width = r.tsc_after - r.tsc_before;
    const uint64_t half = width / 2 + (width & 1);
    if (best && half >= best->half_width_ticks) continue;
    best = CorrelationPoint{r.tsc_before + width / 2, r.other, half};
  }
  return best;
}

double CorrelatorFit::OtherOffsetAt(uint64_t tsc) const {
  const double x = static_cast<double>(static_cast<int64_t>(tsc - tsc_base));
  return offset_other + other_per_tick * x;
}

uint64_t CorrelatorFit::OtherAt(uint64_t tsc) const {
  return other_base + static_cast<uint64_t>(std::llround(OtherOffsetAt(tsc)));
}

uint64_t CorrelatorFit::TscAt(uint64_t other) const {
  const double y =
      static_cast<double>(static_cast<int64_t>(other - other_base));
  return tsc_base + static_cast<uint64_t>(
                        std::llround((y - offset_other) / other_per_tick));
}

double CorrelatorFit::RelativeRateBound() const {
  if (span_ticks == 0) return INFINITY;
  return static_cast<double>(endpoint_half_widths) /
         static_cast<double>(span_ticks);
}

double CorrelatorFit::RelativeRateUncertainty() const {
  const double statistical =
      other_per_tick != 0 ? 3.0 * slope_stderr / std::fabs(other_per_tick)
                          : INFINITY;
  const double bracket =
      RelativeRateBound() /
      std::sqrt(static_cast<double>(std::max<size_t>(points, 1)));
  return std::max(statistical, bracket);
}

ClockCorrelator::ClockCorrelator(double tsc_nominal_hz,
                                 const CorrelatorOptions& options)
    : tsc_nominal_hz_(tsc_nominal_hz), options_(options) {
  options_.window_points = std::max<size_t>(options_.window_points, 2);
  if (options_.segment_points == 0) {
    options_.segment_points = options_.window_points;
  }
}

ClockCorrelator::AddResult ClockCorrelator::AddBurst(
    std::span<const BracketedRead> reads) {
  const std::optional<CorrelationPoint> p = TightestBracket(reads);
  if (!p) {
    ++stats_.rejected_wide;
    return AddResult::kRejectedWide;
  }
  return Add(*p);
}

ClockCorrelator::AddResult ClockCorrelator::Add(const CorrelationPoint& point) {
  if (options_.max_half_width_ticks != 0 &&
      point.half_width_ticks > options_.max_half_width_ticks) {
    ++stats_.rejected_wide;
    return AddResult::kRejectedWide;
  }
  if (!window_.empty() &&
      static_cast<int64_t>(point.tsc - window_.back().tsc) <= 0) {
    ++stats_.rejected_backwards;
    return AddResult::kRejectedBackwards;
  }
  AddResult result = AddResult::kAdded;
  if (fit_ && options_.step_threshold_other > 0) {
    const double predicted = fit_->OtherOffsetAt(point.tsc);
    const double actual = static_cast<double>(
        static_cast<int64_t>(point.other - fit_->other_base));
    // The line's own worst-case error where it is extrapolated to, plus both
    // brackets, is tolerated on top of the threshold.
    const double dx = static_cast<double>(point.tsc - window_.back().tsc);
    const double slack = std::fabs(fit_->other_per_tick) *
                         (fit_->RelativeRateBound() *
                              (dx + static_cast<double>(fit_->span_ticks)) +
                          static_cast<double>(point.half_width_ticks +
                                              fit_->max_half_width_ticks));
    if (std::fabs(actual - predicted) > options_.step_threshold_other + slack) {
      ++stats_.steps;
      window_.clear();
      fit_.reset();
      points_since_segment_ = 0;
      result = AddResult::kStep;
    }
  }
  window_.push_back(point);
  while (window_.size() > options_.window_points) window_.pop_front();
  ++stats_.points_added;
  Refit();
  if (++points_since_segment_ >= options_.segment_points && fit_) {
    RecordSegment();
  }
  return result;
}

void ClockCorrelator::Reset() {
  window_.clear();
  fit_.reset();
  points_since_segment_ = 0;
  last_segment_.reset();
}

void ClockCorrelator::Refit() {
  fit_.reset();
  const size_t n = window_.size();
  if (n < 2) return;
  const CorrelationPoint& first = window_.front();
  const CorrelationPoint& last = window_.back();
  if (last.tsc == first.tsc) return;
  // Least squares on values relative to the oldest point, in long double.
  long double sx = 0, sy = 0;
  uint64_t max_hw = 0;
  for (const CorrelationPoint& p : window_) {
    sx += static_cast<long double>(p.tsc - first.tsc);
    sy += static_cast<long double>(static_cast<int64_t>(p.other - first.other));
    max_hw = std::max(max_hw, p.half_width_ticks);
  }
  const long double mx = sx / n, my = sy / n;
  long double sxx = 0, sxy = 0;
  for (const CorrelationPoint& p : window_) {
    const long double dx = static_cast<long double>(p.tsc - first.tsc) - mx;
    const long double dy =
        static_cast<long double>(static_cast<int64_t>(p.other - first.other)) -
        my;
    sxx += dx * dx;
    sxy += dx * dy;
  }
  if (sxx <= 0) return;
  const long double slope = sxy / sxx;
  const long double intercept = my - slope * mx;
  long double rss = 0;
  for (const CorrelationPoint& p : window_) {
    const long double x = static_cast<long double>(p.tsc - first.tsc);
    const long double y =
        static_cast<long double>(static_cast<int64_t>(p.other - first.other));
    const long double r = y - (intercept + slope * x);
    rss += r * r;
  }
  CorrelatorFit f;
  f.tsc_base = first.tsc;
  f.other_base = first.other;
  f.offset_other = static_cast<double>(intercept);
  f.other_per_tick = static_cast<double>(slope);
  f.slope_stderr =
      n > 2 ? static_cast<double>(std::sqrt(rss / (n - 2) / sxx)) : 0.0;
  f.residual_rms_other = static_cast<double>(std::sqrt(rss / n));
  f.span_ticks = last.tsc - first.tsc;
  f.max_half_width_ticks = max_hw;
  f.endpoint_half_widths = first.half_width_ticks + last.half_width_ticks;
  f.points = n;
  fit_ = f;
}

void ClockCorrelator::RecordSegment() {
  points_since_segment_ = 0;
  const uint64_t centre = fit_->tsc_base + fit_->span_ticks / 2;
  const double slope = fit_->other_per_tick;
  if (last_segment_ && last_segment_->second != 0) {
    const double dt_s = static_cast<double>(static_cast<int64_t>(
                            centre - last_segment_->first)) /
                        tsc_nominal_hz_;
    if (dt_s > 0) {
      const double drift =
          (slope - last_segment_->second) / last_segment_->second * 1e9 / dt_s;
      stats_.drift_ppb_per_s = drift;
      stats_.max_abs_drift_ppb_per_s =
          std::max(stats_.max_abs_drift_ppb_per_s, std::fabs(drift));
    }
  }
  last_segment_ = {centre, slope};
  ++stats_.segments;
}

}  // namespace zg::servo
