// SPDX-License-Identifier: Apache-2.0
// Why the published clock uses our seqlock (core/base/seqlock.h) and not a
// library lock: a worker's once-per-burst read of the ClockModel, in the same
// run, through
//   SeqLock<ClockModel>::TryRead           (what the workers do)
//   std::shared_mutex, shared lock + copy  (the standard reader-writer lock)
//   std::mutex + copy                      (a mutex-protected copy)
// while a writer thread publishes a new model every 100 µs (the control
// thread publishes at its tick rate, far less often) and 1 or 2 reader
// threads read. Lock readers write the lock's cache line and wait behind
// the writer; the seqlock's readers write nothing and never wait.
//
// The summary at the end gives each library read's time as a multiple of
// the seqlock's, per reader count (fastest repetition by wall time per read
// and thread: a lock reader's wait counts).
//
//   build-rel/bench/seqlock_benchmark --benchmark_repetitions=3
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "bench/best_time_reporter.h"
#include "benchmark/benchmark.h"
#include "core/base/seqlock.h"
#include "core/time/clock_model.h"

namespace zg::core {
namespace {

ClockModel Model(uint64_t n) {
  ClockModel m;
  m.raw_anchor = n;
  m.tai_anchor = TaiNs{static_cast<int64_t>(n) * 1000};
  m.ns_per_tick_q32 = NsPerTickQ32FromHz(3e9);
  m.error_bound_ns = static_cast<int64_t>(n % 1000);
  return m;
}

// The three ways to publish, behind one interface for the writer.
struct Published {
  SeqLock<ClockModel> seqlock;
  std::shared_mutex rw;
  std::mutex mu;
  ClockModel rw_copy;  // guarded by rw
  ClockModel mu_copy;  // guarded by mu

  void Write(uint64_t n) {
    const ClockModel m = Model(n);
    seqlock.Write(m);
    {
      std::unique_lock lock(rw);
      rw_copy = m;
    }
    std::lock_guard lock(mu);
    mu_copy = m;
  }
};

Published& Shared() {
  static Published* p = new Published;
  return *p;
}

// Publishes every 100 µs while any benchmark runs (the first reader thread
// starts it, the last one of each run stops it).
class Writer {
 public:
  void Start() {
    stop_ = false;
    thread_ = std::thread([this] {
      for (uint64_t n = 1; !stop_.load(std::memory_order_relaxed); ++n) {
        Shared().Write(n);
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
  }
  void Stop() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Writer& TheWriter() {
  static Writer* w = new Writer;
  return *w;
}

template <typename Read>
void RunReaders(benchmark::State& state, Read read) {
  if (state.thread_index() == 0) {
    Shared().Write(0);
    TheWriter().Start();
  }
  uint64_t sum = 0;
  for (auto _ : state) {
    ClockModel m;
    read(&m);
    sum += m.raw_anchor;
    benchmark::DoNotOptimize(sum);
  }
  if (state.thread_index() == 0) TheWriter().Stop();
}

void BM_SeqLockRead(benchmark::State& state) {
  RunReaders(state, [](ClockModel* m) {
    if (!Shared().seqlock.TryRead(m)) *m = {};  // keep-last-good elsewhere
  });
}
BENCHMARK(BM_SeqLockRead)->Threads(1)->Threads(2)->UseRealTime();

void BM_SharedMutexRead(benchmark::State& state) {
  RunReaders(state, [](ClockModel* m) {
    std::shared_lock lock(Shared().rw);
    *m = Shared().rw_copy;
  });
}
BENCHMARK(BM_SharedMutexRead)->Threads(1)->Threads(2)->UseRealTime();

void BM_MutexCopyRead(benchmark::State& state) {
  RunReaders(state, [](ClockModel* m) {
    std::lock_guard lock(Shared().mu);
    *m = Shared().mu_copy;
  });
}
BENCHMARK(BM_MutexCopyRead)->Threads(1)->Threads(2)->UseRealTime();

void Summarise(const bench::BestTimeReporter& r) {
  for (const char* threads : {"threads:1", "threads:2"}) {
    const auto ns = [&](const char* bm) {
      return r.BestRealNs(absl::StrCat(bm, "/real_time/", threads));
    };
    const std::optional<double> seq = ns("BM_SeqLockRead");
    if (!seq) continue;
    std::printf("%s: seqlock read %.1f ns", threads, *seq);
    for (const char* bm : {"BM_SharedMutexRead", "BM_MutexCopyRead"}) {
      if (const std::optional<double> other = ns(bm)) {
        std::printf("; %s %.1f ns = %.2fx", bm + 3, *other, *other / *seq);
      }
    }
    std::printf("\n");
  }
}

}  // namespace
}  // namespace zg::core

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  zg::bench::BestTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  zg::core::Summarise(reporter);
  benchmark::Shutdown();
  return 0;
}
