// SPDX-License-Identifier: Apache-2.0
// ScrapeFamilies: builds Prometheus families at scrape time, for the
// prometheus::Collectable implementations that read their values when
// Prometheus asks (worker counters, the alarm table) instead of copying
// them into a registry on a timer. Each scrape gets the values as they are
// at that instant, so a scrape right after traffic stops equals the final
// counters.
//
//   ScrapeFamilies f;
//   f.Counter("zeitgeber_rx_packets_total", "Frames received.",
//             {{"worker", "0"}}, 1234);
//   f.Gauge("zeitgeber_alarm_active", "...", {{"alarm", "holdover"}}, 1);
//   return f.Take();   // in Collect()
//
// Not thread-safe: one per Collect() call.
#ifndef ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_
#define ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_

#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/metric_family.h"

namespace zg::dataplane {

class ScrapeFamilies {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  void Counter(const std::string& name, const std::string& help,
               const Labels& labels, double value);
  void Gauge(const std::string& name, const std::string& help,
             const Labels& labels, double value);
  // Declares a family with no samples yet (so it is listed with its help).
  void Declare(const std::string& name, const std::string& help,
               prometheus::MetricType type);
  std::vector<prometheus::MetricFamily> Take();

 private:
  prometheus::MetricFamily& Family(const std::string& name,
                                   const std::string& help,
                                   prometheus::MetricType type);
  std::vector<prometheus::MetricFamily> families_;
  std::map<std::string, size_t> index_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_
