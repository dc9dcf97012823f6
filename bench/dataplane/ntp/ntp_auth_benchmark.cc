// SPDX-License-Identifier: Apache-2.0
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
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/dataplane/bench_main.h"
#include "bench/dataplane/worker/pipeline_burst.h"
#include "benchmark/benchmark.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "dataplane/ntp/ntp_auth.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::bench {
namespace {

constexpr char kKeys[] =
    "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
    "2 AES256 "
    "HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4\n"
    "3 SHA1 ASCII:correct-horse-battery\n"
    "4 MD5 ASCII:correct-horse-battery\n";
// Benchmark arg: key id (0: a plain request, no MAC).
const char* const kAlgorithm[] = {"plain", "AES128", "AES256", "SHA1", "MD5"};

std::shared_ptr<const core::NtpKeyTable> Keys() {
  static auto* keys = new std::shared_ptr<const core::NtpKeyTable>(
      std::make_shared<const core::NtpKeyTable>(*core::ParseNtpKeys(kKeys)));
  return *keys;
}

struct AuthRig {
  NtpAuthFactory auth;
  PipelineBurst burst;

  explicit AuthRig(uint32_t key_id) {
    // The server has the keys in every rig: the plain rig measures what
    // keys cost a request without a MAC (nothing but a branch).
    auth.SetKeys(Keys());
    std::vector<uint8_t> ntp =
        testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1});
    if (key_id != 0) {
      auto client = *core::NtpMacer::Create(*Keys());
      ntp.resize(48 + 24);
      ntp.resize(48 + client->Sign(static_cast<uint16_t>(client->Find(key_id)),
                                   ntp.data(), 48));
    }
    burst.Start({.ntp_auth = &auth},
                testing::UdpFrame(testing::ClientFlow::V4(burst.mac()), ntp));
  }
};

PipelineBurst& Burst(int64_t key_id) {
  static std::map<int64_t, AuthRig*>* rigs = new std::map<int64_t, AuthRig*>;
  AuthRig*& r = (*rigs)[key_id];
  if (r == nullptr) r = new AuthRig(static_cast<uint32_t>(key_id));
  return r->burst;
}

void BM_RestoreBaseline(benchmark::State& state) {
  Burst(state.range(0)).MeasureBaseline(state);
}
BENCHMARK(BM_RestoreBaseline)->DenseRange(0, 4)->ArgName("key");

void BM_NtpAuthPerRequest(benchmark::State& state) {
  PipelineBurst& b = Burst(state.range(0));
  b.Measure(state, [&] { return b.HandleAndFinalise(); });
  state.SetLabel(kAlgorithm[state.range(0)]);
}
BENCHMARK(BM_NtpAuthPerRequest)->DenseRange(0, 4)->ArgName("key");

void Summarise(const BestTimeReporter& r) {
  PrintBurstSummary(r, "NTP", "BM_NtpAuthPerRequest", "key", kAlgorithm);
}

}  // namespace
}  // namespace zg::dataplane::bench

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "ntp_auth_benchmark"},
      zg::dataplane::bench::Summarise);
}
