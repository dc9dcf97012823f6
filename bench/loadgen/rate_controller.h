// SPDX-License-Identifier: Apache-2.0
// Paces one zg-loadgen lane's departures on the TSC.
//
// By TSC time t the lane may have sent
//
//   allowed(t) = floor((t - start) * rate / tsc_hz)
//
// packets. allowed() is computed from the start on every call, so no rounding
// error accumulates: over a run of any length the count is right to one
// packet, and the achieved rate equals the target as long as the lane keeps
// up. Due() returns how many may leave now.
//
// Catch-up limits: a lane that falls behind (preempted, TX ring full) may
// send its backlog, but at most `max_burst` per call; debt beyond
// `max_backlog` packets is forgiven and counted in skipped(), so the
// achieved rate then falls short of the target, visibly, instead of the lane
// bursting thousands of packets at once. rate_pps == 0 means "as fast as the
// lane can" (--rate=max): Due() always returns max_burst.
//
// Hot path: no allocation, no syscalls; one float multiply per call.
//
//   ZG_ASSIGN_OR_RETURN(RateController pace, RateController::Create(
//       {.rate_pps = 1e6, .tsc_hz = hz, .max_burst = 32}));
//   pace.Start(ReadTsc());
//   for (;;) {
//     uint32_t n = pace.Due(ReadTsc());
//     n = send(n);          // may send fewer
//     pace.OnSent(n);
//   }
#ifndef ZG_BENCH_LOADGEN_RATE_CONTROLLER_H_
#define ZG_BENCH_LOADGEN_RATE_CONTROLLER_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace zg::bench {

class RateController {
 public:
  struct Config {
    double rate_pps = 0;  // packets per second; 0: unlimited
    uint64_t tsc_hz = 0;  // TSC ticks per second
    uint32_t max_burst = 32;
    uint32_t max_backlog = 1024;  // >= max_burst
  };

  static absl::StatusOr<RateController> Create(const Config& config);

  // Starts (or restarts) the schedule at `now_tsc`: nothing is owed yet.
  void Start(uint64_t now_tsc);

  // How many packets may leave at `now_tsc`: 0..max_burst.
  uint32_t Due(uint64_t now_tsc);

  // The lane sent `n` packets (n <= the last Due()); the rest stays owed.
  void OnSent(uint32_t n) { sent_ += n; }

  // TSC at which the next packet is due (for a lane that wants to pause);
  // now-ish when something is already owed. Unlimited: start.
  uint64_t NextDueTsc() const;

  uint64_t sent() const { return sent_; }
  // Departures forgiven because the lane fell more than max_backlog behind.
  uint64_t skipped() const { return skipped_; }
  bool unlimited() const { return packets_per_tick_ == 0; }
  const Config& config() const { return config_; }

 private:
  explicit RateController(const Config& config);

  Config config_;
  double packets_per_tick_;  // 0: unlimited
  uint64_t start_tsc_ = 0;
  uint64_t sent_ = 0;
  uint64_t skipped_ = 0;
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_RATE_CONTROLLER_H_
