// Operator-facing log lines of zeitgeberd (setup, state changes, shutdown),
// written to stderr with a UTC timestamp and a severity letter:
//   2024-05-01T12:00:00.123Z I port 0 (net_ring0): link up 10000 Mb/s
// Never called on the packet hot path. The level (zgctl loglevel) hides
// the lines below it; errors always show.
//
//   LogInfo(absl::StrCat("port ", id, " started"));
//   SetLogLevel(LogLevel::kWarning);   // any thread
#ifndef ZG_DATAPLANE_DAEMON_LOG_H_
#define ZG_DATAPLANE_DAEMON_LOG_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace zg::dataplane {

enum class LogLevel : uint8_t { kInfo, kWarning, kError };
// Any thread (an atomic).
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
const char* LogLevelName(LogLevel level);  // "info", "warning", "error"
std::optional<LogLevel> ParseLogLevel(absl::string_view name);

void LogInfo(absl::string_view message);
void LogWarning(absl::string_view message);
void LogError(absl::string_view message);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_LOG_H_
