// SPDX-License-Identifier: Apache-2.0
// AlarmCollector (alarm_collector.h).
#include "dataplane/metrics/alarm_collector.h"

#include "dataplane/metrics/scrape_families.h"

namespace zg::dataplane {
namespace {

constexpr char kActive[] = "zeitgeber_alarm_active";
constexpr char kActiveHelp[] =
    "1 while the alarm is raised, 0 once cleared (doc/alarms.md).";
constexpr char kSince[] = "zeitgeber_alarm_since_timestamp_seconds";
constexpr char kSinceHelp[] =
    "When the alarm was last raised or cleared, UTC Unix seconds (0: never "
    "raised); the instant of its audit record and SNMP notification.";
constexpr char kRaises[] = "zeitgeber_alarm_raises_total";
constexpr char kRaisesHelp[] = "Times the alarm was raised since start.";

}  // namespace

std::vector<prometheus::MetricFamily> AlarmCollector::Collect() const {
  ScrapeFamilies f;
  f.Declare(kActive, kActiveHelp, prometheus::MetricType::Gauge);
  f.Declare(kSince, kSinceHelp, prometheus::MetricType::Gauge);
  f.Declare(kRaises, kRaisesHelp, prometheus::MetricType::Counter);
  const std::shared_ptr<const servo::AlarmTable> t = snapshots_->Alarms();
  if (t == nullptr) return f.Take();
  for (const servo::AlarmRow& r : t->rows) {
    if (r.retired) continue;  // its source or port is gone: no series
    const ScrapeFamilies::Labels labels = {
        {"alarm", servo::AlarmDefOf(r.id).name},
        {"severity", servo::AlarmSeverityName(r.severity)},
        {"resource", r.instance}};
    f.Gauge(kActive, kActiveHelp, labels, r.active ? 1 : 0);
    f.Gauge(kSince, kSinceHelp, labels,
            r.since_tai.value == 0
                ? 0.0
                : static_cast<double>(r.since_utc.value) * 1e-9);
    f.Counter(kRaises, kRaisesHelp, labels, static_cast<double>(r.raises));
  }
  return f.Take();
}

}  // namespace zg::dataplane
