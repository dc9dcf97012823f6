// SPDX-License-Identifier: Apache-2.0
// The flags of dataplane/daemon/service_flags.h.
#include "dataplane/daemon/service_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

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

namespace zg::dataplane {

absl::StatusOr<ServiceConfig> ReadServiceFlags() {
  ServiceConfig c;
  const std::string level = absl::GetFlag(FLAGS_log_level);
  const std::optional<LogLevel> parsed = ParseLogLevel(level);
  if (!parsed.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--log_level=", level, ": expected error, warning, info or debug"));
  }
  c.log_level = *parsed;
  c.worker_stall_limit = absl::GetFlag(FLAGS_worker_stall_limit);
  if (c.worker_stall_limit < absl::Milliseconds(10) ||
      c.worker_stall_limit > absl::Hours(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--worker_stall_limit=", absl::FormatDuration(c.worker_stall_limit),
        ": must be 10ms..1h"));
  }
  c.test_stall_file = absl::GetFlag(FLAGS_test_stall_file);
  return c;
}

}  // namespace zg::dataplane
