// SPDX-License-Identifier: Apache-2.0
// Unicast PTP origination at cluster scale through zeitgeberd's real worker:
// N G.8275.2 subscribers (ZG_BENCH_SUBSCRIBERS, default 1M),
// each on its own address, negotiate Announce, Sync and Delay_Resp grants
// at 1/s with zg-loadgen's subscriber engine (bench/loadgen/
// ptp_subscribers.h) through the PtpPlugin on a ring port
// (ptp_bench_rig.h). Then, after kWarmUpSeconds, for kMeasureSeconds the
// worker originates:
// every Worker::PollOnce is timed with the TSC, and the frames it sent are
// taken off the TX ring, counted by message type and freed (not timed).
// Reported:
//
//   sync_per_s, follow_up_per_s, announce_per_s   what left, per second
//   expected_per_s     3 N: Sync, Follow_Up and Announce, 1/s each
//   cycles_per_msg     worker cycles in the passes that sent frames, per
//                      frame sent (building it from the subscriber's
//                      template, scheduling, stamping, tx_burst to a ring)
//   ns_per_msg         the same in ns
//   core_share         those cycles / the elapsed cycles: the share of one
//                      core that originating to N subscribers takes
//   negotiation_s      how long N subscribers took to hold all three grants
//
// A ring's tx_burst is a ring enqueue; a NIC's costs more (the memif and
// veth rigs, doc/performance.md, measure that). Next to it, the Delay_Req
// -> Delay_Resp cost per message is ptp_dataplane_benchmark's
// BM_DelayResps (scripts/bench-micro.sh runs both). Memory: the engine's
// 208 B and the worker's unicast table per subscriber (1M: about 0.4 GB).
//
//   build-rel/bench/ptp_origination_benchmark
//   ZG_BENCH_SUBSCRIBERS=100000 build-rel/bench/ptp_origination_benchmark
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "bench/dataplane/ptp/ptp_bench_rig.h"
#include "bench/loadgen/ptp_subscriber_frame.h"
#include "bench/loadgen/ptp_subscribers.h"
#include "benchmark/benchmark.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/local_addresses.h"
#include "core/time/tsc.h"

ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_DECLARE_FLAG(std::string, ptp_unicast_negotiation);
ABSL_DECLARE_FLAG(int, ptp_log_announce_interval);
ABSL_DECLARE_FLAG(int64_t, ptp_tx_budget);
ABSL_DECLARE_FLAG(int64_t, ptp_refusal_rate);

namespace zg::bench {
namespace {

// The first grants' Syncs fall due while the rest are still negotiated:
// the worker catches up for WarmUp seconds before it is measured.
constexpr double kWarmUpSeconds = 2;
constexpr double kMeasureSeconds = 6;
const core::Ipv4Addr kFirstSubscriber = core::Ipv4Addr::FromOctets(10, 2, 0, 0);
const core::MacAddr kSubscriberMac{{0x02, 0xC1, 0, 0, 0, 2}};

uint32_t Subscribers() {
  const char* v = std::getenv("ZG_BENCH_SUBSCRIBERS");
  const long n = v != nullptr ? std::strtol(v, nullptr, 10) : 1'000'000;
  return n > 0 && n < (1 << 24) ? static_cast<uint32_t>(n) : 1'000'000;
}

struct Origination {
  PtpBenchRig* rig = nullptr;
  std::unique_ptr<PtpSubscriberEngine> engine;
  core::LocalAddresses local;
  uint32_t n = 0;
  double negotiation_s = 0;

  // One subscriber's message as a frame on the worker's RX ring.
  bool Inject(const PtpSubscriberMessage& m, const uint8_t* payload) {
    rte_mbuf* mb = rte_pktmbuf_alloc(rig->pool);
    if (mb == nullptr) return false;
    core::UdpFrameSpec spec;
    spec.src_mac = kSubscriberMac;
    spec.dst_mac = kPtpBenchServerMac;
    spec.dst_ip = core::IpAddress::V4(kPtpBenchServer);
    const uint32_t len = FramePtpSubscriberMessage(
        m, core::IpAddress::V4(kFirstSubscriber), payload, &spec,
        rte_pktmbuf_mtod(mb, uint8_t*), rte_pktmbuf_tailroom(mb));
    mb->data_len = static_cast<uint16_t>(len);
    mb->pkt_len = len;
    if (len == 0 || rte_ring_enqueue(rig->rx, mb) != 0) {
      rte_pktmbuf_free(mb);
      return false;
    }
    return true;
  }

  // The TX ring's frames: to the engine (negotiation) or counted by PTP
  // messageType (measurement); freed either way.
  void Drain(bool to_engine, std::array<uint64_t, 16>* by_type) {
    rte_mbuf* out[64];
    unsigned got;
    while ((got = rte_ring_dequeue_burst(rig->tx, reinterpret_cast<void**>(out),
                                         64, nullptr)) != 0) {
      const uint64_t now = core::ReadTsc();
      for (unsigned i = 0; i < got; ++i) {
        const uint8_t* f = rte_pktmbuf_mtod(out[i], const uint8_t*);
        const core::FrameInfo info =
            core::ClassifyFrame(f, out[i]->data_len, local);
        const bool ptp = info.kind == core::FrameKind::kPtpEvent ||
                         info.kind == core::FrameKind::kPtpGeneral;
        if (ptp && to_engine) {
          engine->OnFrame(info.dst_ipv4.value - kFirstSubscriber.value,
                          info.dst_port, f + info.payload_offset,
                          info.payload_len, now);
        } else if (ptp && by_type != nullptr && info.payload_len > 0) {
          ++(*by_type)[f[info.payload_offset] & 0x0F];
        }
      }
      rte_pktmbuf_free_bulk(out, got);
    }
  }

  // Every subscriber asks for its three grants; the worker answers.
  void Negotiate() {
    const uint64_t hz = rte_get_tsc_hz();
    const uint64_t t0 = core::ReadTsc();
    uint8_t payload[kPtpSubscriberMaxPayload];
    uint64_t next_step = 0;
    while (engine->counts().granted[0] < n || engine->counts().granted[1] < n ||
           engine->counts().granted[2] < n) {
      const uint64_t now = core::ReadTsc();
      if (now - t0 > 120 * hz) {
        std::fprintf(stderr, "negotiation: not every grant in 120 s\n");
        break;
      }
      PtpSubscriberMessage m;
      for (int k = 0; k < 256 && engine->Next(now, payload, &m); ++k) {
        if (!Inject(m, payload)) break;
        engine->Sent(&m, 1, core::ReadTsc());
      }
      while (rte_ring_count(rig->rx) != 0) {
        rig->worker->PollOnce();
        Drain(true, nullptr);
      }
      rig->worker->PollOnce();
      Drain(true, nullptr);
      if (now >= next_step) {
        rig->ControlStep();
        next_step = now + hz / 10;
      }
    }
    negotiation_s =
        static_cast<double>(core::ReadTsc() - t0) / static_cast<double>(hz);
  }
};

Origination& TheRig() {
  static Origination* o = [] {
    absl::SetFlag(&FLAGS_ptp_profile, "g8275.2");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
    absl::SetFlag(&FLAGS_ptp_tx_budget, 0);     // 3-4 M messages/s
    absl::SetFlag(&FLAGS_ptp_refusal_rate, 0);  // nothing is refused
    auto* o = new Origination;
    o->rig = MakePtpBenchRig("ptp_origination_benchmark", 4095, 4096);
    o->n = Subscribers();
    auto local = core::LocalAddresses::Create(kSubscriberMac, std::nullopt);
    if (!local.ok() || !local->AddIpv4Range(kFirstSubscriber, o->n).ok()) {
      std::fprintf(stderr, "subscriber addresses\n");
      std::exit(1);
    }
    o->local = *std::move(local);
    const uint64_t hz = rte_get_tsc_hz();
    PtpSubscriberConfig c;
    c.subscribers = o->n;
    c.domain = 44;
    c.log_interval = {0, 0, 0};  // 1/s each: the cluster-scale target
    c.duration_s = 300;
    c.tsc_hz = hz;
    c.start_tsc = core::ReadTsc();
    c.spread_ticks = 0;
    c.reply_timeout_ticks = 2 * hz;
    c.retry_ticks = hz;
    auto engine = PtpSubscriberEngine::Create(c);
    if (!engine.ok()) {
      std::fprintf(stderr, "engine: %s\n",
                   std::string(engine.status().message()).c_str());
      std::exit(1);
    }
    o->engine = *std::move(engine);
    core::ClockModel model;
    (void)o->rig->clock.TryRead(&model);
    o->engine->SetClock(model);
    o->Negotiate();
    return o;
  }();
  return *o;
}

void BM_OriginateUnicast(benchmark::State& state) {
  Origination& o = TheRig();
  const uint64_t hz = rte_get_tsc_hz();
  std::array<uint64_t, 16> by_type{};
  uint64_t work_cycles = 0, elapsed = 0, sent = 0;
  const uint64_t warm_until =
      core::ReadTsc() + static_cast<uint64_t>(kWarmUpSeconds * hz);
  for (uint64_t now = core::ReadTsc(); now < warm_until;
       now = core::ReadTsc()) {
    o.rig->worker->PollOnce();
    o.Drain(false, nullptr);
  }
  for (auto _ : state) {
    const uint64_t start = core::ReadTsc();
    const uint64_t end = start + static_cast<uint64_t>(kMeasureSeconds * hz);
    uint64_t next_step = start;
    for (uint64_t now = start; now < end;) {
      const uint64_t tx_before = o.rig->stats.tx_packets.Load();
      o.rig->worker->PollOnce();
      const uint64_t after = core::ReadTsc();
      const uint64_t frames = o.rig->stats.tx_packets.Load() - tx_before;
      if (frames != 0) {
        work_cycles += after - now;
        sent += frames;
      }
      o.Drain(false, &by_type);
      if (after >= next_step) {
        o.rig->ControlStep();
        next_step = after + hz / 10;
      }
      now = core::ReadTsc();
    }
    elapsed += core::ReadTsc() - start;
  }
  const double secs = static_cast<double>(elapsed) / static_cast<double>(hz);
  const double msgs = static_cast<double>(sent);
  state.counters["subscribers"] = o.n;
  state.counters["negotiation_s"] = o.negotiation_s;
  state.counters["sync_per_s"] = static_cast<double>(by_type[0x0]) / secs;
  state.counters["follow_up_per_s"] = static_cast<double>(by_type[0x8]) / secs;
  state.counters["announce_per_s"] = static_cast<double>(by_type[0xB]) / secs;
  state.counters["expected_per_s"] = 3.0 * o.n;
  state.counters["cycles_per_msg"] =
      msgs > 0 ? static_cast<double>(work_cycles) / msgs : 0;
  state.counters["ns_per_msg"] = msgs > 0
                                     ? static_cast<double>(work_cycles) / msgs *
                                           1e9 / static_cast<double>(hz)
                                     : 0;
  state.counters["core_share"] =
      static_cast<double>(work_cycles) / static_cast<double>(elapsed);
  state.SetItemsProcessed(static_cast<int64_t>(sent));
}
BENCHMARK(BM_OriginateUnicast)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
