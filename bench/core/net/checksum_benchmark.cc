// SPDX-License-Identifier: Apache-2.0
// Internet checksum micro-benchmarks: the sizes the data plane sums (a
// 48-byte NTP payload, a 76-byte NTP datagram with its IPv4 header, about
// 1000 bytes of an 8-cookie NTS request, a full 1500-byte MTU) and the RFC
// 1624 incremental updates used for late timestamp rewrites.
// BM_ReferenceSum (16 bits at a time, as RFC 1071's sample code) and
// BM_OnesComplementSumScalar (the loop CPUs without AVX2 take) are the
// in-run baselines.
//   build/bench/checksum_benchmark
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/net/checksum.h"

namespace zg::bench {
namespace {

using namespace zg::core;

std::vector<uint8_t> RandomBytes(size_t n) {
  std::mt19937 rng(1071);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

uint16_t ReferenceSum(const uint8_t* p, uint32_t n) {
  uint32_t s = 0;
  for (uint32_t i = 0; i + 1 < n; i += 2) s += uint32_t{p[i]} << 8 | p[i + 1];
  if (n & 1) s += uint32_t{p[n - 1]} << 8;
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  return static_cast<uint16_t>(s);
}

void BM_OnesComplementSum(benchmark::State& state) {
  const std::vector<uint8_t> d = RandomBytes(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.data());
    benchmark::DoNotOptimize(
        OnesComplementSum(d.data(), static_cast<uint32_t>(d.size())));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_OnesComplementSum)->Arg(48)->Arg(76)->Arg(1000)->Arg(1500);

// The same on the scalar loop (the AVX2 one turned off): its baseline.
void BM_OnesComplementSumScalar(benchmark::State& state) {
  checksum_internal::ForceScalarSumForTesting(true);
  BM_OnesComplementSum(state);
  checksum_internal::ForceScalarSumForTesting(false);
}
BENCHMARK(BM_OnesComplementSumScalar)->Arg(76)->Arg(1000)->Arg(1500);

void BM_ReferenceSum(benchmark::State& state) {
  const std::vector<uint8_t> d = RandomBytes(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.data());
    benchmark::DoNotOptimize(
        ReferenceSum(d.data(), static_cast<uint32_t>(d.size())));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReferenceSum)->Arg(48)->Arg(76)->Arg(1500);

void BM_UdpChecksumV4(benchmark::State& state) {
  std::vector<uint8_t> d = RandomBytes(56);  // UDP header + NTP
  const Ipv4Addr src = Ipv4Addr::FromOctets(10, 99, 0, 1);
  const Ipv4Addr dst = Ipv4Addr::FromOctets(10, 99, 0, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.data());
    benchmark::DoNotOptimize(UdpChecksumV4(src, dst, d.data(), 56));
  }
}
BENCHMARK(BM_UdpChecksumV4);

void BM_Ipv4HeaderChecksum(benchmark::State& state) {
  std::vector<uint8_t> d = RandomBytes(20);
  for (auto _ : state) {
    benchmark::DoNotOptimize(d.data());
    benchmark::DoNotOptimize(Ipv4HeaderChecksum(d.data(), 20));
  }
}
BENCHMARK(BM_Ipv4HeaderChecksum);

void BM_ChecksumUpdate16(benchmark::State& state) {
  uint16_t c = 0x1234, old_word = 0xabcd, new_word = 0x0102;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(old_word);
    benchmark::DoNotOptimize(new_word);
    benchmark::DoNotOptimize(ChecksumUpdate16(c, old_word, new_word));
  }
}
BENCHMARK(BM_ChecksumUpdate16);

// An 8-byte NTP transmit timestamp rewritten after the checksum was computed.
void BM_ChecksumUpdateBytes8(benchmark::State& state) {
  const std::vector<uint8_t> old_bytes = RandomBytes(8);
  std::vector<uint8_t> new_bytes = RandomBytes(8);
  new_bytes[0] ^= 0x5a;
  uint16_t c = 0x1234;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(old_bytes.data());
    benchmark::DoNotOptimize(new_bytes.data());
    c = UdpChecksumUpdateBytes(c, 48, old_bytes.data(), new_bytes.data(), 8);
  }
  benchmark::DoNotOptimize(c);
}
BENCHMARK(BM_ChecksumUpdateBytes8);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
