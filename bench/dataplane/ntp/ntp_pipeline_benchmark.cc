// Per-request cost of zeitgeberd's NTP work (classify, validate, rewrite into
// the reply, checksum, late T3 stamp and checksum update), through the real
// pipeline objects (dataplane/worker/protocol_pipeline.h) on bursts of 32
// mbufs, without the ring or NIC around them. The baseline in the same run
// re-arms the same 32 mbufs with the request (a 90/110-byte copy each), which
// the measured benchmarks also do; the summary printed at the end subtracts it:
//
//   per-request work = (pipeline burst - baseline burst) / 32
//
// and gives the ratio pipeline / baseline. Goal (the NTP responder issue):
// <= 30 ns per request.
//
//   build/bench/ntp_pipeline_benchmark --benchmark_repetitions=5
#include <rte_cycles.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/clock/timestamper.h"
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

// One pool for both rigs (pool names are per process).
MbufPools& Pools() {
  static MbufPools* pools = new MbufPools(1023);
  return *pools;
}

struct BurstRig {
  core::PublishedClock clock;
  CounterNames names;
  ProtocolPipelineFactory factory;
  Pipeline pipeline;
  std::unique_ptr<Timestamper> stamper;
  std::array<rte_mbuf*, kBurstSize> mbufs = {};
  std::unique_ptr<testing::PipelineBurst> burst;
  std::vector<uint8_t> request;
  uint64_t answered = 0;

  explicit BurstRig(bool ipv6) {
    core::ClockModel m;
    m.raw_anchor = core::ReadTsc();
    m.tai_anchor = core::TaiNs{1'800'000'037 * core::kNanosPerSecond};
    m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(double(rte_get_tsc_hz()));
    m.max_extrapolation_ns = 3600 * core::kNanosPerSecond;
    m.error_bound_ns = 1000;
    m.error_growth_ns_per_s = 100;
    m.state = core::SyncState::kLocked;
    m.stratum = 1;
    clock.Write(m);
    stamper =
        std::make_unique<Timestamper>(Timestamper::Config{&clock, nullptr, {}});
    (void)factory.RegisterNames(names);
    pipeline = *factory.Create(testing::ServerSetup(kPortId, kServerMac));
    const testing::ClientFlow flow = ipv6 ? testing::ClientFlow::V6(kServerMac)
                                          : testing::ClientFlow::V4(kServerMac);
    request = testing::UdpFrame(
        flow, testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1}));
    rte_mempool* mp = *Pools().ForSocket(SOCKET_ID_ANY);
    for (auto& m : mbufs) {
      m = testing::ToMbuf(mp, request);
    }
    burst = std::make_unique<testing::PipelineBurst>(&pipeline, stamper.get(),
                                                     kPortId);
  }

  // Re-arms every mbuf with the request, as received.
  void Restore() {
    for (rte_mbuf* m : mbufs) {
      std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), request.data(),
                  request.size());
      m->data_len = static_cast<uint16_t>(request.size());
      m->pkt_len = static_cast<uint32_t>(request.size());
    }
  }

  // What a worker does to one burst between rx_burst and tx_burst.
  void Process() { answered += burst->Process(mbufs.data(), kBurstSize); }
};

BurstRig& Rig(bool ipv6) {
  static BurstRig* v4 = new BurstRig(false);
  static BurstRig* v6 = new BurstRig(true);
  return ipv6 ? *v6 : *v4;
}

void BM_RestoreBaseline(benchmark::State& state) {
  BurstRig& rig = Rig(state.range(0) != 0);
  for (auto _ : state) {
    rig.Restore();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
}
BENCHMARK(BM_RestoreBaseline)->Arg(0)->Arg(1)->ArgName("ipv6");

void BM_NtpPerRequest(benchmark::State& state) {
  BurstRig& rig = Rig(state.range(0) != 0);
  rig.answered = 0;
  for (auto _ : state) {
    rig.Restore();
    rig.Process();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
  if (rig.answered != static_cast<uint64_t>(state.iterations()) * kBurstSize) {
    state.SkipWithError("not every request was answered");
  }
}
BENCHMARK(BM_NtpPerRequest)->Arg(0)->Arg(1)->ArgName("ipv6");

// Console output plus, at the end, the per-request work and the ratio to
// the baseline (the fastest repetition of each by CPU time, per address
// family).
class RatioReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // Each repetition (or, when only aggregates are reported, the
      // median); CPU time: on a shared machine, wall time counts
      // preemptions.
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
    for (const char* family : {"ipv6:0", "ipv6:1"}) {
      auto base = best_ns_.find(absl::StrCat("BM_RestoreBaseline/", family));
      auto ntp = best_ns_.find(absl::StrCat("BM_NtpPerRequest/", family));
      if (base == best_ns_.end() || ntp == best_ns_.end()) continue;
      std::printf(
          "NTP %s: %.1f ns per request of work (pipeline %.1f ns - baseline "
          "%.1f ns per burst of %d, / %d); pipeline/baseline = %.2f\n",
          std::string(family) == "ipv6:1" ? "IPv6" : "IPv4",
          (ntp->second - base->second) / kBurstSize, ntp->second, base->second,
          kBurstSize, kBurstSize, ntp->second / base->second);
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
      {"ntp_pipeline_benchmark", "--no-huge", "--no-shconf", "-m", "128",
       "--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
       absl::StrCat("--file-prefix=zgnpb", getpid()), "-l", "0"});
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
