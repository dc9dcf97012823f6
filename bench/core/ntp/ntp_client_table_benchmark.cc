// Cost of one NtpClientTable::Check (core/ntp/ntp_client_table.h) in bursts
// of 32 random clients, without the worker loop around it: a population
// that fits in cache (4096 clients) against 10M (a table of 160 MB), each
// without and with the burst's Prefetch first, in the same run; the key
// generation alone is the baseline. Each key is hashed once (HashOf): the
// hash Prefetch used is the one Check takes, as the worker does.
//
//   build-rel/bench/ntp_client_table_benchmark --benchmark_repetitions=5
#include <cstdint>
#include <memory>

#include "benchmark/benchmark.h"
#include "core/ntp/ntp_client_table.h"

namespace zg::core {
namespace {

constexpr int kBurst = 32;

struct Population {
  std::unique_ptr<NtpClientTable> table;
  uint32_t clients;
  uint64_t rng = 88172645463325252ull;
  TaiNs now{1'800'000'000'000'000'000};

  explicit Population(uint32_t n)
      : table(std::move(*NtpClientTable::Create({n, {3, 8, 2}, false, 7}))),
        clients(n) {
    for (uint32_t i = 0; i < 2 * n; ++i) {
      table->Check(Next(), now);
      now = now + 100;
    }
  }
  NtpClientKey Next() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return NtpClientKey::V4(
        Ipv4Addr{0x0a000000u + uint32_t(((rng >> 32) * clients) >> 32)});
  }
};

Population& Of(uint32_t n) {
  static Population* small = new Population(4096);
  static Population* large = new Population(10'000'000);
  return n <= 4096 ? *small : *large;
}

// range(0): clients; range(1): 0 keys only, 1 Check, 2 Prefetch + Check.
void BM_ClientTableCheck(benchmark::State& state) {
  Population& p = Of(static_cast<uint32_t>(state.range(0)));
  const int mode = static_cast<int>(state.range(1));
  NtpClientKey keys[kBurst];
  NtpClientHash hashes[kBurst];
  uint64_t sink = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBurst; ++i) {
      keys[i] = p.Next();
      if (mode == 0) continue;
      hashes[i] = p.table->HashOf(keys[i]);
      if (mode == 2) p.table->Prefetch(hashes[i]);
    }
    p.now = p.now + 1000;
    for (int i = 0; i < kBurst; ++i) {
      sink += mode == 0 ? keys[i].lo
                        : static_cast<uint64_t>(
                              p.table->Check(hashes[i], p.now).decision);
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * kBurst);
  state.SetLabel(mode == 0   ? "keys only"
                 : mode == 1 ? "check"
                             : "prefetch+check");
  state.counters["table_MiB"] = double(p.table->memory_bytes()) / (1 << 20);
  state.counters["huge_MiB"] = double(p.table->huge_page_bytes()) / (1 << 20);
}
BENCHMARK(BM_ClientTableCheck)
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Args({4096, 2})
    ->Args({10'000'000, 0})
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 2});

}  // namespace
}  // namespace zg::core

BENCHMARK_MAIN();
