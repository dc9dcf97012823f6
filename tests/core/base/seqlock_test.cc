// SPDX-License-Identifier: Apache-2.0
#include "core/base/seqlock.h"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/time/clock_model.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace {

// A payload whose fields must always agree: a torn copy would mix them.
struct Checked {
  uint64_t a;
  uint64_t b;
  uint64_t c[6];
  uint64_t sum;
};

Checked Make(uint64_t n) {
  Checked v{n, ~n, {}, 0};
  for (int i = 0; i < 6; ++i) v.c[i] = n * (i + 3);
  v.sum = v.a + v.b;
  for (uint64_t x : v.c) v.sum += x;
  return v;
}

bool Consistent(const Checked& v) {
  uint64_t s = v.a + v.b;
  for (uint64_t x : v.c) s += x;
  return s == v.sum && v.b == ~v.a;
}

TEST(SeqLockTest, EmptyReadFails) {
  SeqLock<Checked> lock;
  Checked out = Make(7);
  EXPECT_FALSE(lock.TryRead(&out));
  EXPECT_EQ(out.a, 7u);  // untouched
}

TEST(SeqLockTest, ReadsWhatWasWritten) {
  SeqLock<Checked> lock;
  lock.Write(Make(42));
  Checked out{};
  ASSERT_TRUE(lock.TryRead(&out));
  EXPECT_EQ(out.a, 42u);
  EXPECT_TRUE(Consistent(out));
  EXPECT_EQ(lock.Generation(), 1u);
}

TEST(SeqLockTest, ConcurrentReadersNeverSeeTornValues) {
  SeqLock<Checked> lock(Make(1));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0}, torn{0}, failed{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t last = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        Checked out;
        if (!lock.TryRead(&out)) {
          failed.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        if (!Consistent(out) || out.a < last) torn.fetch_add(1);
        last = out.a;
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  std::thread writer([&] {
    for (uint64_t n = 2; n < 200'000; ++n) lock.Write(Make(n));
    stop.store(true);
  });
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GT(reads.load(), 0u);
  Checked final_value;
  ASSERT_TRUE(lock.TryRead(&final_value));
  EXPECT_EQ(final_value.a, 199'999u);
}

TEST(SeqLockTest, ClockReaderUnderConcurrentPublishing) {
  PublishedClock published;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0};
  std::thread worker([&] {
    ClockReader reader(&published);
    while (!stop.load(std::memory_order_relaxed)) {
      const ClockModel& m = reader.Refresh();
      // The writer keeps generation == raw_anchor == stratum-derived fields.
      if (m.generation != m.raw_anchor) bad.fetch_add(1);
    }
  });
  for (uint64_t g = 1; g < 100'000; ++g) {
    ClockModel m;
    m.generation = g;
    m.raw_anchor = g;
    published.Write(m);
  }
  stop.store(true);
  worker.join();
  EXPECT_EQ(bad.load(), 0u);
}

}  // namespace
}  // namespace zg::core
