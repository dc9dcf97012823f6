// SPDX-License-Identifier: Apache-2.0
// The no-drop rate search behind `zg-loadgen --sweep` (RFC 2544 section
// 26.1, "throughput"): the highest offered rate at which the server answers
// all but `loss_threshold` of the requests (0.01 % by default).
//
// The search is a pure function over a callback that runs one trial at an
// offered rate and reports what happened, so it is tested against synthetic
// servers and used unchanged by the DPDK application:
//
//   1. A trial at `max_rate_pps` (0: as fast as the generator can). If it
//      passes, the server kept up with everything the generator could
//      offer: the result is that trial, marked generator_limited.
//   2. Otherwise a binary search between the best passing rate (initially
//      none) and the lowest failing rate (initially the rate the first trial
//      achieved), until the two are within `resolution` of each other,
//      `max_trials` ran, or the next rate would fall below `min_rate_pps`.
//
// A trial passes when loss <= loss_threshold, where loss counts every
// request not answered in time (lost, late, Kiss-o'-Death or invalid) and a
// trial that sent nothing fails. The reported no-drop rate is the rate the
// best passing trial achieved (not merely offered), so a generator that
// could not deliver its offered rate never inflates the result.
//
//   SweepResult r = FindNoDropRate(config, [&](double pps) {
//     return RunTrial(pps);   // sends for a few seconds, drains, counts
//   });
#ifndef ZG_BENCH_LOADGEN_SWEEP_H_
#define ZG_BENCH_LOADGEN_SWEEP_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace zg::bench {

struct SweepConfig {
  double max_rate_pps = 0;       // first trial; 0: unlimited
  double min_rate_pps = 1000;    // give up below this
  double loss_threshold = 1e-4;  // 0.01 %
  double resolution = 0.01;      // stop when hi - lo <= resolution * hi
  uint32_t max_trials = 20;
};
absl::Status ValidateSweepConfig(const SweepConfig& config);

struct TrialResult {
  double offered_pps = 0;   // 0: unlimited
  double achieved_pps = 0;  // sent / sending time
  uint64_t sent = 0;
  uint64_t answered = 0;  // answered in time and valid
  double Loss() const {
    return sent == 0 ? 1.0 : static_cast<double>(sent - answered) / sent;
  }
};

struct SweepResult {
  bool found = false;  // some trial passed
  // The best passing trial (valid when found).
  TrialResult best;
  // The first trial (at max_rate_pps) passed: the server may be faster
  // than this generator could show.
  bool generator_limited = false;
  std::vector<TrialResult> trials;  // in the order they ran
  double no_drop_pps() const { return found ? best.achieved_pps : 0; }
};

bool TrialPasses(const TrialResult& trial, double loss_threshold);

// Runs the search; `run_trial(offered_pps)` (0: unlimited) is called at
// most config.max_trials times. The config must pass ValidateSweepConfig.
SweepResult FindNoDropRate(
    const SweepConfig& config,
    absl::FunctionRef<TrialResult(double offered_pps)> run_trial);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_SWEEP_H_
