// Cost per frame of the worker loop (stamp, classify, dispatch, NTP reply,
// late-TX hook with checksum, tx_burst) on an in-process ring port, against
// a baseline in the same run: the same rings forwarded by bare
// rx_burst/tx_burst. Both re-arm every transmitted frame as a fresh NTP
// request before putting it back on the RX ring (the same copy for both), so
// the difference is zeitgeberd's per-frame work.
//
// The *Epochs variants run the same loop with the reload grace-period mark
// (dataplane/trust/config_swap.h: one load and one store per pass) against
// the unmarked loop in the same run; the empty-poll pair is where a per-pass
// cost weighs most.
//
//   build/bench/worker_benchmark --benchmark_repetitions=5
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace {

// Ring ports have no MAC of their own.
const rte_ether_addr kServerMac = {{0x02, 0, 0, 0, 0, 0x01}};

struct Rig {
  MbufPools pools{8191};
  testing::RingPort ring;
  std::unique_ptr<Port> port;
  core::PublishedClock clock;
  CounterNames names;
  ProtocolPipelineFactory factory;
  WorkerStats stats;
  std::atomic<bool> stop{false};
  std::unique_ptr<Worker> worker;
  std::unique_ptr<Worker> marked;  // the same, marking reader epochs
  ReaderEpochs epochs;
  std::vector<uint8_t> request;  // the frame every mbuf is re-armed with

  Rig(const std::string& tag, bool fill) {
    ring = testing::MakeRingPort(tag, 1);
    PortOptions o;
    o.name = ring.name;
    port = *Port::Open(o, &pools);
    (void)port->Start();
    core::ClockModel m;
    m.raw_anchor = core::ReadTsc();
    m.tai_anchor = core::TaiNs{1'800'000'037 * core::kNanosPerSecond};
    m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(double(rte_get_tsc_hz()));
    m.max_extrapolation_ns = 3600 * core::kNanosPerSecond;
    m.state = core::SyncState::kLocked;
    m.stratum = 1;
    clock.Write(m);
    (void)factory.RegisterNames(names);
    for (std::unique_ptr<Worker>* w : {&worker, &marked}) {
      *w = std::make_unique<Worker>(
          std::vector<WorkerQueue>{{port->queue(0), {&clock, nullptr, {}}, {}}},
          *factory.Create(testing::ServerSetup(port->id(), kServerMac)), &stats,
          &stop);
    }
    (void)marked->AttachEpochs(&epochs, 0);
    epochs.Online(0);
    request = testing::UdpFrame(
        testing::ClientFlow::V4(kServerMac),
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1}));
    rte_mempool* mp = *pools.ForSocket(SOCKET_ID_ANY);
    for (int i = 0; fill && i < kBurstSize; ++i) {
      rte_ring_enqueue(ring.rx[0], testing::ToMbuf(mp, request));
    }
  }
  // Moves what the port transmitted back to its RX ring as fresh requests.
  void Recirculate() {
    void* objs[kBurstSize];
    const unsigned n =
        rte_ring_dequeue_burst(ring.tx[0], objs, kBurstSize, nullptr);
    for (unsigned i = 0; i < n; ++i) {
      auto* m = static_cast<rte_mbuf*>(objs[i]);
      std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), request.data(),
                  request.size());
      m->data_len = static_cast<uint16_t>(request.size());
      m->pkt_len = static_cast<uint32_t>(request.size());
    }
    rte_ring_enqueue_burst(ring.rx[0], objs, n, nullptr);
  }
};

// One rig (one port, one pool) for the busy benchmarks.
Rig& SharedRig() {
  static Rig* rig = new Rig("bench", /*fill=*/true);
  return *rig;
}
// One with nothing to receive.
Rig& IdleRig() {
  static Rig* rig = new Rig("idle", /*fill=*/false);
  return *rig;
}

void BM_RingForwardBaseline(benchmark::State& state) {
  Rig& rig = SharedRig();
  rte_mbuf* pkts[kBurstSize];
  uint64_t frames = 0;
  for (auto _ : state) {
    const uint16_t n = rte_eth_rx_burst(rig.port->id(), 0, pkts, kBurstSize);
    const uint16_t sent = rte_eth_tx_burst(rig.port->id(), 0, pkts, n);
    benchmark::DoNotOptimize(sent);
    frames += n;
    rig.Recirculate();
  }
  state.SetItemsProcessed(static_cast<int64_t>(frames));
}
BENCHMARK(BM_RingForwardBaseline);

void WorkerNtpPipeline(benchmark::State& state, bool marked) {
  Rig& rig = SharedRig();
  Worker& w = marked ? *rig.marked : *rig.worker;
  uint64_t frames = 0;
  for (auto _ : state) {
    frames += w.PollOnce();
    rig.Recirculate();
  }
  state.SetItemsProcessed(static_cast<int64_t>(frames));
  if (rig.stats.tx_dropped.Load() != 0 ||
      rig.stats.rx_packets.Load() != rig.stats.tx_packets.Load()) {
    state.SkipWithError("frames were lost or not answered");
  }
}
void BM_WorkerNtpPipeline(benchmark::State& state) {
  WorkerNtpPipeline(state, false);
}
BENCHMARK(BM_WorkerNtpPipeline);
void BM_WorkerNtpPipelineEpochs(benchmark::State& state) {
  WorkerNtpPipeline(state, true);
}
BENCHMARK(BM_WorkerNtpPipelineEpochs);

void WorkerEmptyPoll(benchmark::State& state, bool marked) {
  Rig& rig = IdleRig();
  Worker& w = marked ? *rig.marked : *rig.worker;
  for (auto _ : state) benchmark::DoNotOptimize(w.PollOnce());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
void BM_WorkerEmptyPoll(benchmark::State& state) {
  WorkerEmptyPoll(state, false);
}
BENCHMARK(BM_WorkerEmptyPoll);
void BM_WorkerEmptyPollEpochs(benchmark::State& state) {
  WorkerEmptyPoll(state, true);
}
BENCHMARK(BM_WorkerEmptyPollEpochs);

}  // namespace
}  // namespace zg::dataplane

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  auto eal = zg::dataplane::Eal::Init(
      {"worker_benchmark", "--no-huge", "--no-shconf", "-m", "256", "--no-pci",
       "--no-telemetry", "--log-level=lib.eal:error",
       absl::StrCat("--file-prefix=zgbench", getpid()), "-l", "0"});
  if (!eal.ok()) {
    std::fprintf(stderr, "%s\n", std::string(eal.status().message()).c_str());
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::_Exit(0);  // the shared rig holds DPDK objects; skip their teardown
}
