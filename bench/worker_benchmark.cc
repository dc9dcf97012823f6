// Cost per frame of the worker loop (stamp, classify, dispatch, late-TX hook
// with checksum, tx_burst) on an in-process ring port, against a baseline in
// the same run: the same rings forwarded by bare rx_burst/tx_burst. Uses the
// TEST-ONLY UDP echo pipeline (frames go 123 -> 123, so they circulate).
//
//   build/bench/worker_benchmark --benchmark_repetitions=5
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/tsc.h"
#include "dataplane/eal.h"
#include "dataplane/mempools.h"
#include "dataplane/port.h"
#include "dataplane/worker.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/udp_echo.h"

namespace zg::dataplane {
namespace {

struct Rig {
  MbufPools pools{8191};
  testing::RingPort ring;
  std::unique_ptr<Port> port;
  core::PublishedClock clock;
  CounterNames names;
  testing::UdpEchoFactory factory;
  WorkerStats stats;
  std::atomic<bool> stop{false};
  std::unique_ptr<Worker> worker;

  explicit Rig(const std::string& tag) {
    ring = testing::MakeRingPort(tag, 1);
    PortOptions o;
    o.name = ring.name;
    port = *Port::Open(o, &pools);
    (void)port->Start();
    core::ClockModel m;
    m.raw_anchor = core::ReadTsc();
    m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(double(rte_get_tsc_hz()));
    clock.Write(m);
    (void)factory.RegisterNames(names);
    WorkerSetup setup;
    worker = std::make_unique<Worker>(
        std::vector<WorkerQueue>{{port->queue(0), {&clock, nullptr, {}}, {}}},
        *factory.Create(setup), &stats, &stop);
    rte_mempool* mp = *pools.ForSocket(SOCKET_ID_ANY);
    for (int i = 0; i < kBurstSize; ++i) {
      testing::UdpFrameSpec spec;
      spec.src_port = testing::kEchoPort;
      rte_ring_enqueue(ring.rx[0], testing::BuildUdpFrame(mp, spec));
    }
  }
  // Moves what the port transmitted back to its RX ring.
  void Recirculate() {
    void* objs[kBurstSize];
    const unsigned n =
        rte_ring_dequeue_burst(ring.tx[0], objs, kBurstSize, nullptr);
    rte_ring_enqueue_burst(ring.rx[0], objs, n, nullptr);
  }
};

// One rig (one port, one pool) for both benchmarks.
Rig& SharedRig() {
  static Rig* rig = new Rig("bench");
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

void BM_WorkerEchoPipeline(benchmark::State& state) {
  Rig& rig = SharedRig();
  uint64_t frames = 0;
  for (auto _ : state) {
    frames += rig.worker->PollOnce();
    rig.Recirculate();
  }
  state.SetItemsProcessed(static_cast<int64_t>(frames));
  if (rig.stats.tx_dropped.Load() != 0 ||
      rig.stats.rx_packets.Load() != rig.stats.tx_packets.Load()) {
    state.SkipWithError("frames were lost");
  }
}
BENCHMARK(BM_WorkerEchoPipeline);

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
