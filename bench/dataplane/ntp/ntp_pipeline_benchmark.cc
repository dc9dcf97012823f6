// SPDX-License-Identifier: Apache-2.0
// Per-request cost of zeitgeberd's NTP work (classify, validate, rewrite into
// the reply, checksum, late T3 stamp and checksum update), through the real
// pipeline objects (dataplane/worker/protocol_pipeline.h) on bursts of 32
// mbufs, without the ring or NIC around them. The baseline in the same run
// re-arms the same 32 mbufs with the request (a 90/110-byte copy each), which
// the measured benchmarks also do; the summary printed at the end subtracts it:
//
//   per-request work = (pipeline burst - baseline burst) / 32
//
// (bench/dataplane/worker/pipeline_burst.h) and gives the IPv6 time per
// request as a multiple of IPv4's. Goal: <= 30 ns per request.
//
//   build-rel/bench/ntp_pipeline_benchmark --benchmark_repetitions=5
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/dataplane/bench_main.h"
#include "bench/dataplane/worker/pipeline_burst.h"
#include "benchmark/benchmark.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::bench {
namespace {

PipelineBurst& Burst(bool ipv6) {
  const auto start = [](bool v6) {
    auto* b = new PipelineBurst;
    const testing::ClientFlow flow = v6 ? testing::ClientFlow::V6(b->mac())
                                        : testing::ClientFlow::V4(b->mac());
    b->Start({}, testing::UdpFrame(flow,
                                   testing::NtpRequest(
                                       4, core::NtpTimestamp{0xe8fe6f80u, 1})));
    return b;
  };
  static PipelineBurst* v4 = start(false);
  static PipelineBurst* v6 = start(true);
  return ipv6 ? *v6 : *v4;
}

void BM_RestoreBaseline(benchmark::State& state) {
  Burst(state.range(0) != 0).MeasureBaseline(state);
}
BENCHMARK(BM_RestoreBaseline)->Arg(0)->Arg(1)->ArgName("ipv6");

void BM_NtpPerRequest(benchmark::State& state) {
  PipelineBurst& b = Burst(state.range(0) != 0);
  b.Measure(state, [&] { return b.HandleAndFinalise(); });
}
BENCHMARK(BM_NtpPerRequest)->Arg(0)->Arg(1)->ArgName("ipv6");

void Summarise(const BestTimeReporter& r) {
  PrintBurstSummary(r, "NTP", "BM_NtpPerRequest", "ipv6", {"IPv4", "IPv6"});
}

}  // namespace
}  // namespace zg::dataplane::bench

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "ntp_pipeline_benchmark"},
      zg::dataplane::bench::Summarise);
}
