// SPDX-License-Identifier: Apache-2.0
// ClockAlarms (clock_alarms.h): the control plane's own alarm conditions.
#include "servo/alarms/clock_alarms.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/time/time_format.h"
#include "servo/holdover/holdover.h"
#include "servo/sources/source_health.h"

namespace zg::servo {
namespace {

std::string BoundText(int64_t bound_ns) {
  return bound_ns < 0 ? std::string("unknown") : absl::StrCat(bound_ns, " ns");
}

}  // namespace

void ClockAlarms::AddSources(const std::vector<SourceSnapshot>& sources) {
  for (const SourceSnapshot& s : sources) {
    alarms_->Slot(AlarmId::kSourceFalseticker, s.name);
    alarms_->Slot(AlarmId::kSourceJump, s.name);
    if (s.gnss.has_value()) alarms_->Slot(AlarmId::kGnssSignalLow, s.name);
  }
}

void ClockAlarms::OnEvent(const DisciplineEvent& e,
                          const std::vector<std::string>& names,
                          int64_t mono_ns) {
  auto name = [&](int i) {
    return i >= 0 && i < static_cast<int>(names.size()) ? names[i]
                                                        : std::string("none");
  };
  switch (e.kind) {
    case EventKind::kSourceSwitch:
      // The first selection is not a switch (reference_lost covers it).
      if (e.other_source < 0 || e.source < 0) return;
      alarms_->Notice(
          AlarmId::kReferenceSwitched, "",
          absl::StrCat("reference switched from ", name(e.other_source), " to ",
                       name(e.source)),
          mono_ns);
      return;
    case EventKind::kClockClassChange:
      alarms_->Notice(
          AlarmId::kClockClassChanged, "",
          absl::StrCat("clockClass ", e.from_class, " -> ", e.to_class, " (",
                       SyncStateName(e.to_state), ")"),
          mono_ns);
      return;
    default:
      return;
  }
}

void ClockAlarms::RetireRemovedSources(
    const std::vector<SourceSnapshot>& sources) {
  for (auto it = jumps_.begin(); it != jumps_.end();) {
    const bool present = std::any_of(
        sources.begin(), sources.end(),
        [&](const SourceSnapshot& s) { return s.name == it->first; });
    if (present) {
      ++it;
      continue;
    }
    alarms_->Retire(it->first, absl::StrCat(it->first, " removed"));
    it = jumps_.erase(it);
  }
}

void ClockAlarms::Update(const ControlPlaneStatus& st, core::UtcNs now_utc,
                         int64_t mono_ns) {
  const core::SyncState state = st.discipline.state;
  const std::string bound = BoundText(st.discipline.bound_ns);
  const bool synced = state == core::SyncState::kLocked ||
                      state == core::SyncState::kHoldoverInSpec;
  alarms_->Set(
      AlarmId::kNotSynchronized, "", !synced,
      synced ? absl::StrCat("time synchronised (", SyncStateName(state),
                            ", bound ", bound, ")")
             : absl::StrCat("time not synchronised: ", SyncStateName(state),
                            ", bound ", bound),
      mono_ns);

  std::vector<std::string> down;
  std::string up;
  for (const SourceSnapshot& s : st.sources) {
    if (s.discipline.up) {
      if (up.empty()) up = s.name;
    } else {
      down.push_back(s.problem.empty() ? s.name
                                       : absl::StrCat(s.name, ": ", s.problem));
    }
  }
  alarms_->Set(AlarmId::kReferenceLost, "", up.empty(),
               up.empty() ? absl::StrCat("reference lost: no sample within "
                                         "the source timeout (",
                                         absl::StrJoin(down, "; "), ")")
                          : absl::StrCat("reference regained: ", up),
               mono_ns);

  RetireRemovedSources(st.sources);
  for (const SourceSnapshot& s : st.sources) {
    alarms_->Set(
        AlarmId::kSourceFalseticker, s.name, s.discipline.falseticker,
        s.discipline.falseticker
            ? absl::StrCat(s.name, " rejected as a falseticker: offset ",
                           static_cast<int64_t>(s.discipline.last_offset_ns),
                           " ns misses the majority")
            : absl::StrCat(s.name, " agrees with the majority"),
        mono_ns);
    uint64_t& last_jumps = jumps_[s.name];
    const bool jumped = s.discipline.jumps > last_jumps;
    last_jumps = s.discipline.jumps;
    alarms_->Set(AlarmId::kSourceJump, s.name, s.discipline.suspect,
                 s.discipline.suspect
                     ? absl::StrCat(s.name, " jumps beyond the error bound (",
                                    s.discipline.jumps, " samples rejected)")
                     : absl::StrCat(s.name, " within the error bound again"),
                 mono_ns);
    if (jumped && !s.discipline.suspect) {
      alarms_->Notice(
          AlarmId::kSourceJump, s.name,
          absl::StrCat(s.name, " sample rejected: offset ",
                       static_cast<int64_t>(s.discipline.last_offset_ns),
                       " ns beyond the error bound"),
          mono_ns);
    }
    if (s.gnss.has_value()) {
      const GnssStatus& g = *s.gnss;
      const bool low = g.connected && g.sky_messages > 0 &&
                       g.satellites_strong < kGnssSignalLowSatellites;
      alarms_->Set(AlarmId::kGnssSignalLow, s.name, low,
                   absl::StrCat(s.name, ": ", g.satellites_strong,
                                " satellite(s) at or above ",
                                static_cast<int>(kGnssStrongDbHz), " dB-Hz, ",
                                g.satellites_seen, " in view, ",
                                g.satellites_used, " used"),
                   mono_ns);
    }
  }

  // Holdover lasts from the loss of a reference the clock was locked to
  // until a reference is back (LOCKING or LOCKED), through out of spec and
  // on into FREERUN: a holdover that ran out is still not exited.
  if (state == core::SyncState::kLocked) locked_once_ = true;
  const bool reacquiring =
      state == core::SyncState::kLocked || state == core::SyncState::kLocking;
  const bool holdover = locked_once_ && !reacquiring;
  alarms_->Set(AlarmId::kHoldover, "", holdover,
               holdover
                   ? absl::StrCat("holdover entered: ", SyncStateName(state),
                                  ", bound ", bound)
                   : absl::StrCat("holdover exited: ", SyncStateName(state)),
               mono_ns);
  const bool out = holdover && (state == core::SyncState::kHoldoverOutOfSpec ||
                                state == core::SyncState::kFreerun);
  alarms_->Set(AlarmId::kHoldoverOutOfSpec, "", out,
               out ? absl::StrCat("holdover out of spec: ",
                                  SyncStateName(state), ", bound ", bound)
                   : absl::StrCat("holdover not out of spec (",
                                  SyncStateName(state), ")"),
               mono_ns);

  const core::TaiNs now_tai{now_utc.value +
                            int64_t{st.model.utc_offset_s} * 1'000'000'000};
  const core::LeapPending leap = st.model.LeapAnnouncedAt(now_tai);
  alarms_->Set(
      AlarmId::kLeapSecondAnnounced, "", leap != core::LeapPending::kNone,
      leap == core::LeapPending::kNone
          ? std::string("no leap second announced")
          : absl::StrCat(
                leap == core::LeapPending::kInsert ? "inserted" : "deleted",
                " leap second at ", core::FormatTai(st.model.leap_at)),
      mono_ns);
  const int64_t left = st.leap_table_expiry.value - now_utc.value;
  alarms_->Set(AlarmId::kLeapTableExpiring, "", left < kExpiryWarningNs,
               absl::StrCat("leap-second table (", st.leap_table, ") ",
                            left < 0 ? "expired " : "expires ",
                            core::FormatUtc(st.leap_table_expiry)),
               mono_ns);
}

}  // namespace zg::servo
