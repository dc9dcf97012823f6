// SPDX-License-Identifier: Apache-2.0
// Worker progress for the watchdog (worker_watch.h).
#include "dataplane/daemon/worker_watch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

WorkerWatch::WorkerWatch(std::vector<const WorkerStats*> workers,
                         std::vector<unsigned> lcores, double tsc_hz,
                         absl::Duration stall_limit)
    : tsc_hz_(tsc_hz),
      limit_ticks_(
          static_cast<uint64_t>(absl::ToDoubleSeconds(stall_limit) * tsc_hz)) {
  for (size_t i = 0; i < workers.size(); ++i) {
    workers_.push_back({workers[i], i < lcores.size() ? lcores[i] : 0u});
  }
}

bool WorkerWatch::AllPolling() const {
  for (const Watched& w : workers_) {
    if (w.stats->heartbeat_tsc.Load() == 0) return false;
  }
  return true;
}

bool WorkerWatch::Check(uint64_t now_tsc) {
  bool all = true;
  for (size_t i = 0; i < workers_.size(); ++i) {
    Watched& w = workers_[i];
    const uint64_t beat = w.stats->heartbeat_tsc.Load();
    // A worker before its first pass is not judged: READY=1 waits for
    // AllPolling, and systemd's start timeout covers one that never starts.
    const uint64_t age = beat == 0 || now_tsc < beat ? 0 : now_tsc - beat;
    w.age_s = static_cast<double>(age) / tsc_hz_;
    const bool stalled = age > limit_ticks_;
    if (stalled && !w.stalled) {
      LogError(absl::StrFormat(
          "worker %d (lcore %u) has not passed its poll loop for %.2f s: "
          "it is stalled (a spinning handler, a PMD stuck in the driver, a "
          "core taken away); the systemd watchdog is no longer fed, so "
          "systemd restarts zeitgeberd after WatchdogSec unless it resumes",
          i, w.lcore, w.age_s));
    } else if (!stalled && w.stalled) {
      LogInfo(absl::StrFormat(
          "worker %d (lcore %u) passes its poll loop again; feeding the "
          "watchdog",
          i, w.lcore));
    }
    w.stalled = stalled;
    all = all && !stalled;
  }
  return all;
}

std::string WorkerWatch::StalledReason() const {
  std::string out;
  for (size_t i = 0; i < workers_.size(); ++i) {
    const Watched& w = workers_[i];
    if (!w.stalled) continue;
    absl::StrAppend(&out, out.empty() ? "" : "; ",
                    absl::StrFormat("worker %d (lcore %u) has not passed its "
                                    "poll loop for %.2f s",
                                    i, w.lcore, w.age_s));
  }
  return out;
}

}  // namespace zg::dataplane
