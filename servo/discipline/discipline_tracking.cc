// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline, tracking (step 3 of Update): ProcessPending feeds the
// selected source's pending samples to the servo; Accept starts or steers the
// servo (reporting steps), feeds the frequency estimator, and records what the
// error bound and the published quality need (last sample, tracking growth,
// recent bounds and offsets). Reacquire (from the jump gate or the selection)
// restarts the servo as at start-up.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/clock_discipline_internal.h"

namespace zg::servo {

using internal::ToNs;

void ClockDiscipline::Reacquire() {
  servo_->Reset();
  estimator_.Reset();
  recent_offsets_.clear();
  bypass_gate_ = true;
  reacquire_pending_ = true;
  for (Source& src : sources_) {
    src.gate_failures = 0;
    src.outlier.Reset();
  }
}

void ClockDiscipline::ProcessPending() {
  const int selected = selector_.selected();
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    if (i == selected) {
      for (const ReferenceSample& s : sources_[i].pending) {
        // Older than what the servo already has (e.g. after a switch): skip.
        if (have_sample_ &&
            static_cast<int64_t>(s.raw_ticks - sample_raw_) <= 0) {
          continue;
        }
        Accept(i, s);
      }
    }
    sources_[i].pending.clear();
  }
}

void ClockDiscipline::Accept(int source, const ReferenceSample& s) {
  Source& src = sources_[source];
  ServoState st;
  double offset = 0;
  if (!servo_->initialized()) {
    servo_->Start(s.raw_ticks, s.reference_tai, s.uncertainty_ns);
    st = ServoState::kJump;
  } else {
    offset = servo_->model().OffsetNs(s.raw_ticks, s.reference_tai);
    st = servo_->Sample({s.raw_ticks, offset, s.uncertainty_ns});
  }
  const double after = servo_->model().OffsetNs(s.raw_ticks, s.reference_tai);
  if (st == ServoState::kJump) {
    ++status_.steps;
    DisciplineEvent e = MakeEvent(EventKind::kStep, s.raw_ticks, source);
    e.offset_ns = ToNs(after - offset);
    Emit(e);
  }
  estimator_.Add(s.raw_ticks, s.reference_tai, s.uncertainty_ns);
  have_sample_ = true;
  in_holdover_ = false;
  bypass_gate_ = false;
  sample_raw_ = s.raw_ticks;
  sample_bound_ns_ = std::fabs(after) + static_cast<double>(s.uncertainty_ns);
  track_growth_ppb_ =
      estimator_.estimate().valid
          ? std::fabs(servo_->frequency_ppb() - estimator_.estimate().ppb) +
                FrequencyUncertaintyPpb()
          : config_.initial_frequency_tolerance_ppb;
  synced_source_ = source;
  reference_time_ = s.reference_tai;
  ++src.status.accepted;
  if (recent_bounds_.size() < static_cast<size_t>(config_.accuracy_window)) {
    recent_bounds_.push_back(sample_bound_ns_);
  } else {
    recent_bounds_[bounds_next_] = sample_bound_ns_;
  }
  bounds_next_ =
      (bounds_next_ + 1) % static_cast<size_t>(config_.accuracy_window);
  recent_offsets_.push_back(after);
  if (recent_offsets_.size() > static_cast<size_t>(config_.variance_window)) {
    recent_offsets_.erase(recent_offsets_.begin());
  }
}

}  // namespace zg::servo
