// SPDX-License-Identifier: Apache-2.0
// Prometheus exporter of zeitgeberd (prometheus-cpp core + pull), on
// --metrics_address (loopback by default: metrics reveal load and clock
// state, so exposing them on the network is an operator's decision).
//
// Scrapes are served by prometheus-cpp's own HTTP thread. The per-worker
// packet counters are read at scrape time (WorkerCollector, relaxed loads of
// each worker's WorkerStats; worker_collector.h lists them), and so is the
// alarm table (AlarmCollector, alarm_collector.h): a scrape right after
// traffic stops equals the final counters. The control thread calls
// Update() periodically (about once a second) for the rest: the gauges of
// the published clocks and ports and the control plane's series.
//
// Metrics (all prefixed zeitgeber_; labels in braces):
//   the worker counters                           (worker_collector.h)
//   the alarms                                    (alarm_collector.h)
//   clock_sync_state {clock, state} (1 for the current state, else 0),
//   clock_synchronized, clock_error_bound_seconds, clock_stratum,
//   clock_model_age_seconds, clock_utc_offset_seconds, clock_class,
//   clock_accuracy                                      {clock}
//   port_link_up, port_link_speed_bytes_per_second, port_hardware_timestamps,
//   port_rx_missed_total, port_rx_errors_total, port_rx_nombuf_total,
//   port_tx_errors_total                                {port}
//   build_info {version}
//   and, once AttachControlPlane() is called, the control plane's sources,
//   GNSS, discipline, TSC, NIC-clock and audit series (control_metrics.h).
//
//   ZG_ASSIGN_OR_RETURN(auto exporter, MetricsExporter::Start(
//       "127.0.0.1:9123", &names, workers, clocks, ports));
//   exporter->Update();   // control thread, every second
#ifndef ZG_DATAPLANE_METRICS_METRICS_EXPORTER_H_
#define ZG_DATAPLANE_METRICS_METRICS_EXPORTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time/clock_model.h"
#include "dataplane/metrics/alarm_collector.h"
#include "dataplane/metrics/worker_collector.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/worker_stats.h"
#include "servo/control/control_plane.h"

namespace prometheus {
class Exposer;
class Registry;
class Counter;
class Gauge;
template <typename T>
class Family;
}  // namespace prometheus

namespace zg::dataplane {

class ControlMetrics;

class MetricsExporter {
 public:
  using WorkerSource = WorkerStatsSource;
  struct ClockSource {
    const core::PublishedClock* clock;
    std::string name;  // "tsc", "nic:port0"
  };

  // Binds `address` ("127.0.0.1:9123", "[::1]:9123", port 0 = any free port)
  // and starts serving. `names`, the stats, clocks and ports must outlive
  // the exporter. The first clock is the TSC clock, used for "now".
  static absl::StatusOr<std::unique_ptr<MetricsExporter>> Start(
      const std::string& address, const CounterNames* names,
      std::vector<WorkerSource> workers, std::vector<ClockSource> clocks,
      std::vector<Port*> ports, double tsc_hz);
  // Stops serving promptly (well under the listener's 2 s poll).
  ~MetricsExporter();

  // Exports the control plane's status from the next Update() on. `control`
  // must outlive the exporter (or be detached with nullptr).
  void AttachControlPlane(const servo::ControlPlane* control);

  // Serves the alarm table's series (read from `snapshots` at each scrape;
  // it must outlive the exporter, or StopServing be called first).
  void AttachAlarms(const servo::ControlSnapshots* snapshots);
  // Serves `c`'s families too, read at each scrape (a pipeline module's
  // counters: PipelineFactory::ScrapeCollectables).
  void AddCollectable(std::shared_ptr<prometheus::Collectable> c);
  // Stops the HTTP server (before what the collectors read goes away).
  void StopServing();

  // Control thread only.
  void Update();
  // The TCP port bound (useful with port 0).
  int listening_port() const;
  // The current exposition, as a scrape would return it.
  std::string Serialize() const;
  // The protocol modules' families: the registry's and those of the
  // collectables AddCollectable gave (not the workers' or the alarms').
  // Any thread, once set-up is over.
  std::vector<prometheus::MetricFamily> ModuleFamilies() const;
  // The registry, for the control side's own families (reloads, fleet,
  // port stamps). The families they add are served with the rest.
  prometheus::Registry& registry() { return *registry_; }

 private:
  struct ClockSeries;
  struct PortSeries;
  MetricsExporter() = default;
  void BuildFamilies();
  void UpdateClock(ClockSeries& c, const core::ClockModel& tsc_now_model);
  void UpdatePort(PortSeries& p);

  const CounterNames* names_ = nullptr;
  double tsc_hz_ = 0;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string host_;  // the address's host part, to wake the listener
  std::shared_ptr<WorkerCollector> workers_;
  std::shared_ptr<AlarmCollector> alarms_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::vector<std::unique_ptr<ClockSeries>> clocks_;
  std::vector<std::unique_ptr<PortSeries>> ports_;
  std::map<std::string, prometheus::Family<prometheus::Counter>*> counters_;
  std::map<std::string, prometheus::Family<prometheus::Gauge>*> gauges_;
  const servo::ControlPlane* control_ = nullptr;
  std::unique_ptr<ControlMetrics> control_metrics_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_METRICS_EXPORTER_H_
