// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_client_log.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/ntp/ntp_client_query.h"
#include "core/time/time_format.h"
#include "core/time/tsc.h"
#include "dataplane/daemon/log.h"
#include "nlohmann/json.hpp"

namespace zg::dataplane {
namespace {

// A record's last_seen is the start of its 1/16 s: one seen in the same
// 1/16 s as the previous summary is written again rather than missed.
constexpr int64_t kLastSeenSlackNs =
    core::kNanosPerSecond >> core::NtpClientRecords::kStampFracBits;

absl::Status OpenError(const std::string& path, const char* what) {
  return absl::FailedPreconditionError(absl::StrCat("--ntp_client_log=", path,
                                                    ": cannot ", what, ": ",
                                                    std::strerror(errno)));
}

// The summary file, appended; renamed to PATH.1 when a line would take it
// past max_bytes.
class Appender {
 public:
  Appender(const std::string& path, uint64_t max_bytes)
      : path_(path), max_bytes_(max_bytes) {}
  ~Appender() { (void)Close(); }

  absl::Status Open() {
    file_ = std::fopen(path_.c_str(), "a");
    if (file_ == nullptr) return OpenError(path_, "open for appending");
    if (std::fseek(file_, 0, SEEK_END) != 0) return OpenError(path_, "seek");
    const long at = std::ftell(file_);
    size_ = at > 0 ? static_cast<uint64_t>(at) : 0;
    return absl::OkStatus();
  }
  absl::Status Append(const std::string& line, bool& rotated) {
    rotated = false;
    if (size_ > 0 && size_ + line.size() > max_bytes_) {
      ZG_RETURN_IF_ERROR(Close());
      if (std::rename(path_.c_str(), (path_ + ".1").c_str()) != 0) {
        return OpenError(path_, "rename it to PATH.1");
      }
      rotated = true;
      ZG_RETURN_IF_ERROR(Open());
    }
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size()) {
      return OpenError(path_, "write");
    }
    size_ += line.size();
    return absl::OkStatus();
  }
  absl::Status Close() {
    if (file_ == nullptr) return absl::OkStatus();
    const bool ok = std::fclose(file_) == 0;
    file_ = nullptr;
    return ok ? absl::OkStatus() : OpenError(path_, "close");
  }

 private:
  std::string path_;
  uint64_t max_bytes_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace

absl::Status CheckNtpClientLogPath(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) return OpenError(path, "open for appending");
  std::fclose(f);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<NtpClientLog>> NtpClientLog::Start(
    Options options) {
  if (options.config.path.empty() || !options.tables) {
    return absl::InvalidArgumentError("the NTP client log needs a path");
  }
  if (options.thread && options.clock == nullptr) {
    return absl::InvalidArgumentError("the NTP client log needs a clock");
  }
  ZG_RETURN_IF_ERROR(CheckNtpClientLogPath(options.config.path));
  std::unique_ptr<NtpClientLog> log(new NtpClientLog(std::move(options)));
  if (log->options_.thread)
    log->thread_ = std::thread([p = log.get()] { p->Run(); });
  return log;
}

NtpClientLog::~NtpClientLog() { Stop(); }

void NtpClientLog::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (options_.clock != nullptr) {
    if (absl::Status s = SummaryNow(); !s.ok()) {
      LogError(absl::StrCat("ntp client log: ", s.message()));
    }
  }
}

void NtpClientLog::Run() {
  absl::MutexLock lock(&mu_);
  while (
      !mu_.AwaitWithTimeout(absl::Condition(&stop_), options_.config.period)) {
    mu_.Unlock();
    if (absl::Status s = SummaryNow(); !s.ok()) {
      LogError(absl::StrCat("ntp client log: ", s.message()));
    }
    mu_.Lock();
  }
}

absl::Status NtpClientLog::SummaryNow() {
  core::ClockModel model;
  if (!options_.clock->TryRead(&model)) {
    return absl::UnavailableError(
        "the clock is not published; summary skipped");
  }
  return WriteSummary(model, model.RawToTai(core::ReadTsc()));
}

absl::Status NtpClientLog::WriteSummary(const core::ClockModel& clock,
                                        core::TaiNs now) {
  absl::MutexLock lock(&write_mu_);
  const std::vector<const core::NtpClientRecords*> tables = options_.tables();
  Appender out(options_.config.path, options_.config.max_bytes);
  absl::Status status = out.Open();
  const std::string utc = core::FormatUtc(clock.TaiToUtc(now));
  const core::TaiNs since{since_.value - kLastSeenSlackNs};
  for (size_t w = 0; w < tables.size() && status.ok(); ++w) {
    if (tables[w] == nullptr) continue;
    tables[w]->ForEach([&](const core::NtpClientRecord& r) {
      if (!status.ok() || (since_.value != 0 && r.last_seen < since)) return;
      nlohmann::json j = core::NtpClientJson(r, clock, now);
      j["summary_tai_ns"] = now.value;
      j["summary_utc"] = utc;
      j["worker"] = w;
      std::string line =
          j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      line += '\n';
      bool rotated = false;
      status = out.Append(line, rotated);
      if (status.ok()) lines_.fetch_add(1);
      if (rotated) rotations_.fetch_add(1);
    });
  }
  const absl::Status closed = out.Close();
  if (status.ok()) status = closed;
  if (!status.ok()) {
    errors_.fetch_add(1);
    return status;
  }
  since_ = now;
  summaries_.fetch_add(1);
  return absl::OkStatus();
}

}  // namespace zg::dataplane
