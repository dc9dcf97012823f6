// SPDX-License-Identifier: Apache-2.0
// --ntp_client_log=PATH: the per-client NTP records (core/ntp/
// ntp_client_records.h) appended to a file as JSON Lines, so the traceable
// record of every client outlives a restart.
//
// A thread of its own (never a worker, never the control thread's tick)
// writes a summary every --ntp_client_log_period (default 10 min) and one
// more when the daemon stops: one line per client record seen since the
// previous summary (every record, the first time), with that record's
// cumulative counts. A line is the zgctl clients object of one client
// (core/ntp/ntp_client_query.h NtpClientJson, doc/zgctl.md) plus
//   "summary_tai_ns", "summary_utc"   when the summary was taken
//   "worker"                          whose table it came from (a client
//                                     that reached two workers has a line
//                                     per worker: add them)
// so a restart loses at most one period of counts. A line is at most
// about 500 bytes. The file is opened, appended and closed per summary
// (logrotate may move it); when a line would take it past
// --ntp_client_log_max_bytes (default 1 GiB) it is renamed to PATH.1,
// replacing the previous one, and a new PATH started: the log never takes
// more than twice that on disk.
//
//   NtpClientLog::Options o{.config = cfg, .tables = [&] { return ...; },
//                           .clock = &published_tsc_clock};
//   ZG_ASSIGN_OR_RETURN(auto log, NtpClientLog::Start(std::move(o)));
//   ...
//   log->Stop();  // writes the last summary
#ifndef ZG_DATAPLANE_NTP_NTP_CLIENT_LOG_H_
#define ZG_DATAPLANE_NTP_NTP_CLIENT_LOG_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/ntp/ntp_client_records.h"
#include "core/time/clock_model.h"

namespace zg::dataplane {

struct NtpClientLogConfig {
  std::string path;  // empty: no log
  absl::Duration period = absl::Minutes(10);
  uint64_t max_bytes = uint64_t{1} << 30;
};

// Whether `path` can be appended to (created if absent): the check at start,
// so a bad path fails the daemon's configuration, not the thread later.
absl::Status CheckNtpClientLogPath(const std::string& path);

class NtpClientLog {
 public:
  using Tables = std::function<std::vector<const core::NtpClientRecords*>()>;
  struct Options {
    NtpClientLogConfig config;
    Tables tables;  // the workers' record tables (called on the thread)
    // The published clock whose raw time is the TSC (the workers' RX
    // stamps' scale): the summaries' time and UTC.
    const core::PublishedClock* clock = nullptr;
    bool thread = true;  // false: no thread, WriteSummary only (tests)
  };
  static absl::StatusOr<std::unique_ptr<NtpClientLog>> Start(Options options);
  ~NtpClientLog();  // Stop()
  NtpClientLog(const NtpClientLog&) = delete;
  NtpClientLog& operator=(const NtpClientLog&) = delete;

  // Writes the last summary and joins the thread. Idempotent.
  void Stop();
  // Writes one summary now, timed at `now` (the thread's call, and tests').
  absl::Status WriteSummary(const core::ClockModel& clock, core::TaiNs now);

  // Read by: any thread.
  uint64_t summaries() const { return summaries_.load(); }
  uint64_t lines() const { return lines_.load(); }
  uint64_t rotations() const { return rotations_.load(); }
  uint64_t errors() const { return errors_.load(); }

 private:
  explicit NtpClientLog(Options options) : options_(std::move(options)) {}
  void Run();
  absl::Status SummaryNow();

  Options options_;
  absl::Mutex mu_;  // the thread's stop request
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Serialises summaries (the thread's, Stop's, tests').
  absl::Mutex write_mu_;
  core::TaiNs since_ ABSL_GUARDED_BY(write_mu_);  // the previous summary; 0
  std::atomic<uint64_t> summaries_{0}, lines_{0}, rotations_{0}, errors_{0};
  std::thread thread_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_CLIENT_LOG_H_
