// SPDX-License-Identifier: Apache-2.0
// Operator-facing log lines of zeitgeberd (setup, state changes, shutdown),
// written to stderr, one write per line. On a terminal or in a file each line
// has a UTC timestamp and a severity letter:
//   2024-05-01T12:00:00.123Z I port 0 (net_ring0): link up 10000 Mb/s
// When stderr is the systemd journal's stream (JOURNAL_STREAM names it, as
// systemd.exec(5) describes) each line starts with its syslog priority
// instead, "<6>port 0 ...", which journald stores as the entry's PRIORITY
// (the journal keeps its own timestamps). Never called on the packet hot path.
//
//   LogInfo(absl::StrCat("port ", id, " started"));
//   SetLogLevel(LogLevel::kDebug);  // --log_level=debug, zgctl loglevel
//   if (LogEnabled(LogLevel::kDebug)) LogDebug(Expensive());
#ifndef ZG_DATAPLANE_DAEMON_LOG_H_
#define ZG_DATAPLANE_DAEMON_LOG_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace zg::dataplane {

// Ordered by severity; the values are syslog priorities.
enum class LogLevel : int {
  kError = 3,
  kWarning = 4,
  kInfo = 6,
  kDebug = 7,
};

// Lines less severe than `level` are dropped (default kInfo). Any thread
// (an atomic): --log_level at start-up, `zgctl loglevel` while running.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);
// "error", "warning", "info", "debug".
const char* LogLevelName(LogLevel level);
std::optional<LogLevel> ParseLogLevel(absl::string_view name);

// Whether stderr is the journal's stream (lines then carry priorities).
bool LoggingToJournal();
// When LoggingToJournal(): DPDK's own log lines go to stderr with their
// priorities too (rte_openlog_stream), instead of DPDK's default, a copy on
// stderr plus one to syslog, which the journal would store twice and the
// first at info. Before rte_eal_init.
void SendDpdkLogToJournal();

void LogDebug(absl::string_view message);
void LogInfo(absl::string_view message);
void LogWarning(absl::string_view message);
void LogError(absl::string_view message);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_LOG_H_
