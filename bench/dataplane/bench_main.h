// SPDX-License-Identifier: Apache-2.0
// What every data-plane micro-benchmark's main() shares: an in-process EAL
// (no hugepages, no PCI, one lcore), Google Benchmark's run with the
// BestTimeReporter (bench/best_time_reporter.h), and the summary the
// benchmark prints at the end (ratios against a baseline in the same run).
//
//   int main(int argc, char** argv) {
//     return zg::dataplane::bench::RunDataplaneBenchmarks(
//         argc, argv, {.program = "ntp_auth_benchmark"},
//         [](const zg::dataplane::bench::BestTimeReporter& r) {
//           std::optional<double> ns = r.BestNs("BM_NtpAuthPerRequest/key:1");
//         });
//   }
#ifndef ZG_BENCH_DATAPLANE_BENCH_MAIN_H_
#define ZG_BENCH_DATAPLANE_BENCH_MAIN_H_

#include <functional>

#include "bench/best_time_reporter.h"

namespace zg::dataplane::bench {

using zg::bench::BestTimeReporter;

struct EalBenchmarkOptions {
  const char* program = "benchmark";  // argv[0] for the EAL, file prefix
  int memory_mb = 128;                // the EAL's -m
};

// Starts the EAL, runs the benchmarks the command line selects
// (--benchmark_filter, --benchmark_repetitions...), then `summarise` (may be
// empty). Returns 2 when the EAL does not start; otherwise exits the process
// without tearing anything down (the rigs hold DPDK objects).
int RunDataplaneBenchmarks(
    int argc, char** argv, const EalBenchmarkOptions& options,
    const std::function<void(const BestTimeReporter&)>& summarise);

}  // namespace zg::dataplane::bench

#endif  // ZG_BENCH_DATAPLANE_BENCH_MAIN_H_
