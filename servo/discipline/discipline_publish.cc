// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline, publication (the last step of Update): builds the
// core::ClockModel the control thread publishes to the workers — anchor and
// rate from the servo, error bound, growth and maximum extrapolation from
// BoundNs, stratum, refid, PTP clockClass/accuracy/variance, time source,
// traceability and leap fields — reports clockClass changes, and fills in
// the DisciplineStatus.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/clock_discipline_internal.h"
#include "servo/sources/refid.h"

namespace zg::servo {

using core::SyncState;
using internal::kUnboundedNs;
using internal::ToNs;
using internal::Tracking;

double ClockDiscipline::MaxExtrapolationS(uint64_t raw_now,
                                          double bound_now) const {
  const SyncState state = machine_.state();
  if (state == SyncState::kFreerun || bound_now < 0) return 0;
  const double in_spec = static_cast<double>(config_.holdover.in_spec_limit_ns);
  const double limit =
      (state == SyncState::kLocked || state == SyncState::kHoldoverInSpec) &&
              bound_now < in_spec
          ? in_spec
          : static_cast<double>(config_.holdover.freerun_limit_ns);
  if (bound_now >= limit) return 0;
  const double max_s = static_cast<double>(config_.max_extrapolation_ns) * 1e-9;
  if (BoundNs(raw_now, max_s) <= limit) return max_s;
  double lo = 0, hi = max_s;  // the bound is increasing in time: bisect
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (BoundNs(raw_now, mid) <= limit ? lo : hi) = mid;
  }
  return lo;
}

void ClockDiscipline::Publish(uint64_t raw_now) {
  const SyncState state = machine_.state();
  core::ClockModel m;
  if (servo_->initialized()) {
    servo_->model().FillClockModel(raw_now, &m);
  } else {
    RateModel(raw_now, core::TaiNs{0}, nominal_ns_per_tick_)
        .FillClockModel(raw_now, &m);
  }
  const double bound = BoundNs(raw_now);
  if (bound < 0) {
    m.error_bound_ns = kUnboundedNs;
  } else {
    const double x = MaxExtrapolationS(raw_now, bound);
    const double horizon = x > 1e-3 ? x : 1.0;
    const double secant = (BoundNs(raw_now, horizon) - bound) / horizon;
    // +1 ns: the anchor's rounding; q32: the rate's rounding.
    m.error_bound_ns = ToNs(std::ceil(bound) + 1);
    m.error_growth_ns_per_s = ToNs(std::ceil(
        secant + RateModel::Q32RoundingPpb(servo_->model().ns_per_tick())));
    m.max_extrapolation_ns = ToNs(x * 1e9);
  }
  m.utc_offset_s = utc_offset_s_;
  m.leap = leap_;
  m.leap_at = leap_at_;
  m.state = state;
  m.precision_log2 = config_.precision_log2;
  const Source* src = synced_source_ >= 0 ? &sources_[synced_source_] : nullptr;
  m.stratum = src ? NtpStratumFor(state, src->info.stratum) : 16;
  m.reference_id = src ? src->info.ntp_refid : NtpRefId("INIT");
  m.root_delay_ns = 0;
  m.reference_time = reference_time_;
  SyncState class_state = state;
  if (state == SyncState::kLocking && machine_.holdover_capable()) {
    class_state =
        bound <= static_cast<double>(config_.holdover.in_spec_limit_ns)
            ? SyncState::kHoldoverInSpec
            : SyncState::kHoldoverOutOfSpec;
  }
  const bool traceable = src && src->info.time_traceable;
  m.ptp_quality.clock_class =
      ClockClassFor(class_state, traceable, config_.oscillator.category,
                    config_.class_policy);
  if (state == SyncState::kFreerun || bound < 0) {
    m.ptp_quality.clock_accuracy = kClockAccuracyUnknown;
    m.ptp_quality.offset_scaled_log_variance = kVarianceUnknown;
  } else {
    double worst = bound;
    if (!in_holdover_) {
      for (double b : recent_bounds_) worst = std::max(worst, b);
    }
    m.ptp_quality.clock_accuracy =
        ClockAccuracyForBound(ToNs(std::ceil(worst)));
    // Floored at 1 ns^2: the timestamps' resolution.
    double tvar = std::max(1.0, TimeVarianceNs2(recent_offsets_));
    if (in_holdover_) {
      const double extra =
          (bound - holdover_bound_ns_) / config_.environment.sigmas;
      tvar += extra * extra;
    }
    m.ptp_quality.offset_scaled_log_variance =
        state == SyncState::kHoldoverOutOfSpec
            ? kVarianceUnknown
            : OffsetScaledLogVariance(tvar * 1e-18);
  }
  const bool usable =
      state == SyncState::kLocked || state == SyncState::kHoldoverInSpec;
  m.ptp_time_source = Tracking(state) && src
                          ? src->info.ptp_time_source
                          : core::PtpTimeSource::kInternalOscillator;
  m.time_traceable = usable && traceable;
  m.frequency_traceable = usable && src && src->info.frequency_traceable;
  m.generation = model_.generation + 1;
  if (status_.updates > 0 &&
      m.ptp_quality.clock_class != model_.ptp_quality.clock_class) {
    DisciplineEvent e =
        MakeEvent(EventKind::kClockClassChange, raw_now, synced_source_);
    e.from_class = model_.ptp_quality.clock_class;
    e.to_class = m.ptp_quality.clock_class;
    e.limit_ns = ToNs(bound);
    Emit(e);
  }
  model_ = m;

  status_.state = state;
  status_.servo_state = servo_->state();
  status_.selected = selector_.selected();
  status_.bound_ns = bound < 0 ? -1 : ToNs(bound);
  status_.frequency_ppb = servo_->frequency_ppb();
  status_.frequency_uncertainty_ppb =
      in_holdover_ ? holdover_freq_unc_ppb_ : FrequencyUncertaintyPpb();
  status_.holdover_s =
      in_holdover_ ? std::max(0.0, SecondsBetween(sample_raw_, raw_now)) : 0.0;
  ++status_.updates;
}

}  // namespace zg::servo
