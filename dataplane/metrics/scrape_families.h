// SPDX-License-Identifier: Apache-2.0
// ScrapeFamilies: builds Prometheus families at scrape time, for the
// prometheus::Collectable implementations that read their values when
// Prometheus asks (worker counters, PTP and NTS counters, the alarm table)
// instead of copying them into a registry on a timer. Each scrape gets the
// values as they are at that instant, so a scrape right after traffic stops
// equals the final counters.
//
//   ScrapeFamilies f;
//   f.Counter("zeitgeber_rx_packets_total", "Frames received.",
//             {{"worker", "0"}}, 1234);
//   f.Gauge("zeitgeber_alarm_active", "...", {{"alarm", "holdover"}}, 1);
//   f.Histogram("zeitgeber_ptp_unicast_lateness_seconds", "...",
//               {{"type", "Sync"}}, {1e-3, 2e-3}, {5, 1, 0}, 0.004);
//   return f.Take();   // in Collect()
//
// Not thread-safe: one per Collect() call.
#ifndef ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_
#define ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace zg::dataplane {

class ScrapeFamilies {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  void Counter(const std::string& name, const std::string& help,
               const Labels& labels, double value);
  void Gauge(const std::string& name, const std::string& help,
             const Labels& labels, double value);
  // A histogram from per-bucket counts (not cumulative): counts[i] fell at
  // or below upper_bounds[i] and above the bound before it; the one count
  // past the last bound is the +Inf bucket (counts.size() ==
  // upper_bounds.size() + 1). `sum` is the observations' sum.
  void Histogram(const std::string& name, const std::string& help,
                 const Labels& labels, const std::vector<double>& upper_bounds,
                 const std::vector<uint64_t>& counts, double sum);
  // Labels every later sample gets besides its own (a collector of several
  // ports: {{"port", "eth0"}} before each port's samples).
  void SetCommonLabels(Labels labels) { common_ = std::move(labels); }
  // Declares a family with no samples yet (so it is listed with its help).
  void Declare(const std::string& name, const std::string& help,
               prometheus::MetricType type);
  std::vector<prometheus::MetricFamily> Take();

 private:
  prometheus::MetricFamily& Family(const std::string& name,
                                   const std::string& help,
                                   prometheus::MetricType type);
  // The labels of a sample: its own and the common ones, in name order.
  std::vector<prometheus::ClientMetric::Label> SampleLabels(
      const Labels& labels) const;
  std::vector<prometheus::MetricFamily> families_;
  std::map<std::string, size_t> index_;
  Labels common_;
};

// A Collectable whose families `fill` writes at each scrape (on the
// exporter's thread: `fill` must only read what any thread may read).
//
//   std::make_shared<FamiliesCollectable>([this](ScrapeFamilies& f) {
//     f.Counter("zeitgeber_ntp_nts_replies_total", "...", {}, Replies());
//   });
class FamiliesCollectable final : public prometheus::Collectable {
 public:
  explicit FamiliesCollectable(std::function<void(ScrapeFamilies&)> fill)
      : fill_(std::move(fill)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    ScrapeFamilies f;
    fill_(f);
    return f.Take();
  }

 private:
  std::function<void(ScrapeFamilies&)> fill_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_METRICS_SCRAPE_FAMILIES_H_
