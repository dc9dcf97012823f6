// SPDX-License-Identifier: Apache-2.0
// AlarmCollector: the alarm table (servo/alarms/alarm_set.h) as Prometheus
// series, read from the control plane's published snapshot when Prometheus
// scrapes (a prometheus::Collectable; the control thread is never waited
// for). Every alarm has its series from start-up, raised or not:
//
//   zeitgeber_alarm_active{alarm, severity, resource}        1 raised, 0 not
//   zeitgeber_alarm_since_timestamp_seconds{...}  the last raise or clear,
//                               UTC Unix seconds (0: never raised)
//   zeitgeber_alarm_raises_total{...}             raises since start
//
// `resource` is the source, port or worker of a per-instance alarm, empty
// for the others (not `instance`, which Prometheus gives the target). The
// since-timestamp is the instant the audit log's alarm_raised/
// alarm_cleared record and the SNMP notification carry.
//
//   exposer.RegisterCollectable(
//       std::make_shared<AlarmCollector>(&control->snapshots()));
#ifndef ZG_DATAPLANE_METRICS_ALARM_COLLECTOR_H_
#define ZG_DATAPLANE_METRICS_ALARM_COLLECTOR_H_

#include <vector>

#include "prometheus/collectable.h"
#include "servo/control/control_snapshots.h"

namespace zg::dataplane {

class AlarmCollector : public prometheus::Collectable {
 public:
  // `snapshots` must outlive the collector's last Collect().
  explicit AlarmCollector(const servo::ControlSnapshots* snapshots)
      : snapshots_(snapshots) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const servo::ControlSnapshots* snapshots_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_ALARM_COLLECTOR_H_
