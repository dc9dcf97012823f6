// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/generator_clock.h"

#include <sys/timex.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::bench {

GeneratorClock::GeneratorClock(servo::RawClock* raw, servo::SystemClockOps* ops,
                               const GeneratorClockOptions& options)
    : raw_(raw),
      ops_(ops),
      options_(options),
      correlator_(raw->NominalHz(),
                  {.window_points = options.window_points,
                   .step_threshold_other =
                       static_cast<double>(options.step_threshold_ns)}) {}

absl::StatusOr<std::unique_ptr<GeneratorClock>> GeneratorClock::Create(
    servo::RawClock* raw, servo::SystemClockOps* ops,
    const GeneratorClockOptions& options) {
  if (!(raw->NominalHz() > 0)) {
    return absl::FailedPreconditionError(
        "generator clock: the TSC has no calibrated frequency");
  }
  if (options.window_points < 2 || options.tries < 1) {
    return absl::InvalidArgumentError(
        "generator clock: window_points must be >= 2 and tries >= 1");
  }
  auto clock =
      std::unique_ptr<GeneratorClock>(new GeneratorClock(raw, ops, options));
  struct timex tx {};
  if (ops->ReadTimex(&tx) >= 0 && tx.tai > 0) {
    clock->tai_minus_utc_s_ = tx.tai;
    clock->tai_from_kernel_ = true;
  } else {
    clock->tai_minus_utc_s_ = options.fallback_tai_minus_utc_s;
  }
  if (absl::Status s = clock->Update(); !s.ok()) return s;
  return clock;
}

absl::Status GeneratorClock::Update() {
  const std::optional<servo::CorrelationPoint> p =
      servo::ReadBracketed(*raw_, *ops_, CLOCK_REALTIME, options_.tries);
  if (!p.has_value()) {
    return absl::UnavailableError(absl::StrCat(
        "generator clock: cannot read CLOCK_REALTIME: ", std::strerror(errno)));
  }
  correlator_.Add(*p);
  Publish(*p);
  return absl::OkStatus();
}

void GeneratorClock::Publish(const servo::CorrelationPoint& anchor) {
  const std::optional<servo::CorrelatorFit>& fit = correlator_.fit();
  const double nominal = raw_->NominalHz();
  hz_ = fit.has_value() && fit->other_per_tick > 0 &&
                fit->span_ticks >= options_.min_fit_span_ns * nominal / 1e9
            ? 1e9 / fit->other_per_tick
            : nominal;
  anchor_half_width_ns_ =
      static_cast<double>(anchor.half_width_ticks) * 1e9 / hz_;
  core::ClockModel m;
  m.raw_anchor = anchor.tsc;
  m.tai_anchor = core::TaiNs{static_cast<int64_t>(anchor.other) +
                             int64_t{tai_minus_utc_s_} * core::kNanosPerSecond};
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(hz_);
  m.error_bound_ns = static_cast<int64_t>(anchor_half_width_ns_) + 1;
  m.max_extrapolation_ns = int64_t{3600} * core::kNanosPerSecond;
  m.utc_offset_s = tai_minus_utc_s_;
  m.state = core::SyncState::kLocked;
  m.stratum = 16;  // a client; it serves nobody
  m.generation = model_.generation + 1;
  model_ = m;
  published_.Write(m);
}

}  // namespace zg::bench
