// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/trial_runner.h"

#include <rte_launch.h>
#include <rte_lcore.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "core/time/tsc.h"

namespace zg::bench {
namespace {

constexpr absl::Duration kClockUpdate = absl::Milliseconds(100);
constexpr absl::Duration kProgressInterval = absl::Seconds(1);
constexpr double kStartDelayS = 0.02;
constexpr unsigned kRingSize = 4096;

}  // namespace

TrialResult TrialOutcome::AsTrialResult() const {
  const RequestCounts& c = measurements.counts;
  return {.offered_pps = offered_pps,
          .achieved_pps = sending_s > 0 ? c.sent / sending_s : 0,
          .sent = c.sent,
          .answered = c.answered};
}

absl::StatusOr<std::unique_ptr<TrialRunner>> TrialRunner::Create(
    const TrialRunnerConfig& config, std::vector<LaneSlot> lanes,
    GeneratorClock* clock) {
  if (lanes.empty() || lanes.size() != config.space.config().lanes) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial runner: ", lanes.size(),
                     " lanes for a client "
                     "space laid out over ",
                     config.space.config().lanes));
  }
  auto runner = std::unique_ptr<TrialRunner>(
      new TrialRunner(config, std::move(lanes), clock));
  ZG_RETURN_IF_ERROR(runner->ConnectRings());
  return runner;
}

TrialRunner::~TrialRunner() {
  for (rte_ring* r : rings_) rte_ring_free(r);
}

absl::Status TrialRunner::ConnectRings() {
  const size_t n = lanes_.size();
  if (n < 2) return absl::OkStatus();
  rings_.assign(n * n, nullptr);
  for (size_t from = 0; from < n; ++from) {
    for (size_t to = 0; to < n; ++to) {
      if (from == to) continue;
      const std::string name = absl::StrCat("zglg_h", from, "_", to);
      rte_ring* r = rte_ring_create(name.c_str(), kRingSize, SOCKET_ID_ANY,
                                    RING_F_SP_ENQ | RING_F_SC_DEQ);
      if (r == nullptr) {
        return absl::ResourceExhaustedError(
            absl::StrCat("cannot create handoff ring ", name, ": ",
                         rte_strerror(rte_errno)));
      }
      rings_[from * n + to] = r;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    std::vector<rte_ring*> inbox(n), outbox(n);
    for (size_t j = 0; j < n; ++j) {
      inbox[j] = rings_[j * n + i];
      outbox[j] = rings_[i * n + j];
    }
    lanes_[i].lane->SetRings(std::move(inbox), std::move(outbox));
  }
  return absl::OkStatus();
}

absl::Status TrialRunner::PrepareLanes(const TrialSpec& spec, TrialOutcome* out,
                                       uint64_t* start_tsc) {
  const double hz = clock_->hz();
  const uint32_t n = static_cast<uint32_t>(lanes_.size());
  const double lane_rate = spec.rate_pps / n;
  const uint64_t timeout_ticks = static_cast<uint64_t>(
      std::ceil(absl::ToDoubleSeconds(config_.timeout) * hz));
  // Engines first: their request tables may take a while to allocate, and
  // the clock for the trial starts only when every lane is ready.
  std::vector<std::unique_ptr<LaneEngine>> engines;
  std::vector<RateController> paces;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t depth =
        ChooseDepth(lane_rate, config_.space.ClientsInLane(i), config_.timeout);
    if (i == 0) out->table_depth = depth;
    ZG_ASSIGN_OR_RETURN(std::unique_ptr<LaneEngine> engine,
                        LaneEngine::Create({.lane = i,
                                            .space = config_.space,
                                            .mix = config_.mix,
                                            .ntp_port = config_.ntp_port,
                                            .depth = depth,
                                            .timeout_ticks = timeout_ticks,
                                            .reflector = config_.reflector,
                                            .nts = config_.nts}));
    engines.push_back(std::move(engine));
    ZG_ASSIGN_OR_RETURN(
        RateController pace,
        RateController::Create(
            {.rate_pps = lane_rate,
             .tsc_hz = static_cast<uint64_t>(hz),
             .max_burst = config_.burst,
             .max_backlog = std::max<uint32_t>(1024, config_.burst)}));
    paces.push_back(pace);
    lanes_[i].lane->Flush();
  }
  LanePlan plan;
  plan.start_tsc = core::ReadTsc() + static_cast<uint64_t>(kStartDelayS * hz);
  plan.stop_tsc =
      plan.start_tsc +
      static_cast<uint64_t>(absl::ToDoubleSeconds(spec.duration) * hz);
  plan.drain_ticks = timeout_ticks;
  plan.burst = config_.burst;
  for (uint32_t i = 0; i < n; ++i) {
    plan.quota = spec.count == 0 ? 0 : spec.count / n + (i < spec.count % n);
    lanes_[i].lane->Prepare(std::move(engines[i]), paces[i], plan);
  }
  *start_tsc = plan.start_tsc;
  return absl::OkStatus();
}

bool TrialRunner::Snapshot(ProgressSample* sample,
                           uint64_t* send_end_tsc) const {
  bool all_done = true;
  sample->counts = {};
  sample->invalid = 0;
  *send_end_tsc = 0;
  for (const LaneSlot& s : lanes_) {
    LaneProgress p;
    if (!s.lane->progress().TryRead(&p)) {
      all_done = false;
      continue;
    }
    sample->counts += p.counts;
    sample->invalid += p.invalid;
    *send_end_tsc = std::max(*send_end_tsc, p.send_end_tsc);
    all_done = all_done && p.done;
  }
  return all_done;
}

void TrialRunner::Watch(uint64_t start_tsc) {
  const absl::Time start = absl::Now();
  absl::Time next_progress = start + kProgressInterval;
  ProgressSample prev;
  uint64_t send_end = 0;
  for (;;) {
    absl::SleepFor(kClockUpdate);
    (void)clock_->Update();  // a failed read keeps the last model
    ProgressSample now;
    const bool done = Snapshot(&now, &send_end);
    now.t_s = static_cast<double>(core::ReadTsc() - start_tsc) / clock_->hz();
    if (done) return;
    if (config_.progress != nullptr && absl::Now() >= next_progress) {
      std::fprintf(config_.progress, "%s\n",
                   FormatProgressLine(prev, now).c_str());
      std::fflush(config_.progress);
      prev = now;
      next_progress += kProgressInterval;
    }
  }
}

absl::StatusOr<TrialOutcome> TrialRunner::Run(const TrialSpec& spec,
                                              const std::atomic<bool>* abort) {
  TrialOutcome out;
  out.offered_pps = spec.rate_pps;
  ZG_RETURN_IF_ERROR(clock_->Update());
  uint64_t start_tsc = 0;
  ZG_RETURN_IF_ERROR(PrepareLanes(spec, &out, &start_tsc));
  size_t launched = 0;
  absl::Status launch_error;
  for (const LaneSlot& s : lanes_) {
    s.lane->SetAbortFlag(abort);
    const int rc = rte_eal_remote_launch(&DpdkLane::Entry, s.lane, s.lcore);
    if (rc != 0) {
      launch_error = absl::InternalError(
          absl::StrCat("cannot launch lane ", s.lane->index(), " on lcore ",
                       s.lcore, ": rte_eal_remote_launch returned ", rc));
      break;
    }
    ++launched;
  }
  if (launched == lanes_.size()) Watch(start_tsc);
  for (size_t i = 0; i < launched; ++i) rte_eal_wait_lcore(lanes_[i].lcore);
  ZG_RETURN_IF_ERROR(launch_error);

  uint64_t send_end = 0;
  for (const LaneSlot& s : lanes_) {
    out.measurements.Merge(s.lane->engine().measurements());
    out.measurements.counts.skipped += s.lane->pace().skipped();
    out.frames += s.lane->frame_stats();
    LaneProgress p;
    if (s.lane->progress().TryRead(&p)) {
      send_end = std::max(send_end, p.send_end_tsc);
    }
  }
  out.sending_s = send_end > start_tsc
                      ? static_cast<double>(send_end - start_tsc) / clock_->hz()
                      : 0;
  out.aborted = abort != nullptr && abort->load(std::memory_order_relaxed);
  return out;
}

absl::StatusOr<PtpSubscriberSummary> TrialRunner::RunPtpSubscribers(
    const PtpSubscriberConfig& base, absl::Duration duration,
    const std::atomic<bool>* abort, LaneFrameStats* frames) {
  ZG_RETURN_IF_ERROR(clock_->Update());
  const double hz = clock_->hz();
  const uint32_t n = static_cast<uint32_t>(lanes_.size());
  std::vector<std::unique_ptr<PtpSubscriberEngine>> engines;
  PtpSubscriberConfig c = base;
  c.lanes = n;
  c.tsc_hz = static_cast<uint64_t>(hz);
  for (uint32_t i = 0; i < n; ++i) {
    c.lane = i;
    ZG_ASSIGN_OR_RETURN(std::unique_ptr<PtpSubscriberEngine> e,
                        PtpSubscriberEngine::Create(c));
    engines.push_back(std::move(e));
    lanes_[i].lane->Flush();
  }
  LanePlan plan;
  plan.start_tsc = core::ReadTsc() + static_cast<uint64_t>(kStartDelayS * hz);
  plan.stop_tsc = plan.start_tsc +
                  static_cast<uint64_t>(absl::ToDoubleSeconds(duration) * hz);
  plan.drain_ticks = static_cast<uint64_t>(
      std::ceil(absl::ToDoubleSeconds(config_.timeout) * hz));
  plan.burst = config_.burst;
  for (uint32_t i = 0; i < n; ++i) {
    // The engines' schedule starts with the lanes'.
    engines[i]->Rebase(plan.start_tsc);
    lanes_[i].lane->PrepareSubscribers(std::move(engines[i]), plan);
  }
  size_t launched = 0;
  absl::Status launch_error;
  for (const LaneSlot& s : lanes_) {
    s.lane->SetAbortFlag(abort);
    const int rc = rte_eal_remote_launch(&DpdkLane::Entry, s.lane, s.lcore);
    if (rc != 0) {
      launch_error = absl::InternalError(
          absl::StrCat("cannot launch lane ", s.lane->index(), " on lcore ",
                       s.lcore, ": rte_eal_remote_launch returned ", rc));
      break;
    }
    ++launched;
  }
  if (launched == lanes_.size()) Watch(plan.start_tsc);
  for (size_t i = 0; i < launched; ++i) rte_eal_wait_lcore(lanes_[i].lcore);
  ZG_RETURN_IF_ERROR(launch_error);
  PtpSubscriberSummary out;
  for (const LaneSlot& s : lanes_) {
    out.Merge(s.lane->subscribers()->Summarize());
    *frames += s.lane->frame_stats();
  }
  return out;
}

}  // namespace zg::bench
