// SPDX-License-Identifier: Apache-2.0
// NicClockTracker: a NIC's free-running clock correlated to the TSC, and the
// NIC ticks -> TAI model the workers apply to hardware RX stamps.
//
// The data plane reads the NIC clock (rte_eth_read_clock) between two TSC
// reads; servo/ never includes DPDK, so the read comes in as a callback. A
// burst of such reads is reduced to its tightest bracket and fed to a
// ClockCorrelator (a sliding least-squares line NIC(tsc)); the line's rate is
// re-measured with every point and its drift between segments is reported,
// never assumed zero. A point far off the line (the NIC clock was stepped)
// restarts the window. On every publish the TSC model (TSC -> TAI, from the
// discipline) is composed with the line:
//
//   NIC model: raw_anchor = NIC(tsc_now), tai_anchor = TSC model(tsc_now),
//              ns per NIC tick = ns per TSC tick / NIC ticks per TSC tick
//
// with the correlation's own error added: the mapping's scatter and bracket
// at the anchor, and its rate uncertainty and drift in the growth.
//
//   NicClockTracker nic("port0", [&] { return ReadNicBracketed(); },
//                       &nic_published, tsc_hz, {});
//   nic.Tick(mono_ns, tsc_model, tsc_now);     // every control tick
//
// Control thread only (the read callback runs on it too).
#ifndef ZG_SERVO_NIC_CLOCK_TRACKER_H_
#define ZG_SERVO_NIC_CLOCK_TRACKER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/time/clock_model.h"
#include "servo/clock/clock_correlator.h"

namespace zg::servo {

// One NIC clock read between two TSC reads.
using NicClockReadFn = std::function<absl::StatusOr<BracketedRead>()>;

struct NicTrackerOptions {
  int reads_per_sample = 8;  // bracketed reads per point; tightest kept
  // A point every this long once the window holds warmup_points; faster (on
  // every Tick) before, so a model is published within a second of start.
  int64_t sample_interval_ns = 1'000'000'000;
  size_t warmup_points = 8;
  size_t window_points = 64;
  size_t segment_points = 16;  // drift: rate change between such segments
  // A point this far (ns) off the line means the NIC clock was stepped.
  double step_threshold_ns = 100'000;
};

struct NicClockStatus {
  std::string name;
  bool have_fit = false;
  bool published = false;           // a NIC model is being published
  double ticks_per_second = 0;      // NIC ticks per TSC second (nominal hz)
  double rate_uncertainty_ppb = 0;  // of the NIC/TSC rate (3 sigma)
  std::optional<double> drift_ppb_per_s;  // rate change between segments
  double max_abs_drift_ppb_per_s = 0;
  double residual_rms_ns = 0;  // scatter of the points about the line
  // Widest TSC bracket half-width of a point in the window: where in it
  // the NIC clock was read is unknown (rte_eth_read_clock over PCIe, or
  // clock_gettime for AF_XDP's kernel stamps).
  double bracket_half_width_ns = 0;
  double mapping_error_ns = 0;  // added to the published bound
  size_t window_points = 0;
  uint64_t points = 0;
  uint64_t steps = 0;     // NIC clock steps detected
  uint64_t rejected = 0;  // unusable bursts
  uint64_t read_errors = 0;
  std::string last_error;
};

class NicClockTracker {
 public:
  NicClockTracker(std::string name, NicClockReadFn read,
                  core::PublishedClock* out, double tsc_hz,
                  const NicTrackerOptions& options = {});

  // Takes a point when due, then publishes the NIC model composed with
  // `tsc_model` at TSC `tsc_now` (once the correlator has a line and the TSC
  // model a rate). Errors: the NIC clock could not be read.
  absl::Status Tick(int64_t mono_ns, const core::ClockModel& tsc_model,
                    uint64_t tsc_now);

  // The NIC model for `tsc_model` at `tsc_now`, or nullopt without a line.
  std::optional<core::ClockModel> Compose(const core::ClockModel& tsc_model,
                                          uint64_t tsc_now) const;

  const NicClockStatus& status() const { return status_; }
  const ClockCorrelator& correlator() const { return correlator_; }

 private:
  absl::Status Sample();
  void UpdateStatus();

  NicClockReadFn read_;
  core::PublishedClock* out_;
  double tsc_hz_;
  NicTrackerOptions options_;
  ClockCorrelator correlator_;
  std::vector<BracketedRead> burst_;
  int64_t next_sample_mono_ = 0;
  uint64_t generation_ = 0;
  NicClockStatus status_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_NIC_CLOCK_TRACKER_H_
