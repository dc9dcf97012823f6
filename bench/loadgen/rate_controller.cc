// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/rate_controller.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace zg::bench {

absl::StatusOr<RateController> RateController::Create(const Config& config) {
  if (config.tsc_hz == 0) {
    return absl::InvalidArgumentError("rate controller: TSC frequency is 0");
  }
  if (!(config.rate_pps >= 0) || !std::isfinite(config.rate_pps)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rate controller: rate ", config.rate_pps, " pps is not >= 0"));
  }
  if (config.rate_pps > static_cast<double>(config.tsc_hz)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rate controller: rate ", config.rate_pps,
        " pps exceeds one packet per TSC tick (", config.tsc_hz, " Hz)"));
  }
  if (config.max_burst == 0) {
    return absl::InvalidArgumentError("rate controller: max_burst is 0");
  }
  if (config.max_backlog < config.max_burst) {
    return absl::InvalidArgumentError(
        absl::StrCat("rate controller: max_backlog ", config.max_backlog,
                     " is smaller than max_burst ", config.max_burst));
  }
  return RateController(config);
}

RateController::RateController(const Config& config)
    : config_(config),
      packets_per_tick_(config.rate_pps / static_cast<double>(config.tsc_hz)) {}

void RateController::Start(uint64_t now_tsc) {
  start_tsc_ = now_tsc;
  sent_ = 0;
  skipped_ = 0;
}

uint32_t RateController::Due(uint64_t now_tsc) {
  if (unlimited()) return config_.max_burst;
  if (now_tsc <= start_tsc_) return 0;
  const uint64_t allowed = static_cast<uint64_t>(
      static_cast<double>(now_tsc - start_tsc_) * packets_per_tick_);
  const uint64_t done = sent_ + skipped_;
  if (allowed <= done) return 0;
  uint64_t owed = allowed - done;
  if (owed > config_.max_backlog) {
    skipped_ += owed - config_.max_backlog;
    owed = config_.max_backlog;
  }
  return static_cast<uint32_t>(std::min<uint64_t>(owed, config_.max_burst));
}

uint64_t RateController::NextDueTsc() const {
  if (unlimited()) return start_tsc_;
  // Packet number done+1 is due once (t - start) * rate / hz >= done + 1.
  const double ticks =
      std::ceil(static_cast<double>(sent_ + skipped_ + 1) / packets_per_tick_);
  return start_tsc_ + static_cast<uint64_t>(ticks);
}

}  // namespace zg::bench
