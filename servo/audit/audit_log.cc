// SPDX-License-Identifier: Apache-2.0
#include "servo/audit/audit_log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/time/time_format.h"
#include "nlohmann/json.hpp"

namespace zg::servo {
namespace {

int64_t MonoNow() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Members in the order they are added (the record's documented order).
using OrderedJson = nlohmann::ordered_json;

OrderedJson ToJson(const AuditValue& v) {
  return std::visit([](const auto& x) { return OrderedJson(x); }, v);
}

absl::Status ErrnoError(const std::string& what, int err) {
  return absl::InternalError(absl::StrCat(what, ": ", strerror(err)));
}

}  // namespace

const char* AuditEventName(AuditEvent e) {
  switch (e) {
    case AuditEvent::kStart:
      return "start";
    case AuditEvent::kStop:
      return "stop";
    case AuditEvent::kSourceUp:
      return "source_up";
    case AuditEvent::kSourceDown:
      return "source_down";
    case AuditEvent::kSelectionSwitch:
      return "selection_switch";
    case AuditEvent::kSampleRejected:
      return "sample_rejected";
    case AuditEvent::kStep:
      return "step";
    case AuditEvent::kLock:
      return "lock";
    case AuditEvent::kHoldoverEnter:
      return "holdover_enter";
    case AuditEvent::kHoldoverExit:
      return "holdover_exit";
    case AuditEvent::kClassChange:
      return "class_change";
    case AuditEvent::kLeapScheduled:
      return "leap_scheduled";
    case AuditEvent::kLeapApplied:
      return "leap_applied";
    case AuditEvent::kConfigChange:
      return "config_change";
    case AuditEvent::kStateChange:
      return "state_change";
    case AuditEvent::kFalseticker:
      return "falseticker";
    case AuditEvent::kModelOutvoted:
      return "model_outvoted";
    case AuditEvent::kSourceHealth:
      return "source_health";
    case AuditEvent::kSourceChange:
      return "source_change";
    case AuditEvent::kAlarmRaised:
      return "alarm_raised";
    case AuditEvent::kAlarmCleared:
      return "alarm_cleared";
    case AuditEvent::kAccessDenied:
      return "access_denied";
  }
  return "unknown";
}

std::string FormatAuditRecord(const AuditRecord& r, uint64_t seq) {
  OrderedJson j = {{"seq", seq},
                   {"tai_ns", r.tai.value},
                   {"tai", core::FormatTai(r.tai)},
                   {"utc", core::FormatUtc(r.utc)},
                   {"event", AuditEventName(r.event)}};
  if (!r.source.empty()) j["source"] = r.source;
  if (!r.old_state.empty()) j["old"] = r.old_state;
  if (!r.new_state.empty()) j["new"] = r.new_state;
  if (!r.values.empty()) {
    OrderedJson& values = j["values"] = OrderedJson::object();
    for (const auto& [key, value] : r.values) values[key] = ToJson(value);
  }
  // Compact; invalid UTF-8 becomes U+FFFD (dump never throws this way), so
  // every record is one line of valid JSON.
  std::string out = j.dump(-1, ' ', /*ensure_ascii=*/false,
                           OrderedJson::error_handler_t::replace);
  out.push_back('\n');
  return out;
}

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(
    const AuditLogOptions& options) {
  if (options.path.empty()) {
    return absl::InvalidArgumentError("audit log: no path configured");
  }
  if (options.keep_files < 0 || options.keep_files > 1000) {
    return absl::InvalidArgumentError("audit log: keep_files must be 0..1000");
  }
  auto log = std::unique_ptr<AuditLog>(new AuditLog(options));
  ZG_RETURN_IF_ERROR(log->OpenFile());
  log->last_sync_mono_ns_ = MonoNow();
  return log;
}

AuditLog::~AuditLog() {
  if (fd_ < 0) return;
  if (dirty_ && options_.fsync != AuditLogOptions::Fsync::kNone) fsync(fd_);
  close(fd_);
}

absl::Status AuditLog::OpenFile() {
  const int fd = open(options_.path.c_str(),
                      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, options_.mode);
  if (fd < 0) {
    const int err = errno;
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open audit log ", options_.path, ": ", strerror(err),
        ". Check the directory exists and zeitgeberd's user may write it"));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoError("fstat " + options_.path, err);
  }
  fd_ = fd;
  torn_ = false;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t complete = CompleteLinesEnd(size);
  if (complete < size) {
    // A writer died inside a write (the kernel may cut a write that spans
    // page-cache pages on SIGKILL): that record was never acknowledged.
    if (ftruncate(fd_, static_cast<off_t>(complete)) == 0) {
      stats_.recovered_bytes += size - complete;
      stats_.bytes = complete;
      return absl::OkStatus();
    }
    torn_ = true;  // cannot cut it: at least start the next record afresh
  }
  stats_.bytes = size;
  return absl::OkStatus();
}

uint64_t AuditLog::CompleteLinesEnd(uint64_t size) const {
  if (size == 0) return 0;
  const int rd = open(options_.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (rd < 0) return size;  // cannot tell: keep everything
  char buf[4096];
  uint64_t end = size;
  uint64_t result = 0;
  while (end > 0) {
    const uint64_t start = end > sizeof(buf) ? end - sizeof(buf) : 0;
    const ssize_t n = pread(rd, buf, end - start, static_cast<off_t>(start));
    if (n != static_cast<ssize_t>(end - start)) {
      result = size;  // read error: keep everything
      break;
    }
    const void* nl = memrchr(buf, '\n', static_cast<size_t>(n));
    if (nl != nullptr) {
      result =
          start + static_cast<uint64_t>(static_cast<const char*>(nl) - buf) + 1;
      break;
    }
    end = start;
  }
  close(rd);
  return result;
}

absl::Status AuditLog::WriteAll(const std::string& line) {
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ++stats_.write_errors;
      // Take back a partial line so the file stays whole lines.
      if (done > 0 && ftruncate(fd_, static_cast<off_t>(stats_.bytes)) != 0) {
        stats_.bytes += done;
        torn_ = true;
      }
      return ErrnoError("write audit log " + options_.path, err);
    }
    done += static_cast<size_t>(n);
  }
  torn_ = false;
  stats_.bytes += done;
  return absl::OkStatus();
}

absl::Status AuditLog::Append(const AuditRecord& record) {
  if (fd_ < 0) ZG_RETURN_IF_ERROR(OpenFile());
  std::string line = FormatAuditRecord(record, next_seq_);
  if (torn_) line.insert(line.begin(), '\n');
  if (options_.max_bytes != 0 && stats_.bytes > 0 &&
      stats_.bytes + line.size() > options_.max_bytes) {
    ZG_RETURN_IF_ERROR(Rotate());
    if (line.front() == '\n') line.erase(0, 1);
  }
  ZG_RETURN_IF_ERROR(WriteAll(line));
  ++next_seq_;
  ++stats_.records;
  dirty_ = true;
  if (options_.fsync == AuditLogOptions::Fsync::kEveryRecord) return Sync();
  return absl::OkStatus();
}

absl::Status AuditLog::Sync() {
  if (fd_ < 0) return absl::OkStatus();
  if (fsync(fd_) != 0) return ErrnoError("fsync " + options_.path, errno);
  ++stats_.fsyncs;
  dirty_ = false;
  last_sync_mono_ns_ = MonoNow();
  return absl::OkStatus();
}

absl::Status AuditLog::MaybeSync() {
  if (options_.fsync != AuditLogOptions::Fsync::kInterval || !dirty_) {
    return absl::OkStatus();
  }
  if (MonoNow() - last_sync_mono_ns_ < options_.fsync_interval_ns) {
    return absl::OkStatus();
  }
  return Sync();
}

absl::Status AuditLog::Rotate() {
  if (options_.fsync != AuditLogOptions::Fsync::kNone) {
    ZG_RETURN_IF_ERROR(Sync());
  }
  close(fd_);
  fd_ = -1;
  const std::string& p = options_.path;
  if (options_.keep_files == 0) {
    unlink(p.c_str());
  } else {
    // path.N-1 -> path.N, ..., path -> path.1 (the oldest is overwritten).
    for (int i = options_.keep_files - 1; i >= 1; --i) {
      rename(absl::StrCat(p, ".", i).c_str(),
             absl::StrCat(p, ".", i + 1).c_str());
    }
    if (rename(p.c_str(), absl::StrCat(p, ".1").c_str()) != 0 &&
        errno != ENOENT) {
      const int err = errno;
      ZG_RETURN_IF_ERROR(OpenFile());  // keep logging to the big file
      return ErrnoError("rotate audit log " + p, err);
    }
  }
  ++stats_.rotations;
  return OpenFile();
}

absl::Status AuditLog::Reopen() {
  if (fd_ >= 0) {
    if (dirty_ && options_.fsync != AuditLogOptions::Fsync::kNone) fsync(fd_);
    close(fd_);
    fd_ = -1;
  }
  dirty_ = false;
  ++stats_.reopens;
  return OpenFile();
}

}  // namespace zg::servo
