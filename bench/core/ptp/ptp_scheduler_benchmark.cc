// SPDX-License-Identifier: Apache-2.0
// The unicast PTP scheduler at scale: 1,000,000 negotiated subscribers at
// 1 Hz, one worker's shard. Each iteration simulates one second of the
// worker's schedule (1024 slots of ~0.98 ms, polled in 64-timer batches as
// the worker loop does) and reports the thread CPU time it took:
//
//   ns_per_sub_s   CPU ns per subscriber-second
//   core_share     CPU seconds per simulated second for the whole shard:
//                  below 1.0 means it fits on one core (before the NIC's
//                  tx_burst cost, which the memif rig measures)
//
// Variants: the scheduler alone (the callback only counts), and the
// scheduler writing every message a subscriber gets into an mbuf-sized
// buffer from the templates (Sync + Follow_Up at 1 Hz, and Announce at 1 Hz).
// Also the negotiation cost of one REQUEST and a table lookup at 1M.
//
//   build/bench/ptp_scheduler_benchmark --benchmark_repetitions=3
#include <time.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/ptp/ptp_negotiation.h"
#include "core/ptp/ptp_originate.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_unicast_service.h"

namespace zg::bench {
namespace {

using namespace zg::core;

constexpr uint32_t kSubscribers = 1'000'000;
constexpr int64_t kSec = kNanosPerSecond;
constexpr int64_t kT0 = 100 * kSec;

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * kNanosPerSecond + ts.tv_nsec;
}

PtpUnicastClientKey Key(uint32_t n) {
  const uint8_t ip[4] = {10, static_cast<uint8_t>(n >> 16),
                         static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
  return {PtpUnicastAddress::Ipv4(ip),
          {{{0x02, 0, 0, 0xFF, 0xFE, ip[1], ip[2], ip[3]}}, 1}};
}

// One shard with `n` subscribers granted Sync (and optionally Announce) at
// 1 Hz, and its simulated clock (Google Benchmark calls a benchmark several
// times; the schedule's time must keep going forward across calls).
struct Shard {
  std::unique_ptr<PtpUnicastService> svc;
  int64_t now = kT0;
};

std::unique_ptr<PtpUnicastService> MakeShard(
    uint32_t n, bool announce, const PtpAdmissionConfig& admission = {}) {
  PtpUnicastService::Config c;
  c.admission = admission;
  c.limits = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E).grant_limits;
  c.limits.max_duration_s = 100'000'000;  // never expire during the run
  c.capacity = n;
  c.seed = 0x5eed;
  auto svc = std::move(PtpUnicastService::Create(c)).value();
  svc->Start(kT0);
  PtpUnicastReturnPath path;
  for (uint32_t i = 0; i < n; ++i) {
    svc->Request(Key(i), path, {PtpMessageType::kSync, 0, 100'000'000}, true,
                 kT0);
    if (announce) {
      svc->Request(Key(i), path, {PtpMessageType::kAnnounce, 0, 100'000'000},
                   true, kT0);
    }
  }
  return svc;
}

// Runs one simulated second per iteration; `send` is the per-message work.
template <typename Send>
void RunSeconds(benchmark::State& state, Shard& shard, Send&& send) {
  PtpUnicastService& svc = *shard.svc;
  int64_t& now = shard.now;
  int64_t cpu_ns = 0;
  uint64_t messages = 0;
  for (auto _ : state) {
    const int64_t start = ThreadCpuNs();
    const uint64_t first = PtpUnicastScheduler::SlotOf(now) + 1;
    for (uint64_t slot = first; slot < first + 1024; ++slot) {
      const int64_t t = PtpUnicastScheduler::SlotStartNs(slot);
      PtpPollStats st;
      do {
        st = svc.Poll(t, 64, true, send);
        messages += st.fired;
      } while (st.budget_hit);
    }
    now += kSec;
    cpu_ns += ThreadCpuNs() - start;
  }
  const double seconds = static_cast<double>(state.iterations());
  const double subs = svc.table().size();
  state.counters["ns_per_sub_s"] = cpu_ns / (seconds * subs);
  state.counters["core_share"] = cpu_ns / seconds / 1e9;
  state.counters["msgs_per_s"] = messages / seconds;
  state.SetItemsProcessed(static_cast<int64_t>(messages));
}

void BM_SchedulerOnly_1M_Sync1Hz(benchmark::State& state) {
  static Shard shard{MakeShard(kSubscribers, false)};
  uint64_t sent = 0;
  RunSeconds(state, shard,
             [&](const PtpUnicastSubscriber&, PtpTimerKind, uint16_t, int8_t) {
               ++sent;
               return true;
             });
  benchmark::DoNotOptimize(sent);
}
BENCHMARK(BM_SchedulerOnly_1M_Sync1Hz)->Unit(benchmark::kMillisecond);

// What the worker does per due timer short of the NIC: write the message
// (and, for Sync, its Follow_Up) from the templates into a buffer, with the
// subscriber's sequenceId and interval.
void BM_SchedulerWithMessages_1M_SyncAnnounce1Hz(benchmark::State& state) {
  static Shard shard{MakeShard(kSubscribers, true)};
  PtpOriginTemplates templates;
  PtpReplyConfig port;
  port.port_identity = {{{0x02, 0, 0, 0xFF, 0xFE, 0, 0, 1}}, 1};
  PtpGrandmasterView gm;
  gm.identity = port.port_identity.clock_identity;
  templates.Build(port, gm, true);
  std::array<std::array<uint8_t, 128>, 32> bufs{};
  size_t next = 0;
  const PtpTimestamp t1{1'700'000'000, 1};
  RunSeconds(state, shard,
             [&](const PtpUnicastSubscriber&, PtpTimerKind kind, uint16_t seq,
                 int8_t log) {
               auto& b = bufs[next++ & 31];
               if (kind == PtpTimerKind::kAnnounce) {
                 templates.WriteAnnounce(b, seq, log, true, t1);
               } else {
                 templates.WriteSync(b, seq, log, true, t1);
                 auto& f = bufs[next++ & 31];
                 templates.WriteFollowUp(f, seq, log, true, t1);
               }
               benchmark::DoNotOptimize(b.data());
               return true;
             });
}
BENCHMARK(BM_SchedulerWithMessages_1M_SyncAnnounce1Hz)
    ->Unit(benchmark::kMillisecond);

// One REQUEST (Sync) answered with a GRANT, as a renewal of a live grant
// (the steady state: every client renews every few minutes); without
// admission limits (arg 0) and with them (arg 1: zeitgeberd's defaults,
// the budget raised to hold the shard's 2M messages/s).
PtpAdmissionConfig AdmissionFor(int64_t arg) {
  if (arg == 0) return {};
  PtpAdmissionConfig a =
      std::move(MakePtpAdmissionConfig(kPtpAdmissionDefaults)).value();
  a.tx_budget_per_s = 4'000'000;
  return a;
}
void BM_NegotiationRenewal(benchmark::State& state) {
  static std::unique_ptr<PtpUnicastService> shards[2];
  auto& svc = shards[state.range(0)];
  if (svc == nullptr) {
    svc = MakeShard(kSubscribers, false, AdmissionFor(state.range(0)));
  }
  PtpSignalingContext ctx;
  ctx.port.port_identity = {{{0x02, 0, 0, 0xFF, 0xFE, 0, 0, 1}}, 1};
  ctx.serving = true;
  ctx.now_mono_ns = kT0;
  std::array<uint8_t, 16> tlv{};
  WritePtpUnicastRequestTlv({PtpMessageType::kSync, 0, 300}, tlv);
  std::vector<std::array<uint8_t, 64>> requests(1024);
  for (uint32_t i = 0; i < requests.size(); ++i) {
    PtpMessage m;
    const PtpUnicastClientKey k = Key(i * 977);
    m.header.source_port_identity = k.port_identity;
    m.body = PtpSignaling{};
    m.tlvs = std::span(tlv).first(10);
    SerializePtpMessage(m, requests[i]);
  }
  std::array<uint8_t, 128> out{};
  uint16_t seq = 0;
  uint32_t i = 0;
  for (auto _ : state) {
    const uint32_t j = i++ & 1023;
    ctx.from = Key(j * 977).address;
    const PtpSignalingAnswer a = AnswerPtpSignaling(
        std::span(requests[j]).first(54), ctx, *svc, &seq, out);
    benchmark::DoNotOptimize(a);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NegotiationRenewal)->ArgName("admission")->Arg(0)->Arg(1);

void BM_TableFind_1M(benchmark::State& state) {
  static auto svc = MakeShard(kSubscribers, false);
  uint32_t i = 0;
  for (auto _ : state) {
    const uint32_t e = svc->table().Find(Key((i++ * 7919) % kSubscribers));
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TableFind_1M);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
