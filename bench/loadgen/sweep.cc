// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/sweep.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace zg::bench {

absl::Status ValidateSweepConfig(const SweepConfig& c) {
  if (!(c.max_rate_pps >= 0) || !std::isfinite(c.max_rate_pps)) {
    return absl::InvalidArgumentError("sweep: max rate must be >= 0 (0: max)");
  }
  if (!(c.min_rate_pps > 0) || !std::isfinite(c.min_rate_pps)) {
    return absl::InvalidArgumentError("sweep: min rate must be > 0");
  }
  if (c.max_rate_pps != 0 && c.min_rate_pps >= c.max_rate_pps) {
    return absl::InvalidArgumentError(
        absl::StrCat("sweep: min rate ", c.min_rate_pps,
                     " pps is not below the max rate ", c.max_rate_pps));
  }
  if (!(c.loss_threshold >= 0 && c.loss_threshold < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sweep: loss threshold ", c.loss_threshold,
                     " must be in [0, 1) (1e-4 is 0.01 %)"));
  }
  if (!(c.resolution > 0 && c.resolution < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sweep: resolution ", c.resolution, " must be in (0, 1)"));
  }
  if (c.max_trials < 1) {
    return absl::InvalidArgumentError("sweep: need at least one trial");
  }
  return absl::OkStatus();
}

bool TrialPasses(const TrialResult& trial, double loss_threshold) {
  return trial.sent > 0 && trial.answered <= trial.sent &&
         trial.Loss() <= loss_threshold;
}

SweepResult FindNoDropRate(
    const SweepConfig& config,
    absl::FunctionRef<TrialResult(double offered_pps)> run_trial) {
  SweepResult result;
  auto run = [&](double pps) {
    result.trials.push_back(run_trial(pps));
    const TrialResult& t = result.trials.back();
    const bool pass = TrialPasses(t, config.loss_threshold);
    if (pass && (!result.found || t.achieved_pps > result.best.achieved_pps)) {
      result.found = true;
      result.best = t;
    }
    return pass;
  };

  if (run(config.max_rate_pps)) {
    result.generator_limited = true;
    return result;
  }
  const TrialResult& first = result.trials.front();
  // The server failed at what the generator achieved: search below it.
  double hi = first.achieved_pps > 0 ? first.achieved_pps : first.offered_pps;
  if (config.max_rate_pps > 0 && hi > config.max_rate_pps) {
    hi = config.max_rate_pps;
  }
  double lo = 0;  // best passing offered rate; 0: none yet
  while (result.trials.size() < config.max_trials) {
    if (lo > 0 && hi - lo <= config.resolution * hi) break;
    const double rate = lo > 0 ? (lo + hi) / 2 : hi / 2;
    if (rate < config.min_rate_pps) break;
    if (run(rate)) {
      lo = rate;
    } else {
      hi = rate;
    }
  }
  return result;
}

}  // namespace zg::bench
