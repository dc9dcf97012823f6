// SPDX-License-Identifier: Apache-2.0
// AuditLog: the append-only record of every state change of the time
// service — sources going up or down, selection switches, steps, lock,
// holdover, clock-class changes, leap seconds, configuration — as JSON Lines.
//
// One record per line:
//   {"seq":7,"tai_ns":1710072037000000000,
//    "tai":"2024-03-10T12:00:37.000000000 TAI",
//    "utc":"2024-03-10T12:00:00.000000000Z","event":"source_down",
//    "source":"gpsd:127.0.0.1:2947","old":"up","new":"down",
//    "values":{"reason":"no fix","satellites_used":3}}
// (`tai` is the TAI instant in RFC 3339 calendar form; RFC 3339 has no TAI
// offset, hence the " TAI" suffix and the exact `tai_ns`.)
//
// Durability: each record is one write(2) of a whole line to a file opened
// O_APPEND, so a process killed between events leaves only complete lines,
// and what Append returned OK for is in the kernel and survives the process.
// A process killed *inside* a write may leave the unacknowledged record cut
// short (Linux checks for SIGKILL between the page-cache pages a write
// spans); the next Open() truncates such a tail, and a failed write takes
// its partial line back, so the file holds only whole lines. Readers tailing
// the file ignore an unterminated last line. fsync policy: every record, at
// an interval (MaybeSync), or never. Size-based rotation keeps N old files
// (path.1 is the newest). Reopen() re-opens the path after an external
// rotation; the daemon calls it on SIGHUP (from the control thread, not from
// the signal handler).
//
//   ZG_ASSIGN_OR_RETURN(auto log, AuditLog::Open({.path =
//   "/var/log/zg.jsonl"})); log->Append({.tai = now_tai, .utc = now_utc,
//                .event = AuditEvent::kSourceDown, .source = "pps:/dev/pps0",
//                .old_state = "up", .new_state = "down",
//                .values = {{"reason", std::string("no edge for 3 s")}}});
//
// Writer: the control thread only (not thread-safe).
#ifndef ZG_SERVO_AUDIT_LOG_H_
#define ZG_SERVO_AUDIT_LOG_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/time/time_types.h"

namespace zg::servo {

enum class AuditEvent : uint8_t {
  kStart,
  kStop,
  kSourceUp,
  kSourceDown,
  kSelectionSwitch,
  kSampleRejected,
  kStep,
  kLock,
  kHoldoverEnter,
  kHoldoverExit,
  kClassChange,
  kLeapScheduled,
  kLeapApplied,
  kConfigChange,
  kStateChange,    // any other SyncState change (e.g. holdover out of spec)
  kFalseticker,    // a source out-voted by the others
  kModelOutvoted,  // the sources' majority excludes the served time
  kSourceHealth,   // a source's own health (up/degraded/down) changed
  kSourceChange,   // a source added, removed, replaced, re-prioritised,
                   // enabled or disabled while running (or refused)
  kAlarmRaised,    // servo/alarms/alarm_set.h
  kAlarmCleared,
  kAccessDenied,  // an operator surface refused a login (the status
                  // page); the last: kAuditEventCount
};
inline constexpr int kAuditEventCount =
    static_cast<int>(AuditEvent::kAccessDenied) + 1;
// "start", "stop", "source_up", "source_down", "selection_switch",
// "sample_rejected", "step", "lock", "holdover_enter", "holdover_exit",
// "class_change", "leap_scheduled", "leap_applied", "config_change",
// "state_change", "falseticker", "model_outvoted", "source_health",
// "source_change", "alarm_raised", "alarm_cleared", "access_denied".
const char* AuditEventName(AuditEvent e);

using AuditValue = std::variant<int64_t, double, bool, std::string>;

struct AuditRecord {
  core::TaiNs tai;  // when the event happened
  core::UtcNs utc;  // the same instant in UTC (the caller's leap table)
  AuditEvent event = AuditEvent::kStart;
  std::string source;     // empty when not about a source
  std::string old_state;  // empty when not a transition
  std::string new_state;
  std::vector<std::pair<std::string, AuditValue>> values;
};

// One JSON line, newline included. Pure.
std::string FormatAuditRecord(const AuditRecord& r, uint64_t seq);

struct AuditLogOptions {
  enum class Fsync { kEveryRecord, kInterval, kNone };
  std::string path;
  Fsync fsync = Fsync::kInterval;
  int64_t fsync_interval_ns = 1'000'000'000;  // kInterval: via MaybeSync
  uint64_t max_bytes = 64 << 20;  // rotate before exceeding; 0: never
  int keep_files = 5;             // rotated files kept: path.1 .. path.N
  mode_t mode = 0640;
};

struct AuditLogStats {
  uint64_t records = 0;
  uint64_t write_errors = 0;
  uint64_t fsyncs = 0;
  uint64_t rotations = 0;
  uint64_t reopens = 0;
  uint64_t bytes = 0;  // size of the current file
  // Bytes of an unterminated last line cut off at open (a writer killed
  // inside a write).
  uint64_t recovered_bytes = 0;
};

class AuditLog {
 public:
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(
      const AuditLogOptions& options);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends one record (one write of a whole line); rotates first if the
  // line would take the file past max_bytes; fsyncs per the policy.
  absl::Status Append(const AuditRecord& record);
  // kInterval: fsyncs if records were written since the last fsync and the
  // interval has passed. Call periodically from the control thread.
  absl::Status MaybeSync();
  // fsyncs now (e.g. at shutdown).
  absl::Status Sync();
  // Closes and re-opens `path` (after logrotate moved it; SIGHUP).
  absl::Status Reopen();

  const AuditLogStats& stats() const { return stats_; }
  const std::string& path() const { return options_.path; }

 private:
  explicit AuditLog(const AuditLogOptions& options) : options_(options) {}
  absl::Status OpenFile();
  absl::Status Rotate();
  absl::Status WriteAll(const std::string& line);
  // Offset just past the file's last newline (0 if none).
  uint64_t CompleteLinesEnd(uint64_t size) const;

  AuditLogOptions options_;
  int fd_ = -1;
  uint64_t next_seq_ = 1;
  bool dirty_ = false;  // written since the last fsync
  bool torn_ = false;   // a failed write may have left a partial line
  int64_t last_sync_mono_ns_ = 0;
  AuditLogStats stats_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_AUDIT_LOG_H_
