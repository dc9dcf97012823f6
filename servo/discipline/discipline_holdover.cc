// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline, the error bound and the state machine: BoundNs predicts the
// bound while tracking (last sample's bound + tracking growth + wander) and
// in holdover (the bound at entry + the holdover frequency's uncertainty);
// AdvanceState (step 4 of Update) drives the HoldoverStateMachine, and
// OnStateChange reports locks and holdover entry/exit, switches the servo to
// the holdover frequency (EnterHoldover, also called by Update to coast) and
// forgets the servo's state on FREERUN. HoldoverInSpecLeftS predicts how
// long the bound stays within the in-spec limit.
#include <algorithm>
#include <cstdint>

#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/clock_discipline_internal.h"

namespace zg::servo {

using core::SyncState;
using internal::InHoldover;
using internal::kUnboundedNs;
using internal::ToNs;
using internal::Tracking;

double ClockDiscipline::FrequencyUncertaintyPpb() const {
  const FrequencyEstimate& est = estimator_.estimate();
  if (!est.valid) return config_.initial_frequency_tolerance_ppb;
  return LearnedFrequencyUncertaintyPpb(config_.oscillator, config_.environment,
                                        est.stderr_ppb, est.dof, est.span_s);
}

double ClockDiscipline::BoundNs(uint64_t raw, double dt_s) const {
  if (!have_sample_) return -1;
  const double tau_k = std::max(0.0, SecondsBetween(sample_raw_, raw) + dt_s);
  const double wander =
      WanderNs(config_.oscillator, config_.environment, tau_k);
  if (!in_holdover_) {
    return sample_bound_ns_ + track_growth_ppb_ * tau_k + wander;
  }
  const double tau_h = std::max(0.0, SecondsBetween(holdover_raw_, raw) + dt_s);
  return holdover_bound_ns_ + holdover_freq_unc_ppb_ * tau_h +
         std::max(0.0, wander - holdover_wander0_ns_);
}

void ClockDiscipline::AdvanceState(uint64_t raw_now, bool reacquire) {
  HoldoverInputs in;
  in.reference_available =
      have_sample_ && SecondsBetween(sample_raw_, raw_now) <=
                          static_cast<double>(config_.source_timeout_ns) * 1e-9;
  in.servo_stable = servo_->state() == ServoState::kLockedStable;
  in.reacquire = reacquire;
  in.bound_ns = have_sample_ ? ToNs(BoundNs(raw_now)) : kUnboundedNs;
  const SyncState from = machine_.state();
  const SyncState to = machine_.Update(in);
  if (from != to) OnStateChange(raw_now, from, to);
}

void ClockDiscipline::EnterHoldover(uint64_t raw_now) {
  if (in_holdover_ || !have_sample_) return;
  const double bound = BoundNs(raw_now);
  const FrequencyEstimate& est = estimator_.estimate();
  const double freq = est.valid ? est.ppb : servo_->FrequencyEstimatePpb();
  holdover_freq_unc_ppb_ = FrequencyUncertaintyPpb();
  holdover_bound_ns_ = bound;
  holdover_wander0_ns_ =
      WanderNs(config_.oscillator, config_.environment,
               std::max(0.0, SecondsBetween(sample_raw_, raw_now)));
  holdover_raw_ = raw_now;
  in_holdover_ = true;
  servo_->Holdover(raw_now, freq);
}

void ClockDiscipline::OnStateChange(uint64_t raw_now, SyncState from,
                                    SyncState to) {
  EventKind kind = EventKind::kStateChange;
  if (to == SyncState::kLocked) {
    kind = EventKind::kLocked;
  } else if (Tracking(from) && !Tracking(to)) {
    kind = EventKind::kHoldoverEnter;
    EnterHoldover(raw_now);
    servo_->ResetLock();
  } else if (InHoldover(from) && to == SyncState::kLocking) {
    kind = EventKind::kHoldoverExit;
  }
  if (to == SyncState::kFreerun) {
    // Forget what no longer holds: the next reference starts from scratch
    // (and may step, as at start-up).
    servo_->Reset();
    estimator_.Reset();
    recent_offsets_.clear();
    for (Source& src : sources_) src.outlier.Reset();
  }
  DisciplineEvent e = MakeEvent(kind, raw_now, synced_source_);
  e.from_state = from;
  e.to_state = to;
  e.limit_ns = have_sample_ ? ToNs(BoundNs(raw_now)) : -1;
  Emit(e);
}

double ClockDiscipline::HoldoverInSpecLeftS(uint64_t raw_now) const {
  if (!have_sample_) return -1;
  const double limit = static_cast<double>(config_.holdover.in_spec_limit_ns);
  // The bound `tau` seconds from now, in the holdover that runs (or would
  // begin now): monotonic in tau, so bisection finds where it meets the
  // limit.
  const double f_unc = FrequencyUncertaintyPpb();
  const double bound_now = BoundNs(raw_now);
  auto bound_at = [&](double tau) {
    return in_holdover_
               ? BoundNs(raw_now, tau)
               : HoldoverBoundNs(config_.oscillator, config_.environment,
                                 bound_now, f_unc, tau);
  };
  if (bound_at(0) > limit) return 0;
  if (bound_at(kHoldoverHorizonS) <= limit) return kHoldoverHorizonS;
  double lo = 0, hi = kHoldoverHorizonS;
  for (int i = 0; i < 64 && hi - lo > 1e-3; ++i) {
    const double mid = (lo + hi) / 2;
    if (bound_at(mid) > limit) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return lo;
}

}  // namespace zg::servo
