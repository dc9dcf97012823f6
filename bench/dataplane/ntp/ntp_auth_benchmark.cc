// Authenticated NTP replies per core (RFC 8573 AES-CMAC, RFC 5905 MD5/SHA-1)
// next to plain NTP, in the same run, through the real pipeline objects
// (dataplane/worker/protocol_pipeline.h with an NtpAuthFactory) on bursts of
// 32 mbufs, without the ring or NIC around them: classify, validate, verify
// the request's MAC, rewrite into the reply, checksum, T3 and the reply's MAC
// (FinaliseTx), checksum update. The baseline re-arms the 32 mbufs with the
// request (a copy each), which every measured benchmark also does.
//
// The summary printed at the end gives, per algorithm (fastest repetition by
// CPU time):
//   per-request work = (pipeline burst - baseline burst) / 32
//   replies/s per core = 1e9 / (pipeline burst / 32)   (re-arm included)
// and the ratio to plain NTP. Goal: >= 3 M AES-CMAC replies/s.
//
//   build-rel/bench/ntp_auth_benchmark --benchmark_repetitions=5
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
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/ntp/ntp_auth.h"
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
constexpr char kKeys[] =
    "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
    "2 AES256 "
    "HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4\n"
    "3 SHA1 ASCII:correct-horse-battery\n"
    "4 MD5 ASCII:correct-horse-battery\n";
// Benchmark arg: key id (0: a plain request, no MAC).
const char* const kAlgorithm[] = {"plain", "AES128", "AES256", "SHA1", "MD5"};

MbufPools& Pools() {
  static MbufPools* pools = new MbufPools(1023);
  return *pools;
}

std::shared_ptr<const core::NtpKeyTable> Keys() {
  static auto* keys = new std::shared_ptr<const core::NtpKeyTable>(
      std::make_shared<const core::NtpKeyTable>(*core::ParseNtpKeys(kKeys)));
  return *keys;
}

struct AuthRig {
  core::PublishedClock clock;
  CounterNames names;
  NtpAuthFactory auth;
  std::unique_ptr<ProtocolPipelineFactory> factory;
  Pipeline pipeline;
  std::unique_ptr<Timestamper> stamper;
  std::array<rte_mbuf*, kBurstSize> mbufs = {};
  std::unique_ptr<testing::PipelineBurst> burst;
  std::vector<uint8_t> request;
  uint64_t answered = 0;

  explicit AuthRig(uint32_t key_id) {
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
    // The server has the keys in every rig: the plain rig measures what
    // keys cost a request without a MAC (nothing but a branch).
    auth.SetKeys(Keys());
    ProtocolPipelineFactory::Options options;
    options.ntp_auth = &auth;
    factory = std::make_unique<ProtocolPipelineFactory>(std::move(options));
    (void)factory->RegisterNames(names);
    pipeline = *factory->Create(testing::ServerSetup(kPortId, kServerMac));
    std::vector<uint8_t> ntp =
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1});
    if (key_id != 0) {
      auto client = *core::NtpMacer::Create(*Keys());
      ntp.resize(48 + 24);
      ntp.resize(48 + client->Sign(static_cast<uint16_t>(client->Find(key_id)),
                                   ntp.data(), 48));
    }
    request = testing::UdpFrame(testing::ClientFlow::V4(kServerMac), ntp);
    rte_mempool* mp = *Pools().ForSocket(SOCKET_ID_ANY);
    for (auto& mb : mbufs) mb = testing::ToMbuf(mp, request);
    burst = std::make_unique<testing::PipelineBurst>(&pipeline, stamper.get(),
                                                     kPortId);
  }

  void Restore() {
    for (rte_mbuf* mb : mbufs) {
      std::memcpy(rte_pktmbuf_mtod(mb, uint8_t*), request.data(),
                  request.size());
      mb->data_len = static_cast<uint16_t>(request.size());
      mb->pkt_len = static_cast<uint32_t>(request.size());
    }
  }

  // What a worker does to one burst between rx_burst and tx_burst.
  void Process() { answered += burst->Process(mbufs.data(), kBurstSize); }
};

AuthRig& Rig(uint32_t key_id) {
  static std::map<uint32_t, AuthRig*>* rigs = new std::map<uint32_t, AuthRig*>;
  AuthRig*& r = (*rigs)[key_id];
  if (r == nullptr) r = new AuthRig(key_id);
  return *r;
}

void BM_RestoreBaseline(benchmark::State& state) {
  AuthRig& rig = Rig(static_cast<uint32_t>(state.range(0)));
  for (auto _ : state) {
    rig.Restore();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
}
BENCHMARK(BM_RestoreBaseline)->DenseRange(0, 4)->ArgName("key");

void BM_NtpAuthPerRequest(benchmark::State& state) {
  AuthRig& rig = Rig(static_cast<uint32_t>(state.range(0)));
  rig.answered = 0;
  for (auto _ : state) {
    rig.Restore();
    rig.Process();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
  state.SetLabel(kAlgorithm[state.range(0)]);
  if (rig.answered != static_cast<uint64_t>(state.iterations()) * kBurstSize) {
    state.SkipWithError("not every request was answered");
  }
}
BENCHMARK(BM_NtpAuthPerRequest)->DenseRange(0, 4)->ArgName("key");

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
    double plain_per_request = 0;
    for (int key = 0; key <= 4; ++key) {
      auto base = best_ns_.find(absl::StrCat("BM_RestoreBaseline/key:", key));
      auto ntp = best_ns_.find(absl::StrCat("BM_NtpAuthPerRequest/key:", key));
      if (base == best_ns_.end() || ntp == best_ns_.end()) continue;
      const double per_request = ntp->second / kBurstSize;
      if (key == 0) plain_per_request = per_request;
      std::printf(
          "NTP %-6s: %6.1f ns per request of work (pipeline %.1f ns - "
          "baseline %.1f ns per burst of %d, / %d); %.2f M replies/s per "
          "core; %.2fx plain NTP's time\n",
          kAlgorithm[key], (ntp->second - base->second) / kBurstSize,
          ntp->second, base->second, kBurstSize, kBurstSize, 1e3 / per_request,
          plain_per_request > 0 ? per_request / plain_per_request : 0.0);
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
      {"ntp_auth_benchmark", "--no-huge", "--no-shconf", "-m", "128",
       "--no-pci", "--no-telemetry", "--log-level=lib.eal:error",
       absl::StrCat("--file-prefix=zgnab", getpid()), "-l", "0"});
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
