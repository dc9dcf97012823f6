// SPDX-License-Identifier: Apache-2.0
// Why reloadable configuration reaches the workers through our hand-over
// (dataplane/trust/config_swap.h) and not a library one: a worker's per-burst
// read — mark the burst boundary, load the current config, read a field —
// in the same run, through
//   SwappableConfig + ReaderEpochs::Quiescent       (what the workers do)
//   rte_rcu_qsbr_quiescent + an atomic pointer load (DPDK's QSBR RCU)
//   std::atomic<std::shared_ptr<const T>>::load     (C++20's atomic shared_ptr)
//   std::mutex + a shared_ptr copy                  (a mutex-protected copy)
// while a writer thread publishes a new config every 100 µs (a reload is
// far rarer) and one reader thread reads.
//
// The summary gives each library read's wall time as a multiple of
// SwappableConfig's (fastest repetition).
//
//   build-rel/bench/config_swap_benchmark --benchmark_repetitions=3
#include <rte_rcu_qsbr.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "bench/dataplane/bench_main.h"
#include "benchmark/benchmark.h"
#include "dataplane/trust/config_swap.h"

namespace zg::dataplane::bench {
namespace {

struct Config {
  uint64_t generation = 0;
  uint64_t limits[7] = {};
};

// The four hand-overs, one writer for all of them.
struct HandOvers {
  ReaderEpochs epochs;
  SwappableConfig<Config> swappable{std::make_unique<const Config>(), &epochs};
  rte_rcu_qsbr* qsbr = nullptr;
  std::atomic<const Config*> qsbr_current{new Config};
  std::atomic<std::shared_ptr<const Config>> atomic_shared{
      std::make_shared<const Config>()};
  std::mutex mu;
  std::shared_ptr<const Config> mu_current = std::make_shared<const Config>();

  HandOvers() {
    const size_t size = rte_rcu_qsbr_get_memsize(1);
    qsbr = static_cast<rte_rcu_qsbr*>(std::aligned_alloc(64, size));
    if (qsbr == nullptr || rte_rcu_qsbr_init(qsbr, 1) != 0) std::abort();
  }

  void Publish(uint64_t n) {
    auto next = [n] {
      auto c = std::make_unique<Config>();
      c->generation = n;
      return c;
    };
    (void)swappable.Publish(next());
    // QSBR: swap, wait for the reader's grace period, free.
    const Config* old = qsbr_current.exchange(next().release());
    rte_rcu_qsbr_synchronize(qsbr, RTE_QSBR_THRID_INVALID);
    delete old;
    atomic_shared.store(std::shared_ptr<const Config>(next()));
    std::shared_ptr<const Config> fresh(next());
    std::lock_guard lock(mu);
    mu_current = std::move(fresh);
  }
};

HandOvers& Shared() {
  static HandOvers* h = new HandOvers;
  return *h;
}

// Publishes every 100 µs while a benchmark runs; `leave` runs when the
// reader is done, before the writer stops (a QSBR writer waits for it).
template <typename Read, typename Leave>
void RunReader(benchmark::State& state, Read read, Leave leave) {
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t n = 1; !stop.load(std::memory_order_relaxed); ++n) {
      Shared().Publish(n);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  uint64_t sum = 0;
  for (auto _ : state) {
    sum += read();
    benchmark::DoNotOptimize(sum);
  }
  leave();
  stop = true;
  writer.join();
}

void BM_SwappableConfig(benchmark::State& state) {
  HandOvers& h = Shared();
  h.epochs.Online(0);
  RunReader(
      state,
      [&] {
        h.epochs.Quiescent(0);
        return h.swappable.Current()->generation;
      },
      [&] { h.epochs.Offline(0); });
}
BENCHMARK(BM_SwappableConfig)->UseRealTime();

void BM_RteRcuQsbr(benchmark::State& state) {
  HandOvers& h = Shared();
  rte_rcu_qsbr_thread_register(h.qsbr, 0);
  rte_rcu_qsbr_thread_online(h.qsbr, 0);
  RunReader(
      state,
      [&] {
        rte_rcu_qsbr_quiescent(h.qsbr, 0);
        return h.qsbr_current.load(std::memory_order_acquire)->generation;
      },
      [&] {
        rte_rcu_qsbr_thread_offline(h.qsbr, 0);
        rte_rcu_qsbr_thread_unregister(h.qsbr, 0);
      });
}
BENCHMARK(BM_RteRcuQsbr)->UseRealTime();

void BM_AtomicSharedPtr(benchmark::State& state) {
  HandOvers& h = Shared();
  RunReader(
      state, [&] { return h.atomic_shared.load()->generation; }, [] {});
}
BENCHMARK(BM_AtomicSharedPtr)->UseRealTime();

void BM_MutexSharedPtrCopy(benchmark::State& state) {
  HandOvers& h = Shared();
  RunReader(
      state,
      [&] {
        std::shared_ptr<const Config> c;
        {
          std::lock_guard lock(h.mu);
          c = h.mu_current;
        }
        return c->generation;
      },
      [] {});
}
BENCHMARK(BM_MutexSharedPtrCopy)->UseRealTime();

void Summarise(const BestTimeReporter& r) {
  const std::optional<double> ours =
      r.BestRealNs("BM_SwappableConfig/real_time");
  if (!ours) return;
  std::printf("SwappableConfig read %.1f ns", *ours);
  for (const char* bm :
       {"BM_RteRcuQsbr", "BM_AtomicSharedPtr", "BM_MutexSharedPtrCopy"}) {
    if (const std::optional<double> other =
            r.BestRealNs(std::string(bm) + "/real_time")) {
      std::printf("; %s %.1f ns = %.2fx", bm + 3, *other, *other / *ours);
    }
  }
  std::printf("\n");
}

}  // namespace
}  // namespace zg::dataplane::bench

int main(int argc, char** argv) {
  return zg::dataplane::bench::RunDataplaneBenchmarks(
      argc, argv, {.program = "config_swap_benchmark"},
      zg::dataplane::bench::Summarise);
}
