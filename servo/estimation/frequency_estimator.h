// SPDX-License-Identifier: Apache-2.0
// FrequencyEstimator: the long-term frequency of the raw clock against the
// reference, and how well it is known — what holdover runs on and what the
// error bound's growth is made of (chrony's sourcestats, in spirit).
//
// It fits reference TAI against raw ticks over the accepted samples of the
// selected source (weights 1 / uncertainty^2). The window is bounded in points
// and in time: beyond `max_points`, the adjacent pair of points with the least
// combined weight merges into its weighted mean (blocks stay even across the
// window, which keeps its span and the slope's precision);
// points older than `max_span_s` are dropped; and when the residuals fail a
// runs test (too few sign changes: the frequency moved within the window) the
// oldest quarter is dropped until they pass or `min_points` remain.
//
// Because the fit uses raw ticks and reference time only, it is independent of
// what the servo did to the model (steps, slews).
//
//   FrequencyEstimator est(nominal_ns_per_tick, {});
//   est.Add(s.raw_ticks, s.reference_tai, s.uncertainty_ns);
//   if (est.estimate().valid) rate = est.RateNsPerTick();
#ifndef ZG_SERVO_FREQUENCY_ESTIMATOR_H_
#define ZG_SERVO_FREQUENCY_ESTIMATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "core/time/time_types.h"
#include "servo/estimation/linear_fit.h"

namespace zg::servo {

struct FrequencyEstimatorConfig {
  int max_points = 64;       // merge pairs beyond this (>= 2 * min_points)
  int min_points = 6;        // estimate valid from this many points
  double max_span_s = 7200;  // drop points older than this
  double runs_z = 2.6;       // runs-test threshold (one-sided ~0.5 %)
};

absl::Status ValidateFrequencyEstimatorConfig(
    const FrequencyEstimatorConfig& config);

struct FrequencyEstimate {
  bool valid = false;
  double ppb = 0;         // frequency relative to nominal: rate/nominal - 1
  double stderr_ppb = 0;  // standard error of ppb (1 sigma)
  int dof = 0;            // degrees of freedom behind stderr (points - 2)
  double span_s = 0;      // time covered by the window
  double residual_rms_ns = 0;  // scatter of the samples about the line
  int points = 0;
};

class FrequencyEstimator {
 public:
  FrequencyEstimator(double nominal_ns_per_tick,
                     const FrequencyEstimatorConfig& config);

  // Adds one accepted sample (time-ordered; older or repeated raw ticks are
  // ignored) and refits.
  void Add(uint64_t raw_ticks, core::TaiNs reference, int64_t uncertainty_ns);
  void Reset();

  const FrequencyEstimate& estimate() const { return estimate_; }
  double RateNsPerTick() const {
    return nominal_ns_per_tick_ * (1.0 + estimate_.ppb * 1e-9);
  }
  // Counters for metrics and tests.
  uint64_t merges() const { return merges_; }
  uint64_t trims() const { return trims_; }

 private:
  struct Point {
    double x;  // raw ticks since base_raw_
    double y;  // reference ns since base_tai_ns_, minus x * nominal
    double w;  // sum of weights merged into it
  };

  void MergeLightestPair();
  void DropOlderThan(double min_x);
  void Refit();
  void Rebase();

  double nominal_ns_per_tick_;
  FrequencyEstimatorConfig config_;
  std::vector<Point> points_;  // oldest first
  std::vector<FitPoint> fit_buf_;
  std::vector<double> residual_buf_;
  bool have_base_ = false;
  uint64_t base_raw_ = 0;
  int64_t base_tai_ns_ = 0;
  uint64_t last_raw_ = 0;
  FrequencyEstimate estimate_;
  uint64_t merges_ = 0;
  uint64_t trims_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_FREQUENCY_ESTIMATOR_H_
