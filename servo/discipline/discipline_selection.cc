// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline, source selection (step 2 of Update): builds one
// SelectionCandidate per source from its latest sample (interval widened with
// the sample's age), runs the SourceSelector (priorities, falsetickers,
// hysteresis), records the verdicts in each SourceStatus, and reports
// falsetickers, source switches and a majority that out-votes the model
// (re-acquiring if DisciplineConfig::follow_outvoting_majority). Removed and
// disabled sources are candidates that can neither be selected nor vote.
#include <algorithm>
#include <cstdint>

#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/clock_discipline_internal.h"

namespace zg::servo {

using core::SyncState;
using internal::ToNs;

void ClockDiscipline::RunSelection(uint64_t raw_now) {
  const double phi =
      std::max(config_.selection_phi_ppb,
               have_sample_ ? track_growth_ppb_
                            : config_.initial_frequency_tolerance_ppb);
  candidates_.clear();
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    const Source& src = sources_[i];
    SelectionCandidate c;
    c.id = i;
    c.priority = src.info.priority;
    c.stratum = src.info.stratum;
    // Removed and disabled sources (an operator's change) take no part.
    const bool active = !src.removed && src.status.enabled;
    c.usable = active && src.status.up &&
               src.gate_failures < config_.jump_suspect_after;
    if (active && src.status.up && src.has_latest && servo_->initialized()) {
      c.votes = true;
      c.offset_ns = servo_->model().OffsetNs(src.latest.raw_ticks,
                                             src.latest.reference_tai);
      const double age =
          std::max(0.0, SecondsBetween(src.latest.raw_ticks, raw_now));
      c.half_width_ns =
          static_cast<double>(src.latest.uncertainty_ns) + age * phi;
    }
    candidates_.push_back(c);
  }
  const int64_t model_bound =
      have_sample_ && machine_.state() != SyncState::kFreerun
          ? ToNs(BoundNs(raw_now))
          : -1;
  const SelectionResult r = selector_.Select(candidates_, model_bound);
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    Source& src = sources_[i];
    const bool ft = std::find(r.falsetickers.begin(), r.falsetickers.end(),
                              i) != r.falsetickers.end();
    if (ft && !src.status.falseticker) {
      DisciplineEvent e = MakeEvent(EventKind::kFalseticker, raw_now, i);
      e.offset_ns = ToNs(candidates_[i].offset_ns);
      e.limit_ns = ToNs(candidates_[i].half_width_ns);
      Emit(e);
    }
    src.status.falseticker = ft;
    src.status.suspect = src.gate_failures >= config_.jump_suspect_after;
    src.status.selected = i == r.selected;
  }
  if (r.switched) {
    DisciplineEvent e =
        MakeEvent(EventKind::kSourceSwitch, raw_now, r.selected);
    e.other_source = r.previous;
    Emit(e);
  }
  if (r.model_outvoted && !outvoted_) {
    DisciplineEvent e =
        MakeEvent(EventKind::kModelOutvoted, raw_now, r.selected);
    e.offset_ns = ToNs((r.intersection.lo + r.intersection.hi) / 2);
    e.limit_ns = model_bound;
    Emit(e);
    if (config_.follow_outvoting_majority) Reacquire();
  }
  outvoted_ = r.model_outvoted;
}

}  // namespace zg::servo
