// SPDX-License-Identifier: Apache-2.0
#include "bench/dataplane/ptp/ptp_bench_rig.h"

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/time/tsc.h"
#include "dataplane/daemon/flags.h"

ABSL_DECLARE_FLAG(bool, ptp);

namespace zg::bench {

using namespace zg::dataplane;

std::vector<uint8_t> PtpBenchFrame(core::Ipv4Addr src, uint16_t src_port,
                                   uint16_t dst_port, const uint8_t* payload,
                                   uint16_t len) {
  std::vector<uint8_t> f(256);
  core::UdpFrameSpec spec;
  spec.src_mac = core::MacAddr{{0x02, 0xC1, 0, 0, 0, 2}};
  spec.dst_mac = kPtpBenchServerMac;
  spec.src_ip = core::IpAddress::V4(src);
  spec.dst_ip = core::IpAddress::V4(kPtpBenchServer);
  spec.src_port = src_port;
  spec.dst_port = dst_port;
  core::FrameInfo info;
  f.resize(core::BuildUdpFrame(f.data(), 256, spec, len, &info));
  std::memcpy(f.data() + info.payload_offset, payload, len);
  core::FinaliseUdpChecksum(f.data(), info);
  return f;
}

bool PtpBenchRig::Round(const std::vector<uint8_t>& frame) {
  for (rte_mbuf* m : mbufs) {
    m->data_off = RTE_PKTMBUF_HEADROOM;
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), frame.data(), frame.size());
    m->data_len = static_cast<uint16_t>(frame.size());
    m->pkt_len = static_cast<uint32_t>(frame.size());
  }
  rte_ring_enqueue_burst(rx, reinterpret_cast<void**>(mbufs.data()),
                         kPtpBenchRound, nullptr);
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
  return got == kPtpBenchRound;
}

void PtpBenchRig::ControlStep() {
  factory->ControlStep(
      {&clock, core::ReadTsc(), static_cast<double>(rte_get_tsc_hz())});
}

PtpBenchRig* MakePtpBenchRig(const char* program, unsigned request_mbufs,
                             unsigned rx_ring) {
  auto* r = new PtpBenchRig;
  const std::vector<std::string> args = {
      program,
      "--no-huge",
      "--no-shconf",
      "-m",
      "512",
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
  r->rx = rte_ring_create("b_rx", rx_ring, SOCKET_ID_ANY,
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
  r->pool = rte_pktmbuf_pool_create("zg_bench_req", request_mbufs, 0, 0,
                                    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (r->pool == nullptr) {
    std::fprintf(stderr, "no pool of %u request mbufs\n", request_mbufs);
    std::exit(1);
  }
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

  absl::SetFlag(&FLAGS_ptp, true);
  r->ptp = std::make_unique<PtpPlugin>();
  r->factory = std::make_unique<ProtocolPipelineFactory>(
      ProtocolPipelineFactory::Options{nullptr, {r->ptp.get()}});
  DaemonConfig config;
  InterfaceAddress a;
  kPtpBenchServer.Store(a.bytes.data());
  a.prefix_len = 8;  // the subscribers' 10/8 is on link
  config.addresses = {a};
  if (absl::Status s = r->factory->Configure(config); !s.ok()) {
    std::fprintf(stderr, "PTP: %s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
  (void)r->factory->RegisterNames(r->names);
  WorkerSetup setup;
  rte_ether_addr mac;
  std::memcpy(mac.addr_bytes, kPtpBenchServerMac.b.data(), 6);
  setup.lcore_id = rte_get_main_lcore();
  setup.ports = {{r->port->id(), 0, mac, 1500}};
  setup.addresses = config.addresses;
  Pipeline p = std::move(r->factory->Create(setup)).value();
  Timestamper::Config stamping;
  stamping.tsc_clock = &r->clock;
  r->worker = std::make_unique<Worker>(
      std::vector<WorkerQueue>{{r->port->queue(0), stamping, {}}}, std::move(p),
      &r->stats, &r->stop);
  // LISTENING, then MASTER after 3 Announce intervals (the caller's
  // --ptp_log_announce_interval; -3: 375 ms).
  r->ControlStep();
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  r->ControlStep();
  for (uint16_t i = 0; i < kPtpBenchRound; ++i) {
    r->mbufs.push_back(rte_pktmbuf_alloc(r->pool));
  }
  return r;
}

}  // namespace zg::bench
