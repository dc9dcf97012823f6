// SPDX-License-Identifier: Apache-2.0
// The clock zg-loadgen stamps its requests and replies with: the TSC, mapped
// to TAI through the kernel's CLOCK_REALTIME.
//
// The lanes stamp with raw TSC reads (core/time/tsc.h) and turn them into time
// with a core::ClockModel published here (a SeqLock, read once per burst),
// the same raw-vs-cooked split as zeitgeberd. The model is anchored on the
// latest bracketed read (TSC, CLOCK_REALTIME, TSC; the tightest of a few,
// servo/clock/system_time.h) and its rate is the slope of a sliding fit of
// CLOCK_REALTIME against the TSC (servo/clock/clock_correlator.h), so it
// follows whatever chronyd does to the system clock; until the fit spans
// `min_fit_span_ns`, the raw clock's own calibrated rate
// (servo/clock/tsc_clock.h, against CLOCK_MONOTONIC_RAW) stands in. A step of
// CLOCK_REALTIME restarts the fit.
//
// When zeitgeberd serves the same CLOCK_REALTIME on the same host, the
// offset a client computes, ((T2-T1)+(T3-T4))/2, is then the server's
// stamping error plus ours (a few tens of ns of bracket here).
//
//   ZG_ASSIGN_OR_RETURN(auto tsc, servo::TscClock::Create());
//   ZG_ASSIGN_OR_RETURN(auto clock, GeneratorClock::Create(
//       tsc.get(), &servo::RealSystemClockOps(), {}));
//   lanes read clock->published();
//   every 100 ms on the main lcore: ZG_RETURN_IF_ERROR(clock->Update());
//
// Control thread only (Update); lanes only read published().
#ifndef ZG_BENCH_LOADGEN_GENERATOR_CLOCK_H_
#define ZG_BENCH_LOADGEN_GENERATOR_CLOCK_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "core/time/clock_model.h"
#include "servo/clock/clock_correlator.h"
#include "servo/clock/system_time.h"
#include "servo/sources/reference_source.h"

namespace zg::bench {

struct GeneratorClockOptions {
  int tries = 8;  // bracketed reads per update; the tightest is kept
  // TAI - UTC when the kernel does not know it (adjtimex's tai is 0).
  int32_t fallback_tai_minus_utc_s = 37;
  // The fit's slope replaces the raw clock's nominal rate once the fit
  // spans this long.
  int64_t min_fit_span_ns = 500'000'000;
  size_t window_points = 64;
  // CLOCK_REALTIME off the fit by more than this: it was stepped.
  int64_t step_threshold_ns = 1'000'000;
};

class GeneratorClock {
 public:
  // Reads CLOCK_REALTIME once and publishes the first model. `raw` and `ops`
  // must outlive the clock.
  static absl::StatusOr<std::unique_ptr<GeneratorClock>> Create(
      servo::RawClock* raw, servo::SystemClockOps* ops,
      const GeneratorClockOptions& options);

  // Takes one bracketed read and publishes a new model.
  absl::Status Update();

  // Written by: the control thread (Update). Read by: the lanes.
  const core::PublishedClock& published() const { return published_; }
  const core::ClockModel& model() const { return model_; }
  // TSC ticks per second in the current model.
  double hz() const { return hz_; }
  int32_t tai_minus_utc_s() const { return tai_minus_utc_s_; }
  bool tai_from_kernel() const { return tai_from_kernel_; }
  // CLOCK_REALTIME steps seen (the fit restarted).
  uint64_t steps() const { return correlator_.stats().steps; }
  // Half-width of the latest anchor's bracket, ns.
  double anchor_half_width_ns() const { return anchor_half_width_ns_; }

 private:
  GeneratorClock(servo::RawClock* raw, servo::SystemClockOps* ops,
                 const GeneratorClockOptions& options);
  void Publish(const servo::CorrelationPoint& anchor);

  servo::RawClock* raw_;
  servo::SystemClockOps* ops_;
  GeneratorClockOptions options_;
  servo::ClockCorrelator correlator_;
  int32_t tai_minus_utc_s_ = 37;
  bool tai_from_kernel_ = false;
  double hz_ = 0;
  double anchor_half_width_ns_ = 0;
  core::ClockModel model_;
  core::PublishedClock published_;
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_GENERATOR_CLOCK_H_
