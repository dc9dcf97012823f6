// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline, per-source sample intake and health: AddSamples (called by
// the control thread after each source's Poll) validates a poll's samples,
// keeps the least uncertain one, and passes it through the jump/spoof gate
// and the popcorn filter into the source's pending queue; UpdateHealth (step
// 1 of Update) marks sources up or down by the age of their latest sample.
#include <cmath>
#include <cstdint>

#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/clock_discipline_internal.h"

namespace zg::servo {

using core::SyncState;
using internal::kMaxPending;
using internal::ToNs;

namespace {

// Samples outside these are invalid: before 2000-01-01 TAI or beyond 2^62 ns
// (year 2116), or claiming more than ~11.6 days of uncertainty. The margins
// keep every difference of two valid times far from int64 overflow.
constexpr int64_t kMinValidTaiNs = 946'684'800LL * 1'000'000'000;
constexpr int64_t kMaxValidTaiNs = int64_t{1} << 62;
constexpr int64_t kMaxUncertaintyNs = 1'000'000'000'000'000;

bool ValidSample(const ReferenceSample& s) {
  return s.uncertainty_ns >= 0 && s.uncertainty_ns <= kMaxUncertaintyNs &&
         s.reference_tai.value >= kMinValidTaiNs &&
         s.reference_tai.value <= kMaxValidTaiNs;
}

}  // namespace

void ClockDiscipline::AddSamples(int source,
                                 absl::Span<const ReferenceSample> samples) {
  if (!Configured(source)) return;
  Source& src = sources_[source];
  const ReferenceSample* best = nullptr;
  for (const ReferenceSample& s : samples) {
    if (!ValidSample(s) || !PlausibleRaw(s.raw_ticks)) {
      ++src.status.invalid;
      DisciplineEvent e =
          MakeEvent(EventKind::kSampleRejected, s.raw_ticks, source);
      e.reason = RejectReason::kInvalid;
      e.limit_ns = s.uncertainty_ns;
      Emit(e);
      continue;
    }
    if (best == nullptr || s.uncertainty_ns < best->uncertainty_ns) best = &s;
  }
  if (best == nullptr) return;
  ++src.status.samples;
  src.has_latest = true;  // the source is alive, whatever we make of it
  src.latest = *best;
  src.status.last_uncertainty_ns = best->uncertainty_ns;
  src.status.last_sample_tai = best->taken_at;
  if (!servo_->initialized()) {
    src.pending.assign(1, *best);  // the first sample sets the clock
    return;
  }
  const double offset =
      servo_->model().OffsetNs(best->raw_ticks, best->reference_tai);
  if (src.has_offset) {
    const double d = offset - src.status.last_offset_ns;
    const double var = src.status.jitter_ns * src.status.jitter_ns;
    src.status.jitter_ns = std::sqrt(var + (d * d - var) / 8);
  }
  src.has_offset = true;
  src.status.last_offset_ns = offset;
  if (!PassesJumpGate(source, *best, offset)) return;
  const bool gate = machine_.state() == SyncState::kLocked;
  if (src.outlier.Check(offset, best->uncertainty_ns, gate) ==
      FilterVerdict::kOutlier) {
    ++src.status.outliers;
    DisciplineEvent e =
        MakeEvent(EventKind::kSampleRejected, best->raw_ticks, source);
    e.reason = RejectReason::kOutlier;
    e.offset_ns = ToNs(offset);
    e.limit_ns = ToNs(src.outlier.GateNs() + best->uncertainty_ns);
    Emit(e);
    return;
  }
  if (src.pending.size() >= kMaxPending) src.pending.erase(src.pending.begin());
  src.pending.push_back(*best);
}

bool ClockDiscipline::PassesJumpGate(int source, const ReferenceSample& s,
                                     double offset) {
  Source& src = sources_[source];
  const bool selected = source == selector_.selected();
  if (selected && bypass_gate_) return true;
  const int64_t bound = machine_.state() == SyncState::kFreerun
                            ? -1
                            : ToNs(std::ceil(BoundNs(s.raw_ticks)));
  const GateResult gate =
      CheckJump(offset, s.uncertainty_ns, bound, config_.jump);
  if (gate.accept) {
    src.gate_failures = 0;
    return true;
  }
  ++src.gate_failures;
  ++src.status.jumps;
  DisciplineEvent e =
      MakeEvent(EventKind::kSampleRejected, s.raw_ticks, source);
  e.reason = RejectReason::kJump;
  e.offset_ns = ToNs(offset);
  e.limit_ns = gate.limit_ns;
  Emit(e);
  // The source the model follows (even if its failures got it deselected)
  // may, by explicit configuration, be followed across the jump.
  const bool followed = selected || source == synced_source_;
  if (!followed || config_.jump_accept_after == 0 ||
      src.gate_failures < config_.jump_accept_after) {
    return false;
  }
  Reacquire();  // explicitly configured: follow the jumped reference
  return true;
}

void ClockDiscipline::UpdateHealth(uint64_t raw_now) {
  const double timeout_s =
      static_cast<double>(config_.source_timeout_ns) * 1e-9;
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    Source& src = sources_[i];
    if (src.removed) {  // gone without a source_down: it was removed
      src.status.up = false;
      continue;
    }
    const bool up = src.has_latest &&
                    SecondsBetween(src.latest.raw_ticks, raw_now) <= timeout_s;
    if (up == src.status.up) continue;
    src.status.up = up;
    Emit(MakeEvent(up ? EventKind::kSourceUp : EventKind::kSourceDown, raw_now,
                   i));
  }
}

}  // namespace zg::servo
