// SPDX-License-Identifier: Apache-2.0
// SnapshotSlot: the writer never waits, readers see whole snapshots in
// publication order, and a snapshot a reader keeps outlives its
// replacement. Also run under TSan (suite tsan).
#include "servo/api/snapshot_slot.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace zg::servo {
namespace {

struct Payload {
  uint64_t version = 0;
  std::string text;  // not trivially copyable: why this is not a SeqLock
  std::vector<uint64_t> copies;  // every element == version
};

std::shared_ptr<const Payload> Make(uint64_t v) {
  auto p = std::make_shared<Payload>();
  p->version = v;
  p->text = std::to_string(v);
  p->copies.assign(16, v);
  return p;
}

TEST(SnapshotSlotTest, EmptyUntilTheFirstPublish) {
  SnapshotSlot<Payload> slot;
  EXPECT_EQ(slot.Read(), nullptr);
  EXPECT_TRUE(slot.Publish(Make(1)));
  ASSERT_NE(slot.Read(), nullptr);
  EXPECT_EQ(slot.Read()->version, 1u);
  EXPECT_EQ(slot.published(), 1u);
  EXPECT_TRUE(slot.Flush());  // nothing pending
}

TEST(SnapshotSlotTest, AReaderKeepsItsSnapshotAcrossPublications) {
  SnapshotSlot<Payload> slot;
  slot.Publish(Make(1));
  std::shared_ptr<const Payload> kept = slot.Read();
  slot.Publish(Make(2));
  slot.Publish(Make(3));
  EXPECT_EQ(kept->version, 1u);
  EXPECT_EQ(kept->text, "1");
  EXPECT_EQ(slot.Read()->version, 3u);
}

// Readers hammer the slot while the writer publishes: every read is a whole
// snapshot, versions never go back, and the writer finishes (it never
// waited: a try-lock that lost keeps the snapshot pending for the next
// publication).
TEST(SnapshotSlotTest, ConcurrentReadersNeverTearOrGoBack) {
  SnapshotSlot<Payload> slot;
  constexpr uint64_t kVersions = 20000;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0};
  std::atomic<bool> bad{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t last = 0;
      while (!done.load(std::memory_order_relaxed)) {
        std::shared_ptr<const Payload> p = slot.Read();
        if (p == nullptr) continue;
        if (p->version < last || p->text != std::to_string(p->version)) {
          bad = true;
        }
        for (uint64_t c : p->copies) bad = bad || c != p->version;
        last = p->version;
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (uint64_t v = 1; v <= kVersions; ++v) slot.Publish(Make(v));
  while (!slot.Flush()) std::this_thread::yield();
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_FALSE(bad);
  EXPECT_EQ(slot.Read()->version, kVersions);
  // Each Publish either installed its snapshot or was deferred.
  EXPECT_GE(slot.published() + slot.deferred(), kVersions);
  EXPECT_GT(reads.load(), 0u);
}

}  // namespace
}  // namespace zg::servo
