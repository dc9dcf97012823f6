#include "dataplane/daemon/log.h"

#include <atomic>
#include <cstdio>
#include <ctime>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace zg::dataplane {
namespace {

// Written by: whoever sets the level (the control thread, for zgctl).
// Read by: every thread that logs.
std::atomic<LogLevel> g_level{LogLevel::kInfo};

void Emit(char severity, absl::string_view message) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  const std::string line = absl::StrFormat(
      "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %c %s\n", utc.tm_year + 1900,
      utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
      static_cast<int>(now.tv_nsec / 1'000'000), severity, message);
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write per line
}

}  // namespace

void SetLogLevel(LogLevel level) {
  g_level.store(level, std::memory_order_relaxed);
}
LogLevel GetLogLevel() { return g_level.load(std::memory_order_relaxed); }

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "?";
}

std::optional<LogLevel> ParseLogLevel(absl::string_view name) {
  for (LogLevel l : {LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError}) {
    if (name == LogLevelName(l)) return l;
  }
  return std::nullopt;
}

void LogInfo(absl::string_view message) {
  if (GetLogLevel() <= LogLevel::kInfo) Emit('I', message);
}
void LogWarning(absl::string_view message) {
  if (GetLogLevel() <= LogLevel::kWarning) Emit('W', message);
}
void LogError(absl::string_view message) { Emit('E', message); }

}  // namespace zg::dataplane
