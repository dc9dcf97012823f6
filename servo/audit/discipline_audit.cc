// SPDX-License-Identifier: Apache-2.0
#include "servo/audit/discipline_audit.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "servo/holdover/holdover.h"

namespace zg::servo {
namespace {

std::string SourceName(const ClockDiscipline& d, int source) {
  if (source < 0 || source >= d.source_count()) return "";
  return d.source_info(source).name;
}

AuditEvent StateEvent(EventKind kind) {
  switch (kind) {
    case EventKind::kLocked:
      return AuditEvent::kLock;
    case EventKind::kHoldoverEnter:
      return AuditEvent::kHoldoverEnter;
    case EventKind::kHoldoverExit:
      return AuditEvent::kHoldoverExit;
    default:
      return AuditEvent::kStateChange;
  }
}

}  // namespace

bool DisciplineAudit::Admit(int source, RejectReason reason, int64_t mono_ns,
                            uint64_t* suppressed) {
  auto [it, first] =
      limits_.try_emplace({source, static_cast<int>(reason)}, Limit{});
  Limit& l = it->second;
  if (!first && mono_ns - l.last_mono_ns < options_.reject_interval_ns) {
    ++l.suppressed;
    ++suppressed_total_;
    return false;
  }
  *suppressed = l.suppressed;
  l.suppressed = 0;
  l.last_mono_ns = mono_ns;
  return true;
}

std::optional<AuditRecord> DisciplineAudit::Convert(const DisciplineEvent& e,
                                                    const ClockDiscipline& d,
                                                    core::TaiNs fallback_tai,
                                                    int64_t mono_ns) {
  AuditRecord r;
  r.tai = e.tai.value != 0 ? e.tai : fallback_tai;
  r.source = SourceName(d, e.source);
  switch (e.kind) {
    case EventKind::kSourceUp:
    case EventKind::kSourceDown:
      r.event = e.kind == EventKind::kSourceUp ? AuditEvent::kSourceUp
                                               : AuditEvent::kSourceDown;
      r.old_state = e.kind == EventKind::kSourceUp ? "down" : "up";
      r.new_state = e.kind == EventKind::kSourceUp ? "up" : "down";
      break;
    case EventKind::kSourceSwitch: {
      r.event = AuditEvent::kSelectionSwitch;
      const std::string before = SourceName(d, e.other_source);
      r.old_state = before.empty() ? "none" : before;
      r.new_state = r.source.empty() ? "none" : r.source;
      break;
    }
    case EventKind::kStateChange:
    case EventKind::kLocked:
    case EventKind::kHoldoverEnter:
    case EventKind::kHoldoverExit:
      r.event = StateEvent(e.kind);
      r.old_state = SyncStateName(e.from_state);
      r.new_state = SyncStateName(e.to_state);
      r.values.push_back({"bound_ns", e.limit_ns});
      break;
    case EventKind::kClockClassChange:
      r.event = AuditEvent::kClassChange;
      r.old_state = absl::StrCat(e.from_class);
      r.new_state = absl::StrCat(e.to_class);
      r.values.push_back({"state", std::string(SyncStateName(e.to_state))});
      r.values.push_back({"bound_ns", e.limit_ns});
      break;
    case EventKind::kSampleRejected: {
      uint64_t suppressed = 0;
      if (!Admit(e.source, e.reason, mono_ns, &suppressed)) return std::nullopt;
      r.event = AuditEvent::kSampleRejected;
      r.values.push_back({"reason", std::string(RejectReasonName(e.reason))});
      r.values.push_back({"offset_ns", e.offset_ns});
      r.values.push_back({"limit_ns", e.limit_ns});
      r.values.push_back({"suppressed", static_cast<int64_t>(suppressed)});
      break;
    }
    case EventKind::kFalseticker:
      r.event = AuditEvent::kFalseticker;
      r.values.push_back({"offset_ns", e.offset_ns});
      r.values.push_back({"half_width_ns", e.limit_ns});
      break;
    case EventKind::kStep:
      r.event = AuditEvent::kStep;
      r.values.push_back({"step_ns", e.offset_ns});
      // The first one sets the time from nothing: there is no step size.
      r.values.push_back({"initial", !stepped_});
      stepped_ = true;
      break;
    case EventKind::kModelOutvoted:
      r.event = AuditEvent::kModelOutvoted;
      r.values.push_back({"majority_offset_ns", e.offset_ns});
      r.values.push_back({"bound_ns", e.limit_ns});
      break;
  }
  return r;
}

}  // namespace zg::servo
