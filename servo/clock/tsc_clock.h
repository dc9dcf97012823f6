// SPDX-License-Identifier: Apache-2.0
// TscClock: the TSC as the control plane's raw clock, with its frequency
// calibrated against CLOCK_MONOTONIC_RAW and re-measured for as long as the
// daemon runs.
//
// Calibration pairs the two clocks with bracketed reads (TSC, MONOTONIC_RAW,
// TSC), keeps the tightest of several, and fits a line through a sliding
// window of such points (servo/clock/clock_correlator.h). The frequency
// estimate, its uncertainty and its drift (how the estimate moves between
// windows) are reported, never assumed constant. CLOCK_MONOTONIC_RAW is the
// kernel's unslewed view of its clocksource, so the estimate is the TSC's rate
// against the crystal the kernel trusts, not against chrony's corrections.
//
// Create() refuses a TSC that is not invariant (constant_tsc and nonstop_tsc
// in /proc/cpuinfo): such a TSC changes rate with P-states or stops in deep
// C-states and cannot be a raw clock.
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<TscClock> tsc, TscClock::Create());
//   ...every second on the control thread:
//   tsc->Refine();
//   TscCalibration c = tsc->calibration();   // c.hz, c.uncertainty_ppb, ...
//
// Control thread only (the data plane reads the TSC itself, core/time/tsc.h,
// and gets the rate through the published ClockModel).
#ifndef ZG_SERVO_TSC_CLOCK_H_
#define ZG_SERVO_TSC_CLOCK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/clock_correlator.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

// OK if every "flags" line of /proc/cpuinfo text lists constant_tsc and
// nonstop_tsc; otherwise FailedPrecondition saying what is missing and what
// to do about it.
absl::Status CheckInvariantTsc(std::string_view cpuinfo);

struct TscCalibration {
  double hz = 0;               // TSC ticks per CLOCK_MONOTONIC_RAW second
  double uncertainty_ppb = 0;  // relative uncertainty of hz (3 sigma, floored
                               // by the bracket bound / sqrt(points))
  double bound_ppb = 0;        // worst case from the two end brackets alone
  // Change of the frequency estimate between successive windows, ppb per
  // second (positive: the TSC runs faster against MONOTONIC_RAW).
  std::optional<double> drift_ppb_per_s;
  double max_abs_drift_ppb_per_s = 0;
  double span_s = 0;           // time covered by the current fit
  size_t points = 0;           // points in the current fit
  double residual_rms_ns = 0;  // scatter of the points about the line
  uint64_t max_half_width_ticks = 0;
  uint64_t steps = 0;  // TSC and MONOTONIC_RAW disagreed by more than the
                       // step threshold (TSC reset, VM migration): the fit
                       // restarted. Should stay 0.
};

struct TscClockOptions {
  int reads_per_point = 16;   // bracketed reads per point; tightest kept
  size_t window_points = 64;  // points in the sliding fit
  // Blocking calibration in Create(): points this far apart, this long.
  int64_t initial_calibration_ns = 100'000'000;
  int64_t initial_point_spacing_ns = 5'000'000;
  // TSC vs MONOTONIC_RAW jumping by more than this restarts the fit.
  double step_threshold_ns = 100'000;
  std::string cpuinfo_path = "/proc/cpuinfo";
};

class TscClock final : public RawClock {
 public:
  // Test seams: where bracketed (tsc, monotonic_raw_ns, tsc) reads, raw
  // ticks and sleeps come from.
  struct Io {
    std::function<BracketedRead()> read_bracket;
    std::function<uint64_t()> now_ticks;
    std::function<void(int64_t ns)> sleep;
  };

  // Checks the TSC is invariant (x86), then calibrates for
  // options.initial_calibration_ns (blocking; setup only).
  static absl::StatusOr<std::unique_ptr<TscClock>> Create(
      const TscClockOptions& options = {});
  // The same calibration over injected reads; no /proc/cpuinfo check.
  static absl::StatusOr<std::unique_ptr<TscClock>> CreateWithIo(
      const TscClockOptions& options, Io io);

  // An ordered TSC read (not reordered around the surrounding reads).
  uint64_t NowTicks() override { return io_.now_ticks(); }
  // The current frequency estimate.
  double NominalHz() const override;

  // Takes one more calibration point (reads_per_point bracketed reads: a few
  // microseconds). Call periodically from the control thread, e.g. 1 Hz.
  void Refine();

  TscCalibration calibration() const;
  const ClockCorrelator& correlator() const { return *correlator_; }

  // CLOCK_MONOTONIC_RAW <-> TSC through the latest fit (Create() guarantees
  // there is one).
  int64_t MonoRawNsAt(uint64_t ticks) const;
  uint64_t TicksAtMonoRawNs(int64_t mono_raw_ns) const;

 private:
  TscClock(const TscClockOptions& options, Io io, double first_guess_hz);
  void AddPoint();

  TscClockOptions options_;
  Io io_;
  std::unique_ptr<ClockCorrelator> correlator_;
  double first_guess_hz_;
  // The latest usable fit (kept across a window restart after a step).
  std::optional<CorrelatorFit> last_fit_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_TSC_CLOCK_H_
