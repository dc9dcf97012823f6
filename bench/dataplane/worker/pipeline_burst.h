// SPDX-License-Identifier: Apache-2.0
// The benchmark burst: what a worker does to one burst of kBurstSize mbufs
// between rx_burst and tx_burst, through the real pipeline objects
// (dataplane/worker/protocol_pipeline.h) without the ring or NIC around
// them. The NTP, NTP-auth, interleave and NTS benchmarks measure with it:
// each mbuf holds a copy of one client request, Restore() re-arms them (the
// baseline the benchmarks subtract), Handle() stamps, classifies and handles
// every packet, Finalise() gives the kTransmitFinalise ones one fresh TX
// stamp, as the worker does.
//
//   PipelineBurst b;
//   b.Start({.ntp_auth = &auth}, UdpFrame(ClientFlow::V4(b.mac()), ntp));
//   void BM_Baseline(benchmark::State& state) { b.MeasureBaseline(state); }
//   void BM_PerRequest(benchmark::State& state) {
//     b.Measure(state, [&] { return b.HandleAndFinalise(); });
//   }
//
// Benchmark code (TEST-ONLY helpers from tests/dataplane/testing/).
#ifndef ZG_BENCH_DATAPLANE_WORKER_PIPELINE_BURST_H_
#define ZG_BENCH_DATAPLANE_WORKER_PIPELINE_BURST_H_

#include <rte_ether.h>
#include <rte_mbuf.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "bench/best_time_reporter.h"
#include "benchmark/benchmark.h"
#include "core/time/clock_model.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane::bench {

// A locked model of the TSC, anchored now at TAI (unix_s + 37) s.
core::ClockModel LockedTscModel(int64_t unix_s = 1'800'000'000);

class PipelineBurst {
 public:
  static constexpr uint16_t kPortId = 0;

  PipelineBurst();  // publishes LockedTscModel()
  PipelineBurst(const PipelineBurst&) = delete;
  PipelineBurst& operator=(const PipelineBurst&) = delete;

  // The server's MAC (client frames are addressed to it).
  static const rte_ether_addr& mac();

  // Builds the pipeline (the factory's protocol objects must outlive this)
  // for one port (default: testing::ServerSetup(kPortId, mac())) and fills
  // the burst with `request`. Aborts, saying why, when the pipeline does not
  // build.
  void Start(ProtocolPipelineFactory::Options options,
             std::vector<uint8_t> request,
             std::optional<WorkerSetup> setup = std::nullopt);

  // Re-arms every mbuf with the request, as received.
  void Restore();
  // One burst as the worker runs it: per packet RX stamp and classify, then
  // the handlers' Prefetch, each kind's BeginBurst, and per packet Handle.
  void Handle();
  // FinaliseTx, with one fresh TX stamp, for each packet Handle left
  // kTransmitFinalise, the handlers' EndFinalise after each
  // kFinaliseCheckEvery of them and after the last, then their EndBurst;
  // returns how many.
  uint32_t Finalise();
  uint32_t HandleAndFinalise() {
    Handle();
    return Finalise();
  }

  // The benchmark loops, kBurstSize items per iteration. The baseline
  // re-arms the mbufs only; a measured run re-arms them and runs
  // `one_burst`, which returns how many requests it answered: the run fails
  // unless every one was.
  void MeasureBaseline(benchmark::State& state);
  template <typename OneBurst>
  void Measure(benchmark::State& state, OneBurst one_burst) {
    uint64_t answered = 0;
    for (auto _ : state) {
      Restore();
      answered += one_burst();
      benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kBurstSize);
    if (answered != static_cast<uint64_t>(state.iterations()) * kBurstSize) {
      state.SkipWithError("not every request was answered");
    }
  }

  rte_mbuf* mbuf(size_t i) { return mbufs_[i]; }
  Packet& packet(size_t i) { return packets_[i]; }
  // The handler that finalised packet i in the last burst, or null.
  FrameHandler* finalised(size_t i) { return finalise_[i]; }
  const std::vector<uint8_t>& request() const { return request_; }
  const Timestamper& stamper() const { return *stamper_; }

 private:
  core::PublishedClock clock_;
  std::unique_ptr<Timestamper> stamper_;
  CounterNames names_;
  std::unique_ptr<ProtocolPipelineFactory> factory_;
  Pipeline pipeline_;
  std::array<rte_mbuf*, kBurstSize> mbufs_ = {};
  std::array<Packet, kBurstSize> packets_ = {};
  std::array<FrameHandler*, kBurstSize> finalise_ = {};
  // Handle's scratch: the classified frames, their kinds, one kind's group.
  std::array<Packet*, kBurstSize> classified_ = {};
  std::array<uint8_t, kBurstSize> kinds_ = {};
  std::array<Packet*, kBurstSize> group_ = {};
  std::vector<uint8_t> request_;
};

// The summary of a burst benchmark with cases (its argument `arg_name`
// 0, 1, ...: `cases` names them): per case, the work per request
// ((`measured` burst - BM_RestoreBaseline burst) / kBurstSize), the replies
// per second per core (re-arm included) and the time per request as a
// multiple of case 0's; `label` starts each line.
void PrintBurstSummary(const zg::bench::BestTimeReporter& r, const char* label,
                       const std::string& measured, const std::string& arg_name,
                       absl::Span<const char* const> cases);

}  // namespace zg::dataplane::bench

#endif  // ZG_BENCH_DATAPLANE_WORKER_PIPELINE_BURST_H_
