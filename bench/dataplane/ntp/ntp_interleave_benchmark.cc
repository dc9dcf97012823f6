// SPDX-License-Identifier: Apache-2.0
// What NTP interleaved mode (dataplane/ntp/ntp_interleave.h) costs per
// request, next to the basic reply path in the same run, through the real
// pipeline objects (ProtocolPipelineFactory with an NtpInterleaveFactory)
// on bursts of 32 mbufs, without the ring or NIC around them: classify,
// validate, reply, checksum, T3 (FinaliseTx) and AfterTx. Cases (arg):
//   0 off         --ntp_interleave=false: the basic path, the baseline
//   1 basic       on, requests that do not look interleaved (origin 0, as
//                 chronyd's basic mode sends): tagging T2/T3 only
//   2 hit         on, every request interleaved and found: each burst's
//                 requests carry the previous burst's T2s (lookup, answer,
//                 save, AfterTx's transmit time)
//   3 miss        on, every request looks interleaved and is not found (new
//                 clients, or a flood of forged origins): lookup, save,
//                 evictions once the table is full
// Every case re-arms its 32 mbufs (a copy each, origin and receive
// patched), and so does the baseline BM_RestoreBaseline.
//
// The summary printed at the end gives, per case (fastest repetition by CPU
// time), ns of work per request and the ratio of its per-request time to
// case 0's.
//
//   build-rel/bench/ntp_interleave_benchmark --benchmark_repetitions=5
#include <array>
#include <cstdio>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/dataplane/bench_main.h"
#include "bench/dataplane/worker/pipeline_burst.h"
#include "benchmark/benchmark.h"
#include "core/base/byte_order.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::bench {
namespace {

const char* const kCase[] = {"off", "basic", "hit", "miss"};
// Ethernet + IPv4 (no options) + UDP: the UDP checksum and the payload.
constexpr size_t kUdpChecksumAt = 14 + 20 + 6;
constexpr size_t kPayloadAt = 14 + 20 + 8;

struct XleaveRig {
  int mode = 0;
  NtpInterleaveFactory xleave;
  PipelineBurst burst;
  std::array<uint64_t, kBurstSize> origin = {};  // per mbuf, next burst
  uint64_t next_miss = 1;

  explicit XleaveRig(int m) : mode(m) {
    xleave.SetConfig({.enabled = mode != 0, .slots = 65536});
    WorkerSetup setup = testing::ServerSetup(burst.kPortId, burst.mac());
    setup.ports[0].stamps.ntp_tx = TxStampSource::kSoftwareAfter;  // daemon's
    std::vector<uint8_t> request = testing::UdpFrame(
        testing::ClientFlow::V4(burst.mac()),
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 0x80000000u}));
    request[kUdpChecksumAt] = request[kUdpChecksumAt + 1] = 0;  // none
    burst.Start({.ntp_interleave = &xleave}, std::move(request), setup);
  }

  // Restore's copy, with each mbuf's origin and receive timestamps patched.
  void Patch() {
    for (size_t i = 0; i < kBurstSize; ++i) {
      uint8_t* f = rte_pktmbuf_mtod(burst.mbuf(i), uint8_t*);
      uint64_t o = origin[i];
      if (mode == 3) o = (0xe8fe6f80'00000000ull + 2 * next_miss++) | 1;
      core::StoreBe64(f + kPayloadAt + core::kNtpOffsetOriginTime, o);
      core::StoreBe64(f + kPayloadAt + core::kNtpOffsetReceiveTime, i + 7);
    }
  }

  // One burst to after tx_burst: AfterTx too, and in case 2 the clients'
  // next origins (our T2s).
  uint32_t OneBurst() {
    Patch();
    const uint32_t answered = burst.HandleAndFinalise();
    const TxStamp after = burst.stamper().TxNow();
    for (size_t i = 0; i < kBurstSize; ++i) {
      FrameHandler* h = burst.finalised(i);
      if (h == nullptr) continue;
      if (mode != 0) h->AfterTx(burst.packet(i), after, true);
      if (mode == 2) {
        origin[i] = core::LoadBe64(rte_pktmbuf_mtod(burst.mbuf(i), uint8_t*) +
                                   kPayloadAt + core::kNtpOffsetReceiveTime);
      }
    }
    return answered;
  }
};

XleaveRig& Rig(int mode) {
  static std::map<int, XleaveRig*>* rigs = new std::map<int, XleaveRig*>;
  XleaveRig*& r = (*rigs)[mode];
  if (r == nullptr) r = new XleaveRig(mode);
  return *r;
}

void BM_RestoreBaseline(benchmark::State& state) {
  XleaveRig& rig = Rig(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    rig.burst.Restore();
    rig.Patch();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
}
BENCHMARK(BM_RestoreBaseline)->DenseRange(0, 3)->ArgName("case");

void BM_NtpInterleavePerRequest(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  XleaveRig& rig = Rig(mode);
  const uint64_t hits_before =
      mode == 0 ? 0 : rig.xleave.stats(0).interleaved.Load();
  rig.burst.Measure(state, [&] { return rig.OneBurst(); });
  state.SetLabel(kCase[mode]);
  const uint64_t n = static_cast<uint64_t>(state.iterations()) * kBurstSize;
  if (mode == 2 &&
      rig.xleave.stats(0).interleaved.Load() - hits_before + kBurstSize < n) {
    state.SkipWithError("interleaved requests were not answered as such");
  }
}
BENCHMARK(BM_NtpInterleavePerRequest)->DenseRange(0, 3)->ArgName("case");

void Summarise(const BestTimeReporter& r) {
  PrintBurstSummary(r, "NTP interleave", "BM_NtpInterleavePerRequest", "case",
                    kCase);
}

}  // namespace
}  // namespace zg::dataplane::bench

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "ntp_interleave_benchmark"},
      zg::dataplane::bench::Summarise);
}
