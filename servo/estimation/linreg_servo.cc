// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/linreg_servo.h"

#include <algorithm>
#include <cmath>

#include "servo/estimation/linear_fit.h"

namespace zg::servo {
namespace {

// Prediction-error averaging, as in linuxptp: plain mean over the first 10
// updates, then an exponential average with weight 0.02.
constexpr int kErrInitialUpdates = 10;
constexpr double kErrSmooth = 0.02;
// Sizes whose error is within this ratio of the best count as equal; the
// largest of them wins.
constexpr double kErrEquals = 1.05;

}  // namespace

LinregServo::LinregServo(const ServoConfig& config) : Servo(config) {}

void LinregServo::DoReset() {
  num_points_ = 0;
  newest_ = -1;
  best_size_log2_ = 0;
  for (SizeResult& r : results_) r = SizeResult{};
}

void LinregServo::DoHoldover(double frequency_ppb) {
  // Keep the points (a short gap leaves them valid); DoSample restarts the
  // window if the gap turns out long.
  slope_ppb_ = frequency_ppb;
}

void LinregServo::AddPoint(const ServoSample& sample) {
  // Re-base y on the model's TAI at this sample so the numbers stay small.
  const core::TaiNs model_tai = model().TaiAt(sample.raw_ticks);
  const double shift = static_cast<double>(model_tai.value - base_tai_ns_);
  base_tai_ns_ = model_tai.value;
  for (int i = 0; i < num_points_; ++i) points_[i].y -= shift;
  for (SizeResult& r : results_) r.y0 -= shift;
  // reference = model - offset
  const double y =
      model().OffsetNs(sample.raw_ticks, model_tai) - sample.offset_ns;
  const double u =
      std::max<double>(1.0, static_cast<double>(sample.uncertainty_ns));
  newest_ = (newest_ + 1) % kMaxPoints;
  points_[newest_] = Point{sample.raw_ticks, y, 1.0 / (u * u)};
  num_points_ = std::min(num_points_ + 1, kMaxPoints);
}

void LinregServo::Regress() {
  const Point& last = points_[newest_];
  const double nominal = config_.nominal_ns_per_tick;
  FitPoint pts[kMaxPoints];
  for (int i = 0; i < num_points_; ++i) {
    const Point& p = points_[(newest_ - i + kMaxPoints) % kMaxPoints];
    const double x =
        static_cast<double>(static_cast<int64_t>(p.raw - last.raw));
    pts[i] = FitPoint{x, p.y - last.y - x * nominal, p.w};  // detrended
  }
  for (int size = kMinSizeLog2; size <= kMaxSizeLog2; ++size) {
    const int n = 1 << size;
    if (n > num_points_) break;
    SizeResult& res = results_[size - kMinSizeLog2];
    if (res.valid) {  // score the previous line on the new point
      const double dx =
          static_cast<double>(static_cast<int64_t>(last.raw - res.raw0));
      const double e = std::fabs(res.y0 + dx * res.rate - last.y);
      if (res.err_updates < kErrInitialUpdates) {
        res.err = (res.err * res.err_updates + e) / (res.err_updates + 1);
        ++res.err_updates;
      } else {
        res.err += kErrSmooth * (e - res.err);
      }
    }
    const LinearFit fit = FitLine(absl::MakeConstSpan(pts, n));
    if (!fit.ok) continue;
    res.valid = true;
    res.raw0 = last.raw;
    res.y0 = last.y + fit.ValueAt(0);
    res.rate = nominal + fit.slope;
  }
}

int LinregServo::BestSize() const {
  int best = 0;
  double best_err = 0;
  for (int size = kMinSizeLog2; size <= kMaxSizeLog2; ++size) {
    const SizeResult& r = results_[size - kMinSizeLog2];
    if (!r.valid) continue;
    if (best == 0 || (best_err * kErrEquals > r.err &&
                      r.err_updates >= kErrInitialUpdates)) {
      best = size;
      best_err = r.err;
    }
  }
  return best;
}

ServoState LinregServo::DoSample(const ServoSample& sample, bool first_update) {
  if (num_points_ > 0) {
    const int64_t gap =
        static_cast<int64_t>(sample.raw_ticks - points_[newest_].raw);
    if (gap <= 0) return ServoState::kUnlocked;  // out of order or repeated
    // A window straddling a long gap would mix two regimes: start over (the
    // model keeps running at its current rate meanwhile).
    if (static_cast<double>(gap) * config_.nominal_ns_per_tick * 1e-9 >
        kMaxGapIntervals * config_.sync_interval_s) {
      DoReset();
    }
  }
  AddPoint(sample);
  Regress();
  best_size_log2_ = BestSize();
  if (best_size_log2_ == 0) return ServoState::kUnlocked;
  const SizeResult& res = results_[best_size_log2_ - kMinSizeLog2];
  // The model's phase error against the line at this sample.
  double phase_ns =
      model().OffsetNs(sample.raw_ticks, core::TaiNs{base_tai_ns_}) - res.y0;
  ServoState state = ServoState::kLocked;
  if (ShouldStep(phase_ns, first_update)) {
    StepModel(sample.raw_ticks, -phase_ns);
    phase_ns = 0;
    state = ServoState::kJump;
  }
  slope_ppb_ =
      ClampFrequency((res.rate / config_.nominal_ns_per_tick - 1.0) * 1e9);
  const int corr = best_size_log2_ <= 4 ? 1 : best_size_log2_ / 2;
  ApplyFrequency(sample.raw_ticks,
                 slope_ppb_ - phase_ns / (corr * config_.sync_interval_s));
  return state;
}

}  // namespace zg::servo
