// SPDX-License-Identifier: Apache-2.0
// ScrapeFamilies (scrape_families.h).
#include "dataplane/metrics/scrape_families.h"

#include <algorithm>
#include <limits>

namespace zg::dataplane {

// In name order, as prometheus-cpp's registry prints them.
std::vector<prometheus::ClientMetric::Label> ScrapeFamilies::SampleLabels(
    const Labels& labels) const {
  std::vector<prometheus::ClientMetric::Label> out;
  for (const auto& [k, v] : common_) out.push_back({k, v});
  for (const auto& [k, v] : labels) out.push_back({k, v});
  std::sort(out.begin(), out.end());
  return out;
}

prometheus::MetricFamily& ScrapeFamilies::Family(const std::string& name,
                                                 const std::string& help,
                                                 prometheus::MetricType type) {
  auto [it, fresh] = index_.try_emplace(name, families_.size());
  if (fresh) {
    prometheus::MetricFamily f;
    f.name = name;
    f.help = help;
    f.type = type;
    families_.push_back(std::move(f));
  }
  return families_[it->second];
}

void ScrapeFamilies::Declare(const std::string& name, const std::string& help,
                             prometheus::MetricType type) {
  Family(name, help, type);
}

void ScrapeFamilies::Counter(const std::string& name, const std::string& help,
                             const Labels& labels, double value) {
  prometheus::ClientMetric m;
  m.label = SampleLabels(labels);
  m.counter.value = value;
  Family(name, help, prometheus::MetricType::Counter)
      .metric.push_back(std::move(m));
}

void ScrapeFamilies::Gauge(const std::string& name, const std::string& help,
                           const Labels& labels, double value) {
  prometheus::ClientMetric m;
  m.label = SampleLabels(labels);
  m.gauge.value = value;
  Family(name, help, prometheus::MetricType::Gauge)
      .metric.push_back(std::move(m));
}

void ScrapeFamilies::Histogram(const std::string& name, const std::string& help,
                               const Labels& labels,
                               const std::vector<double>& upper_bounds,
                               const std::vector<uint64_t>& counts,
                               double sum) {
  prometheus::ClientMetric m;
  m.label = SampleLabels(labels);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    m.histogram.bucket.push_back(
        {cumulative, i < upper_bounds.size()
                         ? upper_bounds[i]
                         : std::numeric_limits<double>::infinity()});
  }
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = sum;
  Family(name, help, prometheus::MetricType::Histogram)
      .metric.push_back(std::move(m));
}

std::vector<prometheus::MetricFamily> ScrapeFamilies::Take() {
  index_.clear();
  return std::move(families_);
}

}  // namespace zg::dataplane
