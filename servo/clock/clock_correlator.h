// SPDX-License-Identifier: Apache-2.0
// ClockCorrelator: pairs a second clock with the TSC from bracketed reads.
//
// A bracketed read is (tsc_before, other, tsc_after): the other clock (a NIC
// clock via rte_eth_read_clock, a PHC, CLOCK_MONOTONIC_RAW, ...) was read
// somewhere between the two TSC reads. Of a burst of reads the tightest
// bracket is kept (the others were disturbed by interrupts, SMIs, cache
// misses); those points feed a sliding least-squares line
//
//   other(tsc) = other_base + offset + slope * (tsc - tsc_base)
//
// whose slope is the other clock's rate in other-units per TSC tick. The rate
// is re-measured with every point (never assumed constant): the history of
// per-segment rates gives the drift (ppb/s), and a point far off the line
// (the other clock was stepped, e.g. by phc2sys) restarts the window.
//
// Pure: no I/O, no clock reads; the caller supplies the reads. The data plane
// uses it for NIC clocks, servo/clock/tsc_clock.h for CLOCK_MONOTONIC_RAW and
// servo/sources/phc_source.h for PHCs. Not thread-safe: one owner thread.
//
//   ClockCorrelator corr(/*tsc_nominal_hz=*/3e9, {.window_points = 64});
//   BracketedRead burst[8];
//   for (auto& r : burst) r = {ReadTsc(), ReadNicClock(), ReadTsc()};
//   corr.AddBurst(burst);
//   if (corr.fit()) uint64_t nic = corr.fit()->OtherAt(ReadTsc());
#ifndef ZG_SERVO_CLOCK_CORRELATOR_H_
#define ZG_SERVO_CLOCK_CORRELATOR_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>

namespace zg::servo {

// One read of another clock between two TSC reads.
struct BracketedRead {
  uint64_t tsc_before = 0;  // TSC ticks
  uint64_t other = 0;       // the other clock, in its own units
  uint64_t tsc_after = 0;   // TSC ticks
};

// A bracketed read reduced to its midpoint and half-width.
struct CorrelationPoint {
  uint64_t tsc = 0;               // midpoint of the bracket, TSC ticks
  uint64_t other = 0;             // the other clock, its units
  uint64_t half_width_ticks = 0;  // (tsc_after - tsc_before) / 2, rounded up
};

// The tightest well-formed bracket of `reads` (tsc_after >= tsc_before), or
// nullopt when there is none.
std::optional<CorrelationPoint> TightestBracket(
    std::span<const BracketedRead> reads);

struct CorrelatorOptions {
  size_t window_points = 64;          // points in the sliding fit (>= 2)
  uint64_t max_half_width_ticks = 0;  // wider points are rejected; 0: no limit
  // |residual| beyond this many other-units means the other clock stepped:
  // the window restarts from the new point. 0 disables step detection.
  double step_threshold_other = 0;
  // A rate is recorded for the drift history every this many added points
  // (0: every window_points points).
  size_t segment_points = 0;
};

// The current line through the window.
struct CorrelatorFit {
  uint64_t tsc_base = 0;              // TSC of the oldest point in the window
  uint64_t other_base = 0;            // its other-clock reading
  double offset_other = 0;            // fitted (other - other_base) at tsc_base
  double other_per_tick = 0;          // the slope: other units per TSC tick
  double slope_stderr = 0;            // 1-sigma standard error of the slope
  double residual_rms_other = 0;      // RMS residual, other units
  uint64_t span_ticks = 0;            // newest - oldest point
  uint64_t max_half_width_ticks = 0;  // widest bracket in the window
  uint64_t endpoint_half_widths = 0;  // oldest + newest half-widths, ticks
  size_t points = 0;

  // Fitted (other - other_base) at `tsc` (fractional other units).
  double OtherOffsetAt(uint64_t tsc) const;
  // The other clock at `tsc`, rounded to nearest.
  uint64_t OtherAt(uint64_t tsc) const;
  // The TSC at which the other clock reads `other`, rounded to nearest.
  uint64_t TscAt(uint64_t other) const;
  // Relative rate uncertainty (dimensionless, e.g. 1e-9 = 1 ppb):
  // max(3 * stderr, bracket bound / sqrt(points)), where the bracket bound
  // (endpoint half-widths / span) is what two points alone could guarantee.
  double RelativeRateUncertainty() const;
  // Worst case from the two end brackets alone: endpoint_half_widths / span.
  double RelativeRateBound() const;
};

struct CorrelatorStats {
  uint64_t points_added = 0;
  uint64_t rejected_wide = 0;       // bracket wider than the limit
  uint64_t rejected_backwards = 0;  // TSC midpoint not after the last point
  uint64_t steps = 0;               // window restarts on a step
  // Relative rate change per second between the last two segments, ppb/s.
  std::optional<double> drift_ppb_per_s;
  double max_abs_drift_ppb_per_s = 0;
  size_t segments = 0;
};

class ClockCorrelator {
 public:
  enum class AddResult { kAdded, kRejectedWide, kRejectedBackwards, kStep };

  // `tsc_nominal_hz` converts TSC ticks to seconds for the drift's time base
  // only; the fit itself is in ticks.
  explicit ClockCorrelator(double tsc_nominal_hz,
                           const CorrelatorOptions& options = {});

  AddResult Add(const CorrelationPoint& point);
  // TightestBracket(reads) then Add; kRejectedWide when no read is usable.
  AddResult AddBurst(std::span<const BracketedRead> reads);
  // Drops every point (e.g. after the other clock was reset on purpose).
  void Reset();

  // The line through the window; nullopt until two points span > 0 ticks.
  const std::optional<CorrelatorFit>& fit() const { return fit_; }
  const CorrelatorStats& stats() const { return stats_; }
  size_t window_size() const { return window_.size(); }
  const CorrelatorOptions& options() const { return options_; }

 private:
  void Refit();
  void RecordSegment();

  double tsc_nominal_hz_;
  CorrelatorOptions options_;
  std::deque<CorrelationPoint> window_;
  std::optional<CorrelatorFit> fit_;
  CorrelatorStats stats_;
  size_t points_since_segment_ = 0;
  // The previous segment: TSC at its window centre and its slope.
  std::optional<std::pair<uint64_t, double>> last_segment_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CLOCK_CORRELATOR_H_
