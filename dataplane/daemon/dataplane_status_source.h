// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's DataplaneView (servo/api/status_board.h): the data plane's
// status for the operator threads, without DPDK in their code.
//
// The control thread calls Sample() every --stats_interval, after the
// metrics exporter's update: it reads the workers' counters (single-writer
// relaxed atomics, worker_stats.h), the port's rte_eth_stats, the protocol
// modules' exported counters (MetricsExporter::ModuleFamilies, by prefix:
// zeitgeber_ntp_*, zeitgeber_nts_ke_*, zeitgeber_ptp_*), and lets the
// caller add the pipeline's own part (PipelineFactory::Observe: the PTP
// port), computes rates over the interval, and publishes the result through
// a SnapshotCell (the control socket and the SNMP agent read it).
// Read(), on any operator thread, returns that sample with each worker's
// counters and progress stamp (heartbeat) read live — atomics only: no
// worker and no control thread waits.
//
//   DataplaneStatusSource source({...});
//   source.Sample([&](servo::DataplaneStatus& d) {   // control thread, each
//     factory->Observe({alarms, mono, &d});          // stats interval
//   });
//   source.Flush();                       // control thread, each tick
//   board.dataplane = &source;            // operator threads: Read()
#ifndef ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_SOURCE_H_
#define ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/time/clock_model.h"
#include "dataplane/daemon/stamp_setup.h"
#include "dataplane/metrics/metrics_exporter.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"
#include "servo/api/status_board.h"
#include "servo/control/snapshot_cell.h"

namespace zg::dataplane {

class DataplaneStatusSource final : public servo::DataplaneView {
 public:
  struct Worker {
    const WorkerStats* stats;  // written by the worker; read here (relaxed)
    unsigned index = 0;
    unsigned lcore = 0;
  };
  struct Options {
    std::vector<Worker> workers;
    Port* port = nullptr;
    const PortStamps* stamps = nullptr;
    const CounterNames* names = nullptr;
    const MetricsExporter* exporter = nullptr;  // may be null
    // Written by: the control thread. Read here: TSC -> TAI for the
    // progress stamps.
    const core::PublishedClock* tsc_clock = nullptr;
    double tsc_hz = 0;
  };
  explicit DataplaneStatusSource(Options options)
      : options_(std::move(options)) {}

  // Control thread, every --stats_interval: `add` fills in what the
  // pipeline knows (may be empty).
  void Sample(const std::function<void(servo::DataplaneStatus&)>& add);
  // Control thread, every tick: installs a sample that found no free slot.
  void Flush() { cell_.Flush(); }

  // Any thread.
  std::shared_ptr<const servo::DataplaneStatus> Read() const override;

 private:
  // Fills the counters (not the rates) of w from its live WorkerStats.
  void ReadWorker(size_t i, servo::WorkerStatus& w, uint64_t tsc_now,
                  const core::ClockModel* model) const;
  void SampleServer(servo::DataplaneStatus& d) const;
  void SamplePort(servo::DataplaneStatus& d, double dt_s);

  Options options_;
  servo::SnapshotCell<servo::DataplaneStatus> cell_;
  // Control thread: the previous sample, for rates.
  uint64_t last_tsc_ = 0;
  std::vector<servo::WorkerStatus> last_workers_;
  uint64_t last_ipackets_ = 0, last_opackets_ = 0;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_SOURCE_H_
