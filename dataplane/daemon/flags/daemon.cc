// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/daemon.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "servo/audit/audit_log.h"

ABSL_FLAG(absl::Duration, run_for, absl::ZeroDuration(),
          "Stop cleanly after this long (0: run until SIGINT/SIGTERM).");
ABSL_FLAG(absl::Duration, idle_sleep, absl::ZeroDuration(),
          "0 (default): workers busy-poll. Otherwise (1us..1ms) a worker "
          "whose last 256 passes received and sent nothing sleeps this long, "
          "giving its core back on a shared host (the demo's veth rig, CI); "
          "a frame arriving meanwhile waits up to this long.");
ABSL_FLAG(absl::Duration, publish_interval, absl::Milliseconds(100),
          "How often the clock model is republished.");
ABSL_FLAG(std::string, log_level, "info",
          "Least severe log lines written: error, warning, info or debug "
          "(debug adds the time each shutdown step takes). Under systemd "
          "each line reaches the journal with its priority.");
ABSL_FLAG(absl::Duration, worker_stall_limit, absl::Seconds(1),
          "A worker whose poll loop has not completed a pass for this long "
          "is stalled: zeitgeberd logs it and stops feeding the systemd "
          "watchdog (WatchdogSec) until every worker progresses again. "
          "10ms..1h.");
ABSL_FLAG(std::string, test_stall_file, "",
          "TEST ONLY, never in production: while this file holds a worker "
          "index, that worker stops its poll loop (tests of the watchdog and "
          "of what follows a stalled worker).");
ABSL_FLAG(std::string, audit_log, "",
          "Append-only JSON Lines audit log of every time-service state "
          "change (empty: none). SIGHUP re-opens it.");
ABSL_FLAG(std::string, audit_fsync, "interval",
          "Audit log durability: every_record, interval or none.");
ABSL_FLAG(absl::Duration, audit_fsync_interval, absl::Seconds(1),
          "--audit_fsync=interval: fsync at most this long after a record.");
ABSL_FLAG(int64_t, audit_max_bytes, int64_t{64} << 20,
          "Rotate the audit log before it exceeds this size (0: never).");
ABSL_FLAG(int32_t, audit_keep_files, 5,
          "Rotated audit logs kept (path.1 .. path.N).");

namespace zg::dataplane {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view value,
                       absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, ": ", why));
}

absl::Status ReadAuditFlags(servo::AuditLogOptions& a) {
  a.path = absl::GetFlag(FLAGS_audit_log);
  const std::string fsync = absl::GetFlag(FLAGS_audit_fsync);
  if (fsync == "every_record") {
    a.fsync = servo::AuditLogOptions::Fsync::kEveryRecord;
  } else if (fsync == "interval") {
    a.fsync = servo::AuditLogOptions::Fsync::kInterval;
  } else if (fsync == "none") {
    a.fsync = servo::AuditLogOptions::Fsync::kNone;
  } else {
    return FlagError("audit_fsync", fsync,
                     "must be every_record, interval or none");
  }
  const absl::Duration interval = absl::GetFlag(FLAGS_audit_fsync_interval);
  if (interval < absl::Milliseconds(10) || interval > absl::Hours(1)) {
    return FlagError("audit_fsync_interval", absl::FormatDuration(interval),
                     "must be 10ms..1h");
  }
  a.fsync_interval_ns = absl::ToInt64Nanoseconds(interval);
  const int64_t max_bytes = absl::GetFlag(FLAGS_audit_max_bytes);
  if (max_bytes != 0 && (max_bytes < 4096 || max_bytes > (int64_t{1} << 40))) {
    return FlagError("audit_max_bytes", absl::StrCat(max_bytes),
                     "must be 0 (never rotate) or 4096..2^40");
  }
  a.max_bytes = static_cast<uint64_t>(max_bytes);
  const int32_t keep = absl::GetFlag(FLAGS_audit_keep_files);
  if (keep < 1 || keep > 1000) {
    return FlagError("audit_keep_files", absl::StrCat(keep), "must be 1..1000");
  }
  a.keep_files = keep;
  return absl::OkStatus();
}

absl::Status ReadServiceFlags(ServiceConfig& s) {
  const std::string level = absl::GetFlag(FLAGS_log_level);
  const std::optional<LogLevel> parsed = ParseLogLevel(level);
  if (!parsed.has_value()) {
    return FlagError("log_level", level,
                     "expected error, warning, info or debug");
  }
  s.log_level = *parsed;
  s.worker_stall_limit = absl::GetFlag(FLAGS_worker_stall_limit);
  if (s.worker_stall_limit < absl::Milliseconds(10) ||
      s.worker_stall_limit > absl::Hours(1)) {
    return FlagError("worker_stall_limit",
                     absl::FormatDuration(s.worker_stall_limit),
                     "must be 10ms..1h");
  }
  s.test_stall_file = absl::GetFlag(FLAGS_test_stall_file);
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadDaemonFlags(DaemonConfig& c) {
  c.run_for = absl::GetFlag(FLAGS_run_for);
  if (c.run_for < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--run_for must not be negative");
  }
  c.idle_sleep = absl::GetFlag(FLAGS_idle_sleep);
  if (c.idle_sleep != absl::ZeroDuration() &&
      (c.idle_sleep < absl::Microseconds(1) ||
       c.idle_sleep > absl::Milliseconds(1))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--idle_sleep=", absl::FormatDuration(c.idle_sleep),
                     ": must be 0 (busy-poll) or 1us..1ms"));
  }
  c.publish_interval = absl::GetFlag(FLAGS_publish_interval);
  if (c.publish_interval < absl::Milliseconds(1) ||
      c.publish_interval > absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--publish_interval=", absl::FormatDuration(c.publish_interval),
        ": must be 1ms..1s (how often the control thread republishes the "
        "clock model)"));
  }
  ZG_RETURN_IF_ERROR(ReadServiceFlags(c.service));
  return ReadAuditFlags(c.control.audit);
}

}  // namespace zg::dataplane
