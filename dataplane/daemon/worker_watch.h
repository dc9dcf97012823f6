// SPDX-License-Identifier: Apache-2.0
// Whether every worker is making progress, for the systemd watchdog
// (dataplane/daemon/service_notify.h). Each worker writes its TSC into
// WorkerStats::heartbeat_tsc with one relaxed store per loop pass (nothing
// more on the hot path); the control thread reads the stamps here and calls
// a worker stalled once its stamp is older than the stall limit. The first
// check that finds a worker stalled logs why, before the caller withholds
// WATCHDOG=1; a worker that resumes is logged too. Control thread only.
//
//   WorkerWatch watch({&stats[0], &stats[1]}, {1, 2}, tsc_hz,
//   absl::Seconds(1)); if (watch.Check(core::ReadTsc())) notifier.Watchdog();
#ifndef ZG_DATAPLANE_DAEMON_WORKER_WATCH_H_
#define ZG_DATAPLANE_DAEMON_WORKER_WATCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

class WorkerWatch {
 public:
  // workers[i] runs on lcores[i]; both outlive the watch.
  WorkerWatch(std::vector<const WorkerStats*> workers,
              std::vector<unsigned> lcores, double tsc_hz,
              absl::Duration stall_limit);

  // Whether every worker has completed its first loop pass.
  bool AllPolling() const;
  // Reads every worker's heartbeat at TSC `now_tsc`. Returns true when each
  // one passed its loop within the stall limit; logs each worker that
  // stalls (an error, with how long) or resumes (info) since the last check.
  bool Check(uint64_t now_tsc);
  // The stalled workers of the last Check ("" when none), e.g.
  // "worker 0 (lcore 1) has not passed its poll loop for 1.20 s".
  std::string StalledReason() const;

 private:
  struct Watched {
    const WorkerStats* stats;
    unsigned lcore;
    bool stalled = false;
    double age_s = 0;  // at the last Check
  };
  std::vector<Watched> workers_;
  double tsc_hz_;
  uint64_t limit_ticks_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_WORKER_WATCH_H_
