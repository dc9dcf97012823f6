// SPDX-License-Identifier: Apache-2.0
// SnapshotCell: readers on other threads always get a whole snapshot the
// writer published (never a torn or freed one), and the writer never waits:
// a Publish that finds no free slot returns false at once and keeps its
// snapshot pending for the next Publish or Flush. Also run under
// ThreadSanitizer (suite tsan).
#include "servo/control/snapshot_cell.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace zg::servo {
namespace {

struct Snap {
  explicit Snap(uint64_t n)
      : a(n), b(~n), text(64, static_cast<char>('a' + n % 26)) {}
  uint64_t a, b;
  std::string text;
};

TEST(SnapshotCellTest, NullUntilPublishedThenTheLatest) {
  SnapshotCell<Snap> cell;
  EXPECT_EQ(cell.Load(), nullptr);
  EXPECT_TRUE(cell.Publish(std::make_shared<const Snap>(1)));
  EXPECT_EQ(cell.Load()->a, 1u);
  EXPECT_TRUE(cell.Publish(std::make_shared<const Snap>(2)));
  std::shared_ptr<const Snap> held = cell.Load();
  EXPECT_TRUE(cell.Publish(std::make_shared<const Snap>(3)));
  EXPECT_TRUE(cell.Publish(std::make_shared<const Snap>(4)));
  EXPECT_EQ(held->a, 2u) << "a reader's snapshot outlives later publishes";
  EXPECT_EQ(cell.Load()->a, 4u);
  EXPECT_TRUE(cell.Flush()) << "nothing pending";
  EXPECT_EQ(cell.published(), 4u);
  EXPECT_EQ(cell.deferred(), 0u);
}

TEST(SnapshotCellTest, ReadersSeeWholeMonotonicSnapshotsWhileTheWriterRuns) {
  SnapshotCell<Snap> cell;
  cell.Publish(std::make_shared<const Snap>(0));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0}, bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t last = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        std::shared_ptr<const Snap> s = cell.Load();
        if (s == nullptr) continue;  // lost 64 races: allowed, rare
        if (s->b != ~s->a || s->a < last ||
            s->text != std::string(64, static_cast<char>('a' + s->a % 26))) {
          bad.fetch_add(1);
        }
        last = s->a;
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  uint64_t published = 0, skipped = 0;
  for (uint64_t n = 1; n <= 20000; ++n) {
    if (cell.Publish(std::make_shared<const Snap>(n))) {
      ++published;
    } else {
      ++skipped;
    }
  }
  // A skipped publish stays pending: the writer's next call installs it.
  while (!cell.Flush()) std::this_thread::yield();
  stop.store(true);
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(reads.load(), 0u);
  EXPECT_GT(published, 0u);
  EXPECT_EQ(cell.Load()->a, 20000u) << "the latest is always installed";
  EXPECT_GE(cell.published(), published);
  std::printf("published %llu, skipped (no free slot) %llu, reads %llu\n",
              static_cast<unsigned long long>(published),
              static_cast<unsigned long long>(skipped),
              static_cast<unsigned long long>(reads.load()));
}

}  // namespace
}  // namespace zg::servo
