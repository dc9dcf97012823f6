// SPDX-License-Identifier: Apache-2.0
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
// BM_RandomClients: NTP requests from a population of random client
// addresses (IPv4 source rewritten per frame, in every variant), served
// without a policy (baseline), and with per-client rate limiting
// (--ntp_ratelimit=on at 10M clients, interval=-4,burst=255 at 1M where
// each client asks several times a second; --ntp_clients_max = the
// population) with and without
// the burst prefetch step; at 1M clients also with the per-client records
// (--ntp_client_records) on top of rate limiting, and with records alone
// (rate limiting off). The tables are filled with the population before the
// timing starts; their memory is reported as counters. Per request, the
// records' cost is 1e9 / items_per_second of "ratelimit+records" minus that
// of "ratelimit, prefetch" (the same run, the same population).
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
#include "bench/dataplane/bench_main.h"
#include "benchmark/benchmark.h"
#include "core/net/checksum.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/ntp/ntp_trust_policy.h"
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

// One pool for every rig (pools are named per NUMA socket).
MbufPools& SharedPools() {
  static MbufPools* pools = new MbufPools(16383);
  return *pools;
}

struct Rig {
  MbufPools& pools = SharedPools();
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
  uint32_t clients = 0;          // > 0: random IPv4 sources from this many
  uint64_t rng = 0x9E3779B97F4A7C15ull;

  Rig(const std::string& tag, bool fill, NtpPolicyFactory* policy = nullptr,
      uint32_t random_clients = 0)
      : factory(ProtocolPipelineFactory::Options{policy, {}}),
        clients(random_clients) {
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
      if (policy != nullptr && w == &marked) continue;  // one table only
      *w = std::make_unique<Worker>(
          std::vector<WorkerQueue>{{port->queue(0), {&clock, nullptr, {}}, {}}},
          *factory.Create(testing::ServerSetup(port->id(), kServerMac)), &stats,
          &stop);
    }
    if (marked != nullptr) {
      (void)marked->AttachEpochs(&epochs, 0);
      epochs.Online(0);
    }
    request = testing::UdpFrame(
        testing::ClientFlow::V4(kServerMac),
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1}));
    rte_mempool* mp = *pools.ForSocket(SOCKET_ID_ANY);
    if (clients > 0) {
      // UDP checksum 0 (allowed over IPv4): only the IPv4 header's changes.
      request[kUdpChecksumOffset] = request[kUdpChecksumOffset + 1] = 0;
    }
    for (int i = 0; fill && i < kBurstSize; ++i) {
      rte_mbuf* m = testing::ToMbuf(mp, request);
      if (clients > 0) NewClient(rte_pktmbuf_mtod(m, uint8_t*));
      rte_ring_enqueue(ring.rx[0], m);
    }
  }
  static constexpr size_t kIpOffset = 14;  // untagged IPv4
  static constexpr size_t kUdpChecksumOffset = kIpOffset + 20 + 6;
  // A random source address of the population, with its header checksum.
  void NewClient(uint8_t* frame) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    const uint32_t id = static_cast<uint32_t>(((rng >> 32) * clients) >> 32);
    const uint32_t src = 0x0a000000u + id;  // 10.0.0.0/8
    uint8_t* ip = frame + kIpOffset;
    ip[12] = uint8_t(src >> 24);
    ip[13] = uint8_t(src >> 16);
    ip[14] = uint8_t(src >> 8);
    ip[15] = uint8_t(src);
    const uint16_t c = core::Ipv4HeaderChecksum(ip, 20);
    ip[10] = uint8_t(c >> 8);
    ip[11] = uint8_t(c);
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
      if (clients > 0) NewClient(rte_pktmbuf_mtod(m, uint8_t*));
      m->data_len = static_cast<uint16_t>(request.size());
      m->pkt_len = static_cast<uint32_t>(request.size());
    }
    rte_ring_enqueue_burst(ring.rx[0], objs, n, nullptr);
    // Requests the worker dropped (a rate-limited client) are replaced, so
    // a burst stays full.
    for (unsigned i = n; i < kBurstSize && clients > 0; ++i) {
      rte_mbuf* m = testing::ToMbuf(*pools.ForSocket(SOCKET_ID_ANY), request);
      NewClient(rte_pktmbuf_mtod(m, uint8_t*));
      rte_ring_enqueue(ring.rx[0], m);
    }
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

// ---- 10M random clients: no policy, rate limit without / with prefetch --

constexpr uint32_t kClients = 10'000'000;

enum Variant {
  kNoPolicy = 0,
  kRateLimitNoPrefetch = 1,
  kRateLimitPrefetch = 2,
  kRateLimitRecords = 3,  // rate limit + client records, prefetch
  kRecordsOnly = 4,       // client records, rate limiting off, prefetch
};
constexpr int kVariants = 5;
constexpr uint32_t kClients1M = 1'000'000;

Rig& ClientsRig(Variant v, uint32_t clients) {
  static Rig* rigs[2][kVariants] = {};
  static NtpTrustPolicyFactory trust[2][kVariants];
  const int p = clients == kClients ? 0 : 1;
  if (rigs[p][v] == nullptr) {
    NtpPolicyFactory* policy = nullptr;
    if (v != kNoPolicy) {
      // At 1M clients a client asks several times a second: a limit of 16
      // per second (burst 255) still answers every request.
      const char* limit = v == kRecordsOnly     ? "off"
                          : clients == kClients ? "on"
                                                : "interval=-4,burst=255";
      NtpTrustConfig c =
          *BuildNtpTrustConfig(limit, false, clients, v >= kRateLimitRecords);
      c.prefetch = v != kRateLimitNoPrefetch;
      trust[p][v].SetConfig(c);
      policy = &trust[p][v];
    }
    rigs[p][v] = new Rig(absl::StrCat("clients", p, "_", int(v)),
                         /*fill=*/true, policy, clients);
    // Every client seen once before timing: a full table.
    for (uint32_t seen = 0; seen < 2 * clients;) {
      seen += rigs[p][v]->worker->PollOnce();
      rigs[p][v]->Recirculate();
    }
  }
  return *rigs[p][v];
}

void BM_RandomClients(benchmark::State& state) {
  const auto v = static_cast<Variant>(state.range(0));
  const auto clients = static_cast<uint32_t>(state.range(1));
  Rig& rig = ClientsRig(v, clients);
  const uint64_t rx0 = rig.stats.rx_packets.Load();
  const uint64_t tx0 = rig.stats.tx_packets.Load();
  uint64_t frames = 0;
  for (auto _ : state) {
    frames += rig.worker->PollOnce();
    rig.Recirculate();
  }
  state.SetItemsProcessed(static_cast<int64_t>(frames));
  static constexpr const char* kLabels[kVariants] = {
      "no policy", "ratelimit, no prefetch", "ratelimit, prefetch",
      "ratelimit+records, prefetch", "records only, prefetch"};
  state.SetLabel(kLabels[v]);
  if (v != kNoPolicy) {
    const double per_client =
        double(v == kRecordsOnly ? 0 : core::NtpClientTable::kBytesPerClient) +
        double(v >= kRateLimitRecords ? core::NtpClientRecords::kBytesPerClient
                                      : 0);
    state.counters["bytes_per_client"] = per_client;
    state.counters["table_MiB"] = per_client * clients / (1 << 20);
  }
  // Nearly every request is within its client's bucket (one per ~10M).
  const uint64_t rx = rig.stats.rx_packets.Load() - rx0;
  const uint64_t tx = rig.stats.tx_packets.Load() - tx0;
  if (tx + rx / 100 < rx) state.SkipWithError("requests were not answered");
}
BENCHMARK(BM_RandomClients)
    ->ArgNames({"variant", "clients"})
    ->Args({kNoPolicy, kClients})
    ->Args({kRateLimitNoPrefetch, kClients})
    ->Args({kRateLimitPrefetch, kClients})
    ->Args({kNoPolicy, kClients1M})
    ->Args({kRateLimitPrefetch, kClients1M})
    ->Args({kRateLimitRecords, kClients1M})
    ->Args({kRecordsOnly, kClients1M});

}  // namespace
}  // namespace zg::dataplane

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "worker_benchmark", .memory_mb = 512}, {});
}
