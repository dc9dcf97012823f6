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
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_wire.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/tsc.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/ptp/ptp_plugin.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"

ABSL_DECLARE_FLAG(bool, ptp);
ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_DECLARE_FLAG(int, ptp_log_announce_interval);

namespace zg::bench {
namespace {

using namespace zg::dataplane;
constexpr uint16_t kRound = 32;
const core::Ipv4Addr kServer = core::Ipv4Addr::FromOctets(10, 1, 0, 1);
const core::MacAddr kServerMac{{0x02, 0x5E, 0, 0, 0, 1}};

// One request frame, client 10.1.0.2:port -> server.
std::vector<uint8_t> RequestFrame(uint16_t port, const uint8_t* payload,
                                  uint16_t len) {
  std::vector<uint8_t> f(256);
  core::UdpFrameSpec spec;
  spec.src_mac = core::MacAddr{{0x02, 0xC1, 0, 0, 0, 2}};
  spec.dst_mac = kServerMac;
  spec.src_ip = core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 1, 0, 2));
  spec.dst_ip = core::IpAddress::V4(kServer);
  spec.src_port = port == core::kNtpPort ? 40000 : port;
  spec.dst_port = port;
  core::FrameInfo info;
  f.resize(core::BuildUdpFrame(f.data(), 256, spec, len, &info));
  std::memcpy(f.data() + info.payload_offset, payload, len);
  core::FinalizeUdpChecksum(f.data(), info);
  return f;
}

struct Rig {
  std::unique_ptr<Eal> eal;
  std::unique_ptr<MbufPools> pools;
  std::unique_ptr<Port> port;
  rte_ring* rx = nullptr;
  rte_ring* tx = nullptr;
  rte_mempool* pool = nullptr;
  core::PublishedClock clock;
  std::unique_ptr<PtpPlugin> ptp;
  std::unique_ptr<ProtocolPipelineFactory> factory;
  CounterNames names;
  WorkerStats stats;
  std::atomic<bool> stop{false};
  std::unique_ptr<Worker> worker;
  std::vector<uint8_t> ntp, delay_req;
  std::vector<rte_mbuf*> mbufs;  // the round's request buffers

  // Runs one round of `frame` requests; false if not every one came back.
  bool Round(const std::vector<uint8_t>& frame) {
    for (rte_mbuf* m : mbufs) {
      m->data_off = RTE_PKTMBUF_HEADROOM;
      std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), frame.data(), frame.size());
      m->data_len = static_cast<uint16_t>(frame.size());
      m->pkt_len = static_cast<uint32_t>(frame.size());
    }
    rte_ring_enqueue_burst(rx, reinterpret_cast<void**>(mbufs.data()), kRound,
                           nullptr);
    worker->PollOnce();
    void* out[64];
    unsigned got = 0, n;
    while ((n = rte_ring_dequeue_burst(tx, out, 64, nullptr)) > 0) {
      for (unsigned i = 0; i < n; ++i) {
        auto* m = static_cast<rte_mbuf*>(out[i]);
        if (m->pool == pool) {
          ++got;  // one of ours: reused next round
        } else {
          rte_pktmbuf_free(m);  // the PTP source's own Sync/Announce
        }
      }
    }
    return got == kRound;
  }
};

Rig* MakeRig() {
  auto* r = new Rig;
  const std::vector<std::string> args = {
      "ptp_dataplane_benchmark",
      "--no-huge",
      "--no-shconf",
      "-m",
      "256",
      "--no-pci",
      absl::StrCat("--file-prefix=zgbench", getpid()),
      "-l",
      "0-1",
      "--no-telemetry",
      "--log-level=lib.eal:error"};
  auto eal = Eal::Init(args);
  if (!eal.ok()) {
    std::fprintf(stderr, "EAL: %s\n",
                 std::string(eal.status().message()).c_str());
    std::exit(1);
  }
  r->eal = std::move(*eal);
  r->rx = rte_ring_create("b_rx", 1024, SOCKET_ID_ANY,
                          RING_F_SP_ENQ | RING_F_SC_DEQ);
  r->tx = rte_ring_create("b_tx", 1024, SOCKET_ID_ANY,
                          RING_F_SP_ENQ | RING_F_SC_DEQ);
  const int id =
      rte_eth_from_rings("zg_bench", &r->rx, 1, &r->tx, 1, SOCKET_ID_ANY);
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_get_name_by_port(static_cast<uint16_t>(id), name);
  r->pools = std::make_unique<MbufPools>(2047);
  PortOptions opts;
  opts.name = name;
  r->port = std::move(Port::Open(opts, r->pools.get())).value();
  (void)r->port->Start();
  r->pool = rte_pktmbuf_pool_create("zg_bench_req", 255, 0, 0,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  core::ClockModel m;
  m.raw_anchor = core::ReadTsc();
  m.tai_anchor = core::TaiNs{1'800'000'037LL * core::kNanosPerSecond};
  m.ns_per_tick_q32 =
      core::NsPerTickQ32FromHz(static_cast<double>(rte_get_tsc_hz()));
  m.max_extrapolation_ns = 100'000 * core::kNanosPerSecond;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  m.ptp_quality = {6, 0x21, 0x4E5D};
  r->clock.Write(m);

  absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
  absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
  absl::SetFlag(&FLAGS_ptp, true);
  r->ptp = std::make_unique<PtpPlugin>();
  r->factory = std::make_unique<ProtocolPipelineFactory>(
      ProtocolPipelineFactory::Options{nullptr, {r->ptp.get()}});
  DaemonConfig config;
  InterfaceAddress a;
  kServer.Store(a.bytes.data());
  a.prefix_len = 24;
  config.addresses = {a};
  (void)r->factory->Configure(config);
  (void)r->factory->RegisterNames(r->names);
  WorkerSetup setup;
  rte_ether_addr mac;
  std::memcpy(mac.addr_bytes, kServerMac.b.data(), 6);
  setup.lcore_id = rte_get_main_lcore();
  setup.ports = {{r->port->id(), 0, mac, 1500}};
  setup.addresses = config.addresses;
  Pipeline p = std::move(r->factory->Create(setup)).value();
  Timestamper::Config stamping;
  stamping.tsc_clock = &r->clock;
  r->worker = std::make_unique<Worker>(
      std::vector<WorkerQueue>{{r->port->queue(0), stamping, {}}}, std::move(p),
      &r->stats, &r->stop);
  // LISTENING, then MASTER after the (125 ms x 3) receipt timeout.
  const double hz = static_cast<double>(rte_get_tsc_hz());
  r->factory->ControlStep({&r->clock, core::ReadTsc(), hz});
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  r->factory->ControlStep({&r->clock, core::ReadTsc(), hz});

  std::array<uint8_t, 48> ntp{};
  ntp[0] = 0x23;  // v4, client
  ntp[47] = 1;    // a nonzero transmit timestamp
  r->ntp = RequestFrame(core::kNtpPort, ntp.data(), 48);
  core::PtpMessage dr;
  dr.header.flags.Set(core::PtpFlag::kUnicast);
  dr.header.source_port_identity = {{{2, 0xC1, 0, 0xFF, 0xFE, 0, 0, 2}}, 1};
  dr.header.control_field = 1;
  dr.body = core::PtpDelayReq{};
  std::array<uint8_t, 64> ptp{};
  const size_t n = core::SerializePtpMessage(dr, ptp);
  r->delay_req =
      RequestFrame(core::kPtpEventPort, ptp.data(), static_cast<uint16_t>(n));
  for (uint16_t i = 0; i < kRound; ++i) {
    r->mbufs.push_back(rte_pktmbuf_alloc(r->pool));
  }
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
