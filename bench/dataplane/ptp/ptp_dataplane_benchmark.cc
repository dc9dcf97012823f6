// SPDX-License-Identifier: Apache-2.0
// Delay_Req -> Delay_Resp against NTP request -> reply through zeitgeberd's
// real worker loop and protocol pipeline
// (dataplane/worker/protocol_pipeline.h), on an in-process ring port: each
// round puts 32 requests in the port's RX ring, runs one Worker::PollOnce
// (rx_burst, stamping, classification, the handler, the late-TX hook, tx_burst)
// and takes the 32 replies from the TX ring. The two kinds alternate round by
// round in one loop, so the ratio compares them under the same machine load:
//
//   ptp_vs_ntp   Delay_Resp rate / NTP reply rate (the issue asks >= 0.8)
//
// This is the worker's share of the memif-rig figure (which adds the PMD and
// the load generator). Needs no hugepages:
//
//   build/bench/ptp_dataplane_benchmark --benchmark_repetitions=3
#include <array>
#include <chrono>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "bench/dataplane/ptp/ptp_bench_rig.h"
#include "benchmark/benchmark.h"
#include "core/ntp/ntp_wire.h"
#include "core/ptp/ptp_wire.h"

ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_DECLARE_FLAG(int, ptp_log_announce_interval);

namespace zg::bench {
namespace {

constexpr uint16_t kRound = kPtpBenchRound;

struct Rig {
  PtpBenchRig* r;
  std::vector<uint8_t> ntp, delay_req;
  bool Round(const std::vector<uint8_t>& frame) { return r->Round(frame); }
};

Rig* MakeRig() {
  absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
  absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
  auto* r = new Rig{MakePtpBenchRig("ptp_dataplane_benchmark", 255), {}, {}};
  std::array<uint8_t, 48> ntp{};
  ntp[0] = 0x23;  // v4, client
  ntp[47] = 1;    // a nonzero transmit timestamp
  r->ntp =
      PtpBenchFrame(kPtpBenchClient, 40000, core::kNtpPort, ntp.data(), 48);
  core::PtpMessage dr;
  dr.header.flags.Set(core::PtpFlag::kUnicast);
  dr.header.source_port_identity = {{{2, 0xC1, 0, 0xFF, 0xFE, 0, 0, 2}}, 1};
  dr.header.control_field = 1;
  dr.body = core::PtpDelayReq{};
  std::array<uint8_t, 64> ptp{};
  const size_t n = core::SerializePtpMessage(dr, ptp);
  r->delay_req =
      PtpBenchFrame(kPtpBenchClient, core::kPtpEventPort, core::kPtpEventPort,
                    ptp.data(), static_cast<uint16_t>(n));
  return r;
}

Rig& TheRig() {
  static Rig* rig = MakeRig();
  return *rig;
}

void BM_NtpReplies(benchmark::State& state) {
  Rig& r = TheRig();
  for (auto _ : state) {
    if (!r.Round(r.ntp)) state.SkipWithError("an NTP request got no reply");
  }
  state.SetItemsProcessed(state.iterations() * kRound);
}
BENCHMARK(BM_NtpReplies);

void BM_DelayResps(benchmark::State& state) {
  Rig& r = TheRig();
  for (auto _ : state) {
    if (!r.Round(r.delay_req)) {
      state.SkipWithError("a Delay_Req got no Delay_Resp");
    }
  }
  state.SetItemsProcessed(state.iterations() * kRound);
}
BENCHMARK(BM_DelayResps);

// Both kinds, alternating round by round: the ratio of their rates.
void BM_DelayRespVsNtp(benchmark::State& state) {
  Rig& r = TheRig();
  using Clock = std::chrono::steady_clock;
  Clock::duration ntp{}, ptp{};
  for (auto _ : state) {
    const auto t0 = Clock::now();
    r.Round(r.ntp);
    const auto t1 = Clock::now();
    r.Round(r.delay_req);
    ptp += Clock::now() - t1;
    ntp += t1 - t0;
  }
  state.counters["ptp_vs_ntp"] =
      static_cast<double>(ntp.count()) / static_cast<double>(ptp.count());
  state.SetItemsProcessed(state.iterations() * 2 * kRound);
}
BENCHMARK(BM_DelayRespVsNtp);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
