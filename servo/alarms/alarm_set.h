// SPDX-License-Identifier: Apache-2.0
// AlarmSet: the state of every alarm (alarm_catalog.h) of one zeitgeberd —
// raised or cleared, since when, with a human message — and the ordered
// stream of raise/clear events that the audit log, the metrics, the SNMP
// traps, `zgctl alarms` and the status page all take from it, so they can
// never disagree.
//
// An alarm is a catalogue entry plus an instance ("" for the singletons, a
// source, port or worker name for the others); each gets a stable row (its
// slot, ZEITGEBER-MIB's zgAlarmIndex - 1) the first time it is named.
// Inputs are conditions, not transitions: Set(id, instance, condition,
// message) says whether the condition holds now; Notice() says an event
// happened now (a switch, a class change). Evaluate() applies each alarm's
// hysteresis (raise_after/clear_after) at a monotonic time and stamps the
// transitions it makes with one TAI/UTC instant.
//
//   AlarmSet alarms({});
//   alarms.Set(AlarmId::kLinkDown, "port0", !link_up, "link down", mono_ns);
//   for (const AlarmEvent& e : alarms.Evaluate(mono_ns, tai, utc)) audit(e);
//   publish(alarms.Table());
//
// Control thread only. Readers on other threads see Table() copies the
// control thread publishes (servo/control/snapshot_cell.h).
#ifndef ZG_SERVO_ALARMS_ALARM_SET_H_
#define ZG_SERVO_ALARMS_ALARM_SET_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time/time_types.h"
#include "servo/alarms/alarm_catalog.h"

namespace zg::servo {

struct AlarmEvent {
  uint64_t seq = 0;  // 1, 2, ... in the order the transitions were made
  int slot = -1;     // the alarm's row
  AlarmId id = AlarmId::kNotSynchronized;
  std::string instance;
  AlarmSeverity severity = AlarmSeverity::kInfo;
  bool raised = false;  // false: cleared
  core::TaiNs tai;      // when (the served time at the transition)
  core::UtcNs utc;      // the same instant in UTC
  std::string message;
};

struct AlarmRow {
  int slot = -1;
  AlarmId id = AlarmId::kNotSynchronized;
  std::string instance;
  AlarmSeverity severity = AlarmSeverity::kInfo;
  bool active = false;
  // The last raise or clear (0 before the first raise).
  core::TaiNs since_tai;
  core::UtcNs since_utc;
  std::string message;  // of that transition
  uint64_t raises = 0;  // times raised since start
  // Its source, port or worker is gone (Retire): the row keeps its slot (a
  // stable MIB index, reused if the instance comes back) but is not listed.
  bool retired = false;
};

// What readers on other threads get: every row, and the latest events.
struct AlarmTable {
  std::vector<AlarmRow> rows;     // by slot
  std::deque<AlarmEvent> recent;  // the last Options::recent_events, by seq
  uint64_t last_seq = 0;          // seq of the newest event (0: none yet)
  int ActiveCount() const;
};

struct AlarmHysteresis {
  int64_t raise_after_ns = 0;
  int64_t clear_after_ns = 0;
};

class AlarmSet {
 public:
  struct Options {
    // Per-alarm hysteresis instead of the catalogue's.
    std::map<AlarmId, AlarmHysteresis> hysteresis;
    size_t recent_events = 256;
  };

  explicit AlarmSet(Options options);

  // The alarm's row, created (cleared) if new.
  int Slot(AlarmId id, std::string_view instance = "");
  // The condition holds (or not) as of mono_ns; `message` says what it is
  // (it becomes the message of the raise, or of the clear).
  void Set(AlarmId id, std::string_view instance, bool condition,
           std::string_view message, int64_t mono_ns);
  // An event happened at mono_ns: the alarm is raised (after raise_after)
  // and cleared clear_after after the last notice.
  void Notice(AlarmId id, std::string_view instance, std::string_view message,
              int64_t mono_ns);
  // `instance` (a source, port or worker) is gone: the next Evaluate clears
  // its active alarms at once, whatever their hysteresis, with `message`,
  // and retires their rows until a Set or Notice names it again.
  void Retire(std::string_view instance, std::string_view message);

  // Makes the transitions due at mono_ns (in slot order), stamps them
  // tai/utc and returns them.
  std::vector<AlarmEvent> Evaluate(int64_t mono_ns, core::TaiNs tai,
                                   core::UtcNs utc);

  AlarmTable Table() const;
  const AlarmHysteresis& hysteresis(AlarmId id) const;

 private:
  struct State {
    AlarmRow row;
    bool condition = false;
    bool notice = false;          // the condition is a notice's hold
    int64_t changed_mono_ns = 0;  // when `condition` last changed
    int64_t last_notice_mono_ns = 0;
    std::string pending_message;
    bool retiring = false;  // Retire: clear now, then retire the row
  };

  Options options_;
  std::vector<AlarmHysteresis> hysteresis_;  // by AlarmId - 1
  std::vector<State> states_;
  std::map<std::pair<AlarmId, std::string>, int, std::less<>> slots_;
  std::deque<AlarmEvent> recent_;
  uint64_t seq_ = 0;
};

// Parses --alarm_hysteresis: "NAME=RAISE/CLEAR[,NAME=RAISE/CLEAR...]" with
// abseil durations ("holdover=0s/0s,gnss_signal_low=10s/30s").
absl::StatusOr<std::map<AlarmId, AlarmHysteresis>> ParseAlarmHysteresis(
    std::string_view text);

}  // namespace zg::servo

#endif  // ZG_SERVO_ALARMS_ALARM_SET_H_
