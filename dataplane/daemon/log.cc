// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/log.h"

#include <rte_log.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace zg::dataplane {
namespace {

// Written by: start-up (--log_level), the control thread (zgctl loglevel).
// Read by: every thread that logs.
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};

// Whether fd 2 is the stream JOURNAL_STREAM ("DEVICE:INODE") names: then
// the journal reads our lines, and a "<N>" prefix sets their priority.
bool StderrIsJournal() {
  const char* env = std::getenv("JOURNAL_STREAM");
  if (env == nullptr) return false;
  uintmax_t dev = 0, ino = 0;
  if (std::sscanf(env, "%" SCNuMAX ":%" SCNuMAX, &dev, &ino) != 2) return false;
  struct stat st {};
  if (fstat(2, &st) != 0) return false;
  return st.st_dev == dev && st.st_ino == ino;
}

// sd-daemon.h's priority prefixes, which journald parses.
const char* JournalPrefix(LogLevel level) {
  switch (level) {
    case LogLevel::kError:
      return SD_ERR;
    case LogLevel::kWarning:
      return SD_WARNING;
    case LogLevel::kInfo:
      return SD_INFO;
    case LogLevel::kDebug:
      return SD_DEBUG;
  }
  return SD_INFO;
}

// DPDK's log stream under the journal: each line of a message gets the
// syslog priority of DPDK's level (RTE_LOG_ERR is 4, syslog's err 3).
ssize_t WriteDpdkLine(void*, const char* buf, size_t size) {
  const int level = rte_log_cur_msg_loglevel();
  const int priority = level >= 1 && level <= 8 ? level - 1 : 6;
  std::string out;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(buf, size), '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, "<", priority, ">", line, "\n");
  }
  std::fwrite(out.data(), 1, out.size(), stderr);
  return static_cast<ssize_t>(size);
}

void Emit(LogLevel level, char severity, absl::string_view message) {
  if (!LogEnabled(level)) return;
  std::string line;
  if (LoggingToJournal()) {
    line = absl::StrCat(JournalPrefix(level), message, "\n");
  } else {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    tm utc{};
    gmtime_r(&now.tv_sec, &utc);
    line = absl::StrFormat(
        "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ %c %s\n", utc.tm_year + 1900,
        utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
        static_cast<int>(now.tv_nsec / 1'000'000), severity, message);
  }
  std::fwrite(line.data(), 1, line.size(), stderr);  // one write per line
}

}  // namespace

bool LoggingToJournal() {
  static const bool journal = StderrIsJournal();
  return journal;
}

void SendDpdkLogToJournal() {
  if (!LoggingToJournal()) return;
  cookie_io_functions_t io{};
  io.write = &WriteDpdkLine;
  if (FILE* stream = fopencookie(nullptr, "w", io); stream != nullptr) {
    rte_openlog_stream(stream);
  }
}

void SetLogLevel(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed);
}

LogLevel GetLogLevel() {
  return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed));
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "info";
}

std::optional<LogLevel> ParseLogLevel(absl::string_view name) {
  for (LogLevel l : {LogLevel::kError, LogLevel::kWarning, LogLevel::kInfo,
                     LogLevel::kDebug}) {
    if (name == LogLevelName(l)) return l;
  }
  return std::nullopt;
}

void LogDebug(absl::string_view message) {
  Emit(LogLevel::kDebug, 'D', message);
}
void LogInfo(absl::string_view message) { Emit(LogLevel::kInfo, 'I', message); }
void LogWarning(absl::string_view message) {
  Emit(LogLevel::kWarning, 'W', message);
}
void LogError(absl::string_view message) {
  Emit(LogLevel::kError, 'E', message);
}

}  // namespace zg::dataplane
