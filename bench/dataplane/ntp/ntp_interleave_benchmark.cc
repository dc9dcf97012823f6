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
#include <rte_cycles.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "tests/dataplane/testing/frames.h"
#include "tests/dataplane/testing/pipeline_burst.h"

namespace zg::dataplane {
namespace {

constexpr uint16_t kPortId = 0;
const rte_ether_addr kServerMac = {{0x02, 0, 0, 0, 0, 0x01}};
const char* const kCase[] = {"off", "basic", "hit", "miss"};
// Ethernet + IPv4 (no options) + UDP: the UDP checksum and the payload.
constexpr size_t kUdpChecksumAt = 14 + 20 + 6;
constexpr size_t kPayloadAt = 14 + 20 + 8;

MbufPools& Pools() {
  static MbufPools* pools = new MbufPools(1023);
  return *pools;
}

struct XleaveRig {
  int mode = 0;
  core::PublishedClock clock;
  CounterNames names;
  NtpInterleaveFactory xleave;
  std::unique_ptr<ProtocolPipelineFactory> factory;
  Pipeline pipeline;
  std::unique_ptr<Timestamper> stamper;
  std::array<rte_mbuf*, kBurstSize> mbufs = {};
  std::unique_ptr<testing::PipelineBurst> burst;
  std::array<uint64_t, kBurstSize> origin = {};  // per mbuf, next burst
  std::vector<uint8_t> request;
  uint64_t answered = 0;
  uint64_t next_miss = 1;

  explicit XleaveRig(int m) : mode(m) {
    core::ClockModel cm;
    cm.raw_anchor = core::ReadTsc();
    cm.tai_anchor = core::TaiNs{1'800'000'037 * core::kNanosPerSecond};
    cm.ns_per_tick_q32 = core::NsPerTickQ32FromHz(double(rte_get_tsc_hz()));
    cm.max_extrapolation_ns = 3600 * core::kNanosPerSecond;
    cm.error_bound_ns = 1000;
    cm.state = core::SyncState::kLocked;
    cm.stratum = 1;
    clock.Write(cm);
    stamper =
        std::make_unique<Timestamper>(Timestamper::Config{&clock, nullptr, {}});
    xleave.SetConfig({.enabled = mode != 0, .slots = 65536});
    ProtocolPipelineFactory::Options options;
    options.ntp_interleave = &xleave;
    factory = std::make_unique<ProtocolPipelineFactory>(std::move(options));
    (void)factory->RegisterNames(names);
    WorkerSetup setup = testing::ServerSetup(kPortId, kServerMac);
    setup.ports[0].stamps.ntp_tx = TxStampSource::kSoftwareAfter;  // daemon's
    pipeline = *factory->Create(setup);
    request = testing::UdpFrame(
        testing::ClientFlow::V4(kServerMac),
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 0x80000000u}));
    request[kUdpChecksumAt] = request[kUdpChecksumAt + 1] = 0;  // none
    rte_mempool* mp = *Pools().ForSocket(SOCKET_ID_ANY);
    for (auto& mb : mbufs) mb = testing::ToMbuf(mp, request);
    burst = std::make_unique<testing::PipelineBurst>(&pipeline, stamper.get(),
                                                     kPortId);
  }

  void Restore() {
    for (size_t i = 0; i < kBurstSize; ++i) {
      rte_mbuf* mb = mbufs[i];
      uint8_t* f = rte_pktmbuf_mtod(mb, uint8_t*);
      std::memcpy(f, request.data(), request.size());
      uint64_t o = origin[i];
      if (mode == 3) o = (0xe8fe6f80'00000000ull + 2 * next_miss++) | 1;
      core::StoreBe64(f + kPayloadAt + core::kNtpOffsetOriginTime, o);
      core::StoreBe64(f + kPayloadAt + core::kNtpOffsetReceiveTime, i + 7);
      mb->data_len = static_cast<uint16_t>(request.size());
      mb->pkt_len = static_cast<uint32_t>(request.size());
    }
  }

  // What a worker does to one burst between rx_burst and after tx_burst.
  void Process() {
    burst->Process(mbufs.data(), kBurstSize);
    const TxStamp after = stamper->TxNow();
    for (size_t i = 0; i < kBurstSize; ++i) {
      FrameHandler* h = burst->finalised(i);
      if (h == nullptr) continue;
      ++answered;
      if (mode != 0) h->AfterTx(burst->packet(i), after, true);
      if (mode == 2) {  // the client's next origin: our T2
        origin[i] = core::LoadBe64(rte_pktmbuf_mtod(mbufs[i], uint8_t*) +
                                   kPayloadAt + core::kNtpOffsetReceiveTime);
      }
    }
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
    rig.Restore();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
}
BENCHMARK(BM_RestoreBaseline)->DenseRange(0, 3)->ArgName("case");

void BM_NtpInterleavePerRequest(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  XleaveRig& rig = Rig(mode);
  rig.answered = 0;
  const uint64_t hits_before =
      mode == 0 ? 0 : rig.xleave.stats(0).interleaved.Load();
  for (auto _ : state) {
    rig.Restore();
    rig.Process();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
  state.SetLabel(kCase[mode]);
  const uint64_t n = static_cast<uint64_t>(state.iterations()) * kBurstSize;
  if (rig.answered != n) state.SkipWithError("not every request answered");
  if (mode == 2 &&
      rig.xleave.stats(0).interleaved.Load() - hits_before + kBurstSize < n) {
    state.SkipWithError("interleaved requests were not answered as such");
  }
}
BENCHMARK(BM_NtpInterleavePerRequest)->DenseRange(0, 3)->ArgName("case");

class RatioReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      const bool median =
          r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if ((r.run_type != Run::RT_Iteration && !median) || r.error_occurred ||
          r.iterations == 0) {
        continue;
      }
      const double ns =
          r.cpu_accumulated_time * 1e9 / static_cast<double>(r.iterations);
      const std::string name = r.run_name.function_name + "/" + r.run_name.args;
      auto [it, fresh] = best_ns_.emplace(name, ns);
      if (!fresh) it->second = std::min(it->second, ns);
    }
  }
  void Summarise() const {
    double off_per_request = 0;
    for (int c = 0; c <= 3; ++c) {
      auto base = best_ns_.find(absl::StrCat("BM_RestoreBaseline/case:", c));
      auto ntp =
          best_ns_.find(absl::StrCat("BM_NtpInterleavePerRequest/case:", c));
      if (base == best_ns_.end() || ntp == best_ns_.end()) continue;
      const double per_request = ntp->second / kBurstSize;
      if (c == 0) off_per_request = per_request;
      std::printf(
          "NTP interleave %-5s: %6.1f ns per request of work (pipeline %.1f "
          "ns - baseline %.1f ns per burst of %d, / %d); %.2fx the basic "
          "path's time (off)\n",
          kCase[c], (ntp->second - base->second) / kBurstSize, ntp->second,
          base->second, kBurstSize, kBurstSize,
          off_per_request > 0 ? per_request / off_per_request : 0.0);
    }
  }

 private:
  std::map<std::string, double> best_ns_;
};

}  // namespace
}  // namespace zg::dataplane

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  auto eal = zg::dataplane::Eal::Init(
      {"ntp_interleave_benchmark", "--no-huge", "--no-shconf", "-m", "128",
       "--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
       absl::StrCat("--file-prefix=zgnib", getpid()), "-l", "0"});
  if (!eal.ok()) {
    std::fprintf(stderr, "%s\n", std::string(eal.status().message()).c_str());
    return 2;
  }
  zg::dataplane::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.Summarise();
  benchmark::Shutdown();
  std::fflush(stdout);
  std::_Exit(0);  // the rigs hold DPDK objects; skip their teardown
}
