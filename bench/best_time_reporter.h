// SPDX-License-Identifier: Apache-2.0
// The benchmarks' summary reporter: Google Benchmark's console output, and
// each run's fastest repetition kept for the ratios a benchmark prints at
// the end against a baseline measured in the same run.
//
//   BestTimeReporter reporter;
//   benchmark::RunSpecifiedBenchmarks(&reporter);
//   std::optional<double> a = reporter.BestNs("BM_SeqLockRead/threads:1");
#ifndef ZG_BENCH_BEST_TIME_REPORTER_H_
#define ZG_BENCH_BEST_TIME_REPORTER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace zg::bench {

// Console output, and per run (named as the console names it: "BM_Name",
// "BM_Name/arg:1", "BM_Name/real_time/threads:2") the fastest CPU time and
// the fastest wall time per iteration of its repetitions (or the median,
// when only aggregates are reported), and the smallest value of each of its
// counters. CPU time suits single-threaded runs on a shared machine (wall
// time counts preemptions); a reader that may wait for a lock needs wall
// time.
class BestTimeReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;

  // CPU nanoseconds per iteration; nullopt when the run did not happen.
  std::optional<double> BestNs(const std::string& run) const;
  // Wall nanoseconds per iteration of one thread.
  std::optional<double> BestRealNs(const std::string& run) const;
  std::optional<double> BestCounter(const std::string& run,
                                    const std::string& counter) const;

 private:
  std::map<std::string, double> best_ns_;
  std::map<std::string, double> best_real_ns_;
  std::map<std::string, std::map<std::string, double>> best_counters_;
};

}  // namespace zg::bench

#endif  // ZG_BENCH_BEST_TIME_REPORTER_H_
