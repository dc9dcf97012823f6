// SPDX-License-Identifier: Apache-2.0
// Runs zg-loadgen trials: one offered rate for a bounded time (or request
// count) across every lane, with a progress line every second, then the
// lanes' measurements merged. A plain run is one trial; --sweep runs one per
// rate the no-drop search (sweep.h) asks for.
//
// Per trial, on the main lcore: a fresh LaneEngine and RateController per
// lane (rate and quota split evenly), a common start time 20 ms ahead, the
// lanes launched on their lcores; while they run, the generator clock is
// re-anchored every 100 ms and progress summed from the lanes' published
// snapshots; when every lane is done, their measurements are merged.
//
//   ZG_ASSIGN_OR_RETURN(auto runner, TrialRunner::Create(config, lanes,
//                                                          &clock));
//   ZG_ASSIGN_OR_RETURN(TrialOutcome o, runner->Run(
//       {.rate_pps = 1e6, .duration = absl::Seconds(10)}, &abort));
#ifndef ZG_BENCH_LOADGEN_TRIAL_RUNNER_H_
#define ZG_BENCH_LOADGEN_TRIAL_RUNNER_H_

#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/loadgen/client_space.h"
#include "bench/loadgen/config.h"
#include "bench/loadgen/dpdk_lane.h"
#include "bench/loadgen/generator_clock.h"
#include "bench/loadgen/lane_engine.h"
#include "bench/loadgen/sweep.h"

namespace zg::bench {

struct TrialRunnerConfig {
  ClientSpace space;
  TrafficMix mix;
  uint16_t ntp_port = 123;
  absl::Duration timeout = absl::Milliseconds(200);  // reply deadline
  uint32_t burst = 32;
  bool reflector = false;
  std::shared_ptr<const NtsClientSetup> nts;  // when the mix has nts
  FILE* progress = nullptr;  // a line per second here; null: quiet
};

// A lane and the lcore it runs on. The lane must outlive the runner.
struct LaneSlot {
  DpdkLane* lane = nullptr;
  unsigned lcore = 0;
};

struct TrialSpec {
  double rate_pps = 0;  // all lanes together; 0: as fast as they can
  absl::Duration duration = absl::Seconds(10);
  uint64_t count = 0;  // requests in all; 0: no limit
};

struct TrialOutcome {
  double offered_pps = 0;
  double sending_s = 0;           // start to the last lane's end of sending
  LaneMeasurements measurements;  // merged, lost settled
  LaneFrameStats frames;
  uint64_t table_depth = 0;  // requests tracked per client (lane 0)
  bool aborted = false;
  TrialResult AsTrialResult() const;
};

class TrialRunner {
 public:
  // `clock` must outlive the runner. Connects the lanes' handoff rings.
  static absl::StatusOr<std::unique_ptr<TrialRunner>> Create(
      const TrialRunnerConfig& config, std::vector<LaneSlot> lanes,
      GeneratorClock* clock);
  ~TrialRunner();  // frees the handoff rings
  TrialRunner(const TrialRunner&) = delete;
  TrialRunner& operator=(const TrialRunner&) = delete;

  // Runs one trial. `abort` (set by a signal handler) ends sending early;
  // the trial still drains and reports.
  absl::StatusOr<TrialOutcome> Run(const TrialSpec& spec,
                                   const std::atomic<bool>* abort);

  // --mix=ptp_unicast: every lane runs its share of the unicast PTP
  // subscribers of `base` (lane, lanes, tsc_hz and start_tsc are filled in
  // here) for `duration`, then receives for the config's timeout. Returns
  // the lanes' summaries merged; their frame counters go to *frames.
  absl::StatusOr<PtpSubscriberSummary> RunPtpSubscribers(
      const PtpSubscriberConfig& base, absl::Duration duration,
      const std::atomic<bool>* abort, LaneFrameStats* frames);

 private:
  TrialRunner(const TrialRunnerConfig& config, std::vector<LaneSlot> lanes,
              GeneratorClock* clock)
      : config_(config), lanes_(std::move(lanes)), clock_(clock) {}
  absl::Status ConnectRings();
  // Fresh engines and paces for every lane, then a common start time (the
  // TSC at which sending starts, written to *start_tsc) just ahead.
  absl::Status PrepareLanes(const TrialSpec& spec, TrialOutcome* out,
                            uint64_t* start_tsc);
  // Sums the lanes' snapshots; true when every lane is done.
  bool Snapshot(ProgressSample* sample, uint64_t* send_end_tsc) const;
  // Re-anchors the clock and prints progress until every lane is done.
  void Watch(uint64_t start_tsc);

  TrialRunnerConfig config_;
  std::vector<LaneSlot> lanes_;
  GeneratorClock* clock_;
  std::vector<rte_ring*> rings_;  // lanes * lanes, [from * n + to]
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_TRIAL_RUNNER_H_
