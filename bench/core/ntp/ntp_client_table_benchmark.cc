// SPDX-License-Identifier: Apache-2.0
// Cost of one NtpClientTable::Check (core/ntp/ntp_client_table.h) in bursts
// of 32 random clients, without the worker loop around it: a population
// that fits in cache (4096 clients) against 10M (a table of 160 MB), each
// without and with the burst's Prefetch first, in the same run; the key
// generation alone is the baseline. Each key is hashed once (HashOf): the
// hash Prefetch used is the one Check takes, as the worker does.
//
// BM_ClientRecords: the per-client records (core/ntp/ntp_client_records.h)
// next to the rate limiter at 4096 (in cache), 1M and 10M clients, every
// mode prefetching the burst first and flushing the records after it: keys
// only, the rate limiter alone, the rate limiter and the records (what
// --ntp_client_records adds), the records alone (rate limiting off).
//
//   build-rel/bench/ntp_client_table_benchmark --benchmark_repetitions=5
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>

#include "benchmark/benchmark.h"
#include "core/ntp/ntp_client_query.h"
#include "core/ntp/ntp_client_records.h"
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

// The next burst's clients hashed and prefetched while this one's are
// checked: how much of a Check at 10M clients is waiting on memory that a
// burst of other work could hide.
void ClientTableCheckAhead(benchmark::State& state, Population& p) {
  NtpClientHash ahead[kBurst], now[kBurst];
  for (NtpClientHash& h : ahead) h = p.table->HashOf(p.Next());
  uint64_t sink = 0;
  for (auto _ : state) {
    std::copy(ahead, ahead + kBurst, now);
    for (NtpClientHash& h : ahead) {
      h = p.table->HashOf(p.Next());
      p.table->Prefetch(h);
    }
    p.now = p.now + 1000;
    for (const NtpClientHash& h : now) {
      sink += static_cast<uint64_t>(p.table->Check(h, p.now).decision);
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * kBurst);
  state.SetLabel("prefetch a burst ahead+check");
}

// range(0): clients; range(1): 0 keys only, 1 Check, 2 Prefetch + Check,
// 3 the next burst's Prefetch + this one's Check.
void BM_ClientTableCheck(benchmark::State& state) {
  Population& p = Of(static_cast<uint32_t>(state.range(0)));
  const int mode = static_cast<int>(state.range(1));
  if (mode == 3) return ClientTableCheckAhead(state, p);
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
    ->Args({4096, 3})
    ->Args({10'000'000, 0})
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 2})
    ->Args({10'000'000, 3});

// ---- Records next to the rate limiter ---------------------------------------

struct RecordedPopulation {
  Population limit;
  std::unique_ptr<NtpClientRecords> records;

  explicit RecordedPopulation(uint32_t n)
      : limit(n), records(std::move(*NtpClientRecords::Create({n, 9}))) {
    for (uint32_t i = 0; i < 2 * n; ++i) {
      records->Request(limit.Next(), limit.now, NtpClientAuth::kNone);
    }
    records->Flush();
  }
};

RecordedPopulation& RecordedOf(uint32_t n) {
  static std::map<uint32_t, RecordedPopulation*>* made =
      new std::map<uint32_t, RecordedPopulation*>();
  RecordedPopulation*& p = (*made)[n];
  if (p == nullptr) p = new RecordedPopulation(n);
  return *p;
}

// range(0): clients; range(1): 0 keys only, 1 rate limiter, 2 rate limiter
// and records, 3 records only.
void BM_ClientRecords(benchmark::State& state) {
  RecordedPopulation& p = RecordedOf(static_cast<uint32_t>(state.range(0)));
  const int mode = static_cast<int>(state.range(1));
  const bool limit = mode == 1 || mode == 2;
  const bool record = mode == 2 || mode == 3;
  NtpClientKey keys[kBurst];
  uint64_t sink = 0;
  for (auto _ : state) {
    for (NtpClientKey& k : keys) {
      k = p.limit.Next();
      if (limit) p.limit.table->Prefetch(k);
      if (record) p.records->Prefetch(k);
    }
    p.limit.now = p.limit.now + 1000;
    for (const NtpClientKey& k : keys) {
      sink += k.lo;
      if (limit) {
        sink += static_cast<uint64_t>(
            p.limit.table->Check(k, p.limit.now).decision);
      }
      if (record) {
        sink += p.records->Request(k, p.limit.now, NtpClientAuth::kNone);
      }
    }
    if (record) p.records->Flush();  // the burst's new clients
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * kBurst);
  static constexpr const char* kLabels[] = {"keys only", "ratelimit",
                                            "ratelimit+records", "records"};
  state.SetLabel(kLabels[mode]);
  state.counters["records_MiB"] = double(p.records->memory_bytes()) / (1 << 20);
}
BENCHMARK(BM_ClientRecords)
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->Args({4096, 2})
    ->Args({4096, 3})
    ->Args({1'000'000, 0})
    ->Args({1'000'000, 1})
    ->Args({1'000'000, 2})
    ->Args({1'000'000, 3})
    ->Args({10'000'000, 0})
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 2})
    ->Args({10'000'000, 3});

// zgctl clients over 1M clients (core/ntp/ntp_client_query.h), on the
// reader's side: range(0): 0 top 100 by requests (the hot-line pre-filter),
// 1 top 100 by KoD (every record read), 2 top 100 by requests within a /16.
void BM_ClientsQuery(benchmark::State& state) {
  RecordedPopulation& p = RecordedOf(1'000'000);
  NtpClientQuery q;
  q.top = 100;
  if (state.range(0) == 1) q.sort = NtpClientSort::kKod;
  if (state.range(0) == 2) q.address = *ParseNtpClientAddress("10.1.0.0/16");
  const NtpClientRecords* tables[] = {p.records.get()};
  size_t listed = 0;
  for (auto _ : state) {
    listed = SelectNtpClients(tables, q).clients.size();
    benchmark::DoNotOptimize(listed);
  }
  state.counters["listed"] = double(listed);
  state.counters["records"] = double(p.records->stats().tracked);
  static constexpr const char* kLabels[] = {
      "top 100 by requests", "top 100 by kod", "top 100 by requests in a /16"};
  state.SetLabel(kLabels[state.range(0)]);
}
BENCHMARK(BM_ClientsQuery)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace zg::core

BENCHMARK_MAIN();
