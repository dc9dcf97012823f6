// SPDX-License-Identifier: Apache-2.0
// Prometheus series of the control plane (servo::ControlPlaneStatus), in the
// metrics exporter's registry. All names start with zeitgeber_:
//
//   source_up, source_selected, source_enabled, source_health{health},
//   source_priority, source_offset_seconds,
//   source_samples_total, source_samples_accepted_total,
//   source_samples_rejected_total{reason}, source_poll_errors_total,
//   source_falseticker, source_suspect                      {source, kind}
//   gnss_connected, gnss_fix_mode, gnss_satellites_seen{constellation},
//   gnss_satellites_used{constellation}, gnss_time_error_seconds,
//   gnss_messages_total{class}                              {source}
//   discipline_state{state}, discipline_error_bound_seconds,
//   discipline_frequency_offset_ppb, discipline_frequency_uncertainty_ppb,
//   discipline_holdover_seconds, discipline_steps_total
//   tsc_frequency_hz, tsc_frequency_uncertainty_ppb,
//   tsc_frequency_drift_ppb_per_second, tsc_calibration_steps_total
//   nic_clock_frequency_hz, nic_clock_correlation_uncertainty_ppb,
//   nic_clock_drift_ppb_per_second, nic_clock_mapping_error_seconds,
//   nic_clock_steps_total, nic_clock_read_errors_total      {clock}
//   audit_records_total, audit_write_errors_total, audit_rotations_total,
//   audit_suppressed_total, leap_table_expiry_timestamp_seconds
// (doc/alerting.md lists what each is for and the alerts built on them.)
// A source deleted while running loses its series; one rebuilt from a new
// spec under the same name starts them afresh (a counter reset).
//
//   ControlMetrics m(registry);
//   m.Update(control->Snapshot());   // control thread, with the exporter
//
// Control thread only.
#ifndef ZG_DATAPLANE_METRICS_CONTROL_METRICS_H_
#define ZG_DATAPLANE_METRICS_CONTROL_METRICS_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "servo/control/control_status.h"

namespace zg::dataplane {

class ControlMetrics {
 public:
  explicit ControlMetrics(prometheus::Registry& registry);
  void Update(const servo::ControlPlaneStatus& status);

 private:
  using Labels = std::map<std::string, std::string>;
  prometheus::Gauge& G(const std::string& name, const Labels& labels);
  // Sets a counter series to `total` (counters only move forward).
  void C(const std::string& name, const Labels& labels, double total);
  void UpdateSource(const servo::SourceSnapshot& s);
  void UpdateGnss(const std::string& source, const servo::GnssStatus& g);
  void UpdateDiscipline(const servo::ControlPlaneStatus& st);
  void UpdateNic(const servo::NicClockStatus& n);

  // Drops every series recorded for `source`.
  void RemoveSourceSeries(const std::string& source);

  prometheus::Registry& registry_;
  std::map<std::string, prometheus::Family<prometheus::Gauge>*> gauges_;
  std::map<std::string, prometheus::Family<prometheus::Counter>*> counters_;
  // The series of each source exported (family name, labels), and the spec
  // they were exported for.
  struct SourceSeries {
    std::string spec;
    std::set<std::pair<std::string, Labels>> series;
  };
  std::map<std::string, SourceSeries> sources_;
  SourceSeries* recording_ = nullptr;  // during UpdateSource
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_CONTROL_METRICS_H_
