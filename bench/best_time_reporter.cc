// SPDX-License-Identifier: Apache-2.0
// The benchmarks' summary reporter (best_time_reporter.h).
#include "bench/best_time_reporter.h"

#include <algorithm>

namespace zg::bench {
namespace {

void KeepSmallest(std::map<std::string, double>& best, const std::string& key,
                  double value) {
  auto [it, fresh] = best.emplace(key, value);
  if (!fresh) it->second = std::min(it->second, value);
}

}  // namespace

void BestTimeReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& r : runs) {
    const bool median =
        r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
    if ((r.run_type != Run::RT_Iteration && !median) || r.error_occurred ||
        r.iterations == 0) {
      continue;
    }
    const std::string name = r.run_name.str();
    const double iterations = static_cast<double>(r.iterations);
    KeepSmallest(best_ns_, name, r.cpu_accumulated_time * 1e9 / iterations);
    // Google Benchmark reports a threaded run's real time per thread and
    // its iterations summed over the threads.
    KeepSmallest(best_real_ns_, name,
                 r.real_accumulated_time * 1e9 *
                     static_cast<double>(r.threads) / iterations);
    for (const auto& [counter, value] : r.counters) {
      KeepSmallest(best_counters_[name], counter, value.value);
    }
  }
}

std::optional<double> BestTimeReporter::BestNs(const std::string& run) const {
  const auto it = best_ns_.find(run);
  if (it == best_ns_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> BestTimeReporter::BestRealNs(
    const std::string& run) const {
  const auto it = best_real_ns_.find(run);
  if (it == best_real_ns_.end()) return std::nullopt;
  return it->second;
}

std::optional<double> BestTimeReporter::BestCounter(
    const std::string& run, const std::string& counter) const {
  const auto it = best_counters_.find(run);
  if (it == best_counters_.end()) return std::nullopt;
  const auto c = it->second.find(counter);
  if (c == it->second.end()) return std::nullopt;
  return c->second;
}

}  // namespace zg::bench
