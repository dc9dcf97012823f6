// SPDX-License-Identifier: Apache-2.0
// NTS replies per core (RFC 8915) next to plain NTP, in the same run,
// through the real pipeline objects (dataplane/worker/protocol_pipeline.h
// with an NtsFactory) on bursts of 32 mbufs, without the ring or NIC around
// them: classify, validate, cookie open, authenticator verify, new cookies,
// reply fields, T3 + seal (FinaliseTx), checksum. The baseline re-arms the
// 32 mbufs with the request (a copy each), which every measured benchmark
// also does. Then the per-step costs of one chrony-shaped request (the calls
// the handler makes), and the time from reading T3's TSC to the end of the
// seal.
//
// Request kinds (benchmark arg):
//   0 plain NTP (48 bytes)     the server has NTS on: what it costs the
//                              plain path (a branch)
//   1 NTS, chrony 4.3 shape    UID 32, 1 cookie, no placeholder (228 bytes)
//   2 NTS, 7 placeholders      8 new cookies in the reply (956 bytes)
//
// The summary at the end gives, per kind (fastest repetition by CPU time):
//   per-request work = (pipeline burst - baseline burst) / 32
//   replies/s per core = 1e9 / (pipeline burst / 32)   (re-arm included)
// and the ratio to plain NTP. Goal: >= 1 M NTS replies/s/core.
//
//   build-rel/bench/nts_worker_benchmark --benchmark_repetitions=5
#include <rte_cycles.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/dataplane/bench_main.h"
#include "bench/dataplane/worker/pipeline_burst.h"
#include "benchmark/benchmark.h"
#include "core/ntp/ntp_reply.h"
#include "core/nts/nts_server.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/ntp/nts_auth.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::bench {
namespace {

const char* const kKind[] = {"plain", "nts", "nts+7"};
constexpr int64_t kUnixS = 1'800'000'000;

core::ClockModel Model() { return LockedTscModel(kUnixS); }

// The client's side of one association: its keys and a cookie for them.
struct Client {
  core::NtsKeys keys = core::testing::TestKeys(5);
  core::testing::NtsClientSpec spec;
  Client(const core::NtsCookieKeystore& ks, uint32_t placeholders) {
    spec.cookie = core::testing::MintCookie(ks, keys);
    spec.c2s = keys.c2s;
    spec.placeholders = placeholders;
  }
};

struct NtsRig {
  NtsFactory nts;
  PipelineBurst burst;
  // TSC ticks from the batch's first FinaliseTx to where tx_burst would
  // run: how early the first reply's T3 is (the worst in the batch).
  uint64_t finalise_ticks = 0;

  explicit NtsRig(int kind) {
    nts.SetClock([] { return kUnixS; });
    (void)nts.SetMasterKey(core::testing::TestMasterKey(1), {});
    std::vector<uint8_t> ntp;
    if (kind == 0) {
      ntp = testing::NtpRequest(4, core::NtpTimestamp{0xe8fe6f80u, 1});
    } else {
      Client c(*nts.CurrentKeystore(), kind == 1 ? 0 : 7);
      ntp = core::testing::BuildNtsRequest(c.spec);
    }
    burst.Start({.nts = &nts},
                testing::UdpFrame(testing::ClientFlow::V4(burst.mac()), ntp));
  }

  uint32_t OneBurst() {
    burst.Handle();
    const uint64_t t0 = core::ReadTsc();
    const uint32_t answered = burst.Finalise();
    finalise_ticks += core::ReadTsc() - t0;
    return answered;
  }
};

NtsRig& Rig(int kind) {
  static std::map<int, NtsRig*>* rigs = new std::map<int, NtsRig*>;
  NtsRig*& r = (*rigs)[kind];
  if (r == nullptr) r = new NtsRig(kind);
  return *r;
}

void BM_RestoreBaseline(benchmark::State& state) {
  Rig(static_cast<int>(state.range(0))).burst.MeasureBaseline(state);
}
BENCHMARK(BM_RestoreBaseline)->DenseRange(0, 2)->ArgName("kind");

void BM_NtsPerRequest(benchmark::State& state) {
  NtsRig& rig = Rig(static_cast<int>(state.range(0)));
  rig.finalise_ticks = 0;
  rig.burst.Measure(state, [&] { return rig.OneBurst(); });
  state.counters["first_T3_early_ns"] =
      static_cast<double>(rig.finalise_ticks) * 1e9 /
      static_cast<double>(rte_get_tsc_hz()) /
      static_cast<double>(state.iterations());
  state.SetLabel(kKind[state.range(0)]);
}
BENCHMARK(BM_NtsPerRequest)->DenseRange(0, 2)->ArgName("kind");

// ---- The steps of one chrony-shaped request (the handler's calls) -------

struct Steps {
  core::NtsCookieKeystore ks = *core::NtsCookieKeystore::Derive(
      core::testing::TestMasterKey(1), {}, kUnixS);
  Client client{ks, 0};
  std::vector<uint8_t> req = core::testing::BuildNtsRequest(client.spec);
  core::NtsRequestFields f;
  core::AesCtrRandom random = *core::AesCtrRandom::FromOs();
  core::ClockModel model = Model();
  Steps() {
    (void)core::ParseNtsRequest(req.data(), static_cast<uint32_t>(req.size()),
                                &f);
  }
};
Steps& S() {
  static Steps* s = new Steps;
  return *s;
}

void BM_StepValidateAndParse(benchmark::State& state) {
  Steps& s = S();
  const uint32_t len = static_cast<uint32_t>(s.req.size());
  for (auto _ : state) {
    const core::NtpRequestCheck c =
        core::ValidateNtpRequest(s.req.data(), len, core::NtpMacHandling::kDrop,
                                 core::NtpNtsHandling::kReport);
    core::NtsRequestFields f;
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(core::ParseNtsRequest(s.req.data(), len, &f));
    benchmark::DoNotOptimize(f);
  }
}
BENCHMARK(BM_StepValidateAndParse);

void BM_StepCookieOpen(benchmark::State& state) {
  Steps& s = S();
  core::NtsKeys k;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        s.ks.Open(s.req.data() + s.f.cookie_offset, s.f.cookie_length, &k));
    benchmark::DoNotOptimize(k);
  }
}
BENCHMARK(BM_StepCookieOpen);

void BM_StepSetKey(benchmark::State& state) {
  core::AesSiv siv;
  const core::NtsKeys k = core::testing::TestKeys(5);
  for (auto _ : state) {
    siv.SetKey(k.c2s.data());
    benchmark::DoNotOptimize(siv);
  }
}
BENCHMARK(BM_StepSetKey);

void BM_StepVerify(benchmark::State& state) {
  Steps& s = S();
  core::AesSiv siv;
  siv.SetKey(s.client.keys.c2s.data());
  const core::AesSivInput ad[] = {
      {s.req.data(), s.f.auth_offset},
      {s.req.data() + s.f.nonce_offset, s.f.nonce_length}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(siv.Open(ad, s.req.data() + s.f.ciphertext_offset,
                                      s.f.ciphertext_length, nullptr));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StepVerify);

void BM_StepNewCookie(benchmark::State& state) {
  Steps& s = S();
  uint8_t nonce[16], cookie[core::kNtsCookieSize];
  for (auto _ : state) {
    s.random.Fill(nonce, sizeof(nonce));
    s.ks.Seal(s.client.keys, nonce, cookie);
    benchmark::DoNotOptimize(cookie);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StepNewCookie);

// The seal, split as the handler runs it: the S2C key schedule (in Handle,
// NtsWorkerAuth::WriteReply), then in FinaliseTx T3 and the seal: what
// passes between reading T3's TSC and the end of the seal.
struct SealRig {
  std::vector<uint8_t> reply;
  core::NtsSealJob job;
  core::AesSiv s2c;
  SealRig() {
    Steps& s = S();
    reply = s.req;
    const uint32_t len = static_cast<uint32_t>(reply.size());
    core::NtsServer server(&s.random);
    core::NtsRequestState st;
    (void)server.Check(reply.data(), len, s.ks, &st);
    const core::NtpRequestCheck c =
        core::ValidateNtpRequest(s.req.data(), len, core::NtpMacHandling::kDrop,
                                 core::NtpNtsHandling::kReport);
    core::WriteNtpReply(reply.data(), c, s.model.tai_anchor, s.model);
    (void)server.WriteReply(reply.data(), len, st, s.ks, &job);
  }
};

void BM_StepReplyPrepareSeal(benchmark::State& state) {
  SealRig r;
  for (auto _ : state) {
    r.s2c.SetKey(r.job.s2c.data());
    benchmark::DoNotOptimize(r.s2c);
  }
}
BENCHMARK(BM_StepReplyPrepareSeal);

// T3 alone: the TSC read, the model's conversion and the store.
void BM_StepT3Only(benchmark::State& state) {
  SealRig r;
  const core::ClockModel& m = S().model;
  for (auto _ : state) {
    core::StampNtpTransmit(r.reply.data(), m.RawToTai(core::ReadTsc()), m);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StepT3Only);

void BM_StepT3AndSeal(benchmark::State& state) {
  SealRig r;
  const core::ClockModel& m = S().model;
  r.s2c.SetKey(r.job.s2c.data());
  for (auto _ : state) {
    const uint64_t now = core::ReadTsc();
    core::StampNtpTransmit(r.reply.data(), m.RawToTai(now), m);
    core::SealNtsReply(r.s2c, r.reply.data(), r.job);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StepT3AndSeal);

void Summarise(const BestTimeReporter& r) {
  PrintBurstSummary(r, "NTS", "BM_NtsPerRequest", "kind", kKind);
  for (int kind = 0; kind <= 2; ++kind) {
    if (const std::optional<double> early =
            r.BestCounter(absl::StrCat("BM_NtsPerRequest/kind:", kind),
                          "first_T3_early_ns")) {
      std::printf(
          "%-6s: the batch's FinaliseTx (T3, seals, checksums) takes %.0f "
          "ns: the first reply's T3 is that early at tx_burst\n",
          kKind[kind], *early);
    }
  }
  double sum = 0;
  for (const char* step :
       {"BM_StepValidateAndParse", "BM_StepCookieOpen", "BM_StepSetKey",
        "BM_StepVerify", "BM_StepNewCookie", "BM_StepReplyPrepareSeal",
        "BM_StepT3AndSeal", "BM_StepT3Only"}) {
    const std::optional<double> ns = r.BestNs(step);
    if (!ns) continue;
    if (std::strcmp(step, "BM_StepT3Only") != 0) sum += *ns;
    std::printf("step %-24s %6.1f ns\n", step + 7, *ns);
  }
  if (sum > 0) {
    std::printf(
        "steps, one chrony-shaped request: %.1f ns in all (T3Only is part "
        "of T3AndSeal)\n",
        sum);
  }
  if (const std::optional<double> t3 = r.BestNs("BM_StepT3AndSeal")) {
    std::printf(
        "T3 -> end of seal: %.1f ns per reply (its TSC read, T3 written, "
        "the reply sealed); in a full batch of %d NTS replies the first "
        "one's T3 is read about %d x that (+ software checksums) before "
        "tx_burst\n",
        *t3, kBurstSize, kBurstSize - 1);
  }
}

}  // namespace
}  // namespace zg::dataplane::bench

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "nts_worker_benchmark"},
      zg::dataplane::bench::Summarise);
}
