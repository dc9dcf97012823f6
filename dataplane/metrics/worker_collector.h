// SPDX-License-Identifier: Apache-2.0
// WorkerCollector: the per-worker packet counters (worker_stats.h) as a
// prometheus::Collectable that reads them when Prometheus scrapes, on the
// exporter's HTTP thread, with the same relaxed loads the final report
// uses. Nothing is copied on a timer, so a scrape taken right after
// traffic stops equals zeitgeberd's final counters (and the wire). The
// workers pay nothing: they keep writing their own cache lines.
//
// Series (prefixed zeitgeber_, labelled {worker, lcore, port}):
//   rx_packets_total, rx_bytes_total, tx_packets_total, tx_bytes_total,
//   tx_dropped_total, tx_finalise_splits_total, tx_scheduled_total,
//   tx_schedule_late_total, worker_bursts_total, worker_empty_polls_total,
//   clock_model_refresh_failures_total, rx_timestamps_total{source},
//   frames_handled_total{kind}, frames_replied_total{kind},
//   frames_dropped_total{reason}, worker_heartbeat_age_seconds
//
//   auto c = std::make_shared<WorkerCollector>(&names, workers, tsc_hz);
//   exposer.RegisterCollectable(c);
//
// Collect() may run on any thread; the stats and names must outlive it.
#ifndef ZG_DATAPLANE_METRICS_WORKER_COLLECTOR_H_
#define ZG_DATAPLANE_METRICS_WORKER_COLLECTOR_H_

#include <string>
#include <vector>

#include "dataplane/worker/worker_stats.h"
#include "prometheus/collectable.h"

namespace zg::dataplane {

struct WorkerStatsSource {
  const WorkerStats* stats;
  std::string worker;  // "0"..
  std::string lcore;
  std::string port;  // name(s) of the port(s) it polls
};

class WorkerCollector : public prometheus::Collectable {
 public:
  WorkerCollector(const CounterNames* names,
                  std::vector<WorkerStatsSource> workers, double tsc_hz)
      : names_(names), workers_(std::move(workers)), tsc_hz_(tsc_hz) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const CounterNames* names_;
  std::vector<WorkerStatsSource> workers_;
  double tsc_hz_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_WORKER_COLLECTOR_H_
