// SPDX-License-Identifier: Apache-2.0
// AlarmSet (alarm_set.h): rows, hysteresis and the event stream.
#include "servo/alarms/alarm_set.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"

namespace zg::servo {

int AlarmTable::ActiveCount() const {
  return static_cast<int>(std::count_if(
      rows.begin(), rows.end(), [](const AlarmRow& r) { return r.active; }));
}

AlarmSet::AlarmSet(Options options) : options_(std::move(options)) {
  for (int i = 0; i < kAlarmDefCount; ++i) {
    const AlarmDef& d = AlarmDefs()[i];
    hysteresis_.push_back({d.raise_after_ns, d.clear_after_ns});
  }
  for (const auto& [id, h] : options_.hysteresis) {
    hysteresis_[static_cast<int>(id) - 1] = h;
  }
  // The singletons have their rows from the start, so every table shows
  // them (cleared) before they are first raised.
  for (int i = 0; i < kAlarmDefCount; ++i) {
    if (!AlarmDefs()[i].per_instance) Slot(AlarmDefs()[i].id);
  }
}

const AlarmHysteresis& AlarmSet::hysteresis(AlarmId id) const {
  return hysteresis_[static_cast<int>(id) - 1];
}

int AlarmSet::Slot(AlarmId id, std::string_view instance) {
  const auto key = std::make_pair(id, std::string(instance));
  if (auto it = slots_.find(key); it != slots_.end()) return it->second;
  State s;
  s.row.slot = static_cast<int>(states_.size());
  s.row.id = id;
  s.row.instance = std::string(instance);
  s.row.severity = AlarmDefOf(id).severity;
  states_.push_back(std::move(s));
  slots_.emplace(key, states_.back().row.slot);
  return states_.back().row.slot;
}

void AlarmSet::Set(AlarmId id, std::string_view instance, bool condition,
                   std::string_view message, int64_t mono_ns) {
  State& s = states_[Slot(id, instance)];
  if (condition != s.condition || s.notice) s.changed_mono_ns = mono_ns;
  s.condition = condition;
  s.notice = false;
  s.retiring = false;
  s.row.retired = false;
  s.pending_message = std::string(message);
}

void AlarmSet::Retire(std::string_view instance, std::string_view message) {
  for (State& s : states_) {
    if (s.row.instance != instance || s.row.retired) continue;
    s.condition = false;
    s.notice = false;
    s.retiring = true;
    s.pending_message = std::string(message);
  }
}

void AlarmSet::Notice(AlarmId id, std::string_view instance,
                      std::string_view message, int64_t mono_ns) {
  State& s = states_[Slot(id, instance)];
  s.condition = true;
  s.notice = true;
  s.retiring = false;
  s.row.retired = false;
  s.changed_mono_ns = mono_ns;
  s.last_notice_mono_ns = mono_ns;
  s.pending_message = std::string(message);
}

std::vector<AlarmEvent> AlarmSet::Evaluate(int64_t mono_ns, core::TaiNs tai,
                                           core::UtcNs utc) {
  std::vector<AlarmEvent> out;
  for (State& s : states_) {
    const AlarmHysteresis& h = hysteresis(s.row.id);
    const int64_t held = mono_ns - s.changed_mono_ns;
    bool transition = false;
    if (!s.row.active && s.condition &&
        (s.notice || held >= h.raise_after_ns)) {
      s.row.active = true;
      ++s.row.raises;
      transition = true;
    } else if (s.row.active && !s.condition &&
               (s.retiring || held >= h.clear_after_ns)) {
      s.row.active = false;
      transition = true;
    }
    if (transition) {
      s.row.since_tai = tai;
      s.row.since_utc = utc;
      if (s.row.active || !s.pending_message.empty()) {
        s.row.message = s.pending_message;
      }
    }
    if (s.retiring) {
      s.retiring = false;
      s.row.retired = true;
    }
    if (s.notice) {
      // A notice holds only at its instant; the alarm clears clear_after
      // after the last one.
      s.condition = false;
      s.notice = false;
      s.changed_mono_ns = s.last_notice_mono_ns;
      if (s.row.active) {
        s.pending_message = absl::StrCat(
            s.pending_message, " (cleared: no recurrence for ",
            absl::FormatDuration(absl::Nanoseconds(h.clear_after_ns)), ")");
      }
    }
    if (!transition) continue;
    AlarmEvent e;
    e.seq = ++seq_;
    e.slot = s.row.slot;
    e.id = s.row.id;
    e.instance = s.row.instance;
    e.severity = s.row.severity;
    e.raised = s.row.active;
    e.tai = tai;
    e.utc = utc;
    e.message = s.row.message;
    recent_.push_back(e);
    while (recent_.size() > options_.recent_events) recent_.pop_front();
    out.push_back(std::move(e));
  }
  return out;
}

AlarmTable AlarmSet::Table() const {
  AlarmTable t;
  t.rows.reserve(states_.size());
  for (const State& s : states_) t.rows.push_back(s.row);
  t.recent = recent_;
  t.last_seq = seq_;
  return t;
}

absl::StatusOr<std::map<AlarmId, AlarmHysteresis>> ParseAlarmHysteresis(
    std::string_view text) {
  std::map<AlarmId, AlarmHysteresis> out;
  if (text.empty()) return out;
  for (absl::string_view item :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',')) {
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    const std::optional<AlarmId> id =
        AlarmIdNamed(std::string_view(kv.first.data(), kv.first.size()));
    if (!id) {
      return absl::InvalidArgumentError(
          absl::StrCat("--alarm_hysteresis: no alarm named '", kv.first,
                       "' (the names are in doc/alarms.md)"));
    }
    const std::pair<absl::string_view, absl::string_view> rc =
        absl::StrSplit(kv.second, absl::MaxSplits('/', 1));
    absl::Duration raise, clear;
    if (!absl::ParseDuration(rc.first, &raise) ||
        !absl::ParseDuration(rc.second, &clear) ||
        raise < absl::ZeroDuration() || clear < absl::ZeroDuration() ||
        raise > absl::Hours(24) || clear > absl::Hours(24)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--alarm_hysteresis: '", item,
          "' is not NAME=RAISE/CLEAR with durations of 0s..24h (e.g. "
          "gnss_signal_low=10s/30s)"));
    }
    out[*id] = {absl::ToInt64Nanoseconds(raise),
                absl::ToInt64Nanoseconds(clear)};
  }
  return out;
}

}  // namespace zg::servo
