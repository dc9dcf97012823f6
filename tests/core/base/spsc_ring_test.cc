// SPDX-License-Identifier: Apache-2.0
#include "core/base/spsc_ring.h"

#include <cstdint>
#include <thread>

#include "gtest/gtest.h"

namespace zg::core {
namespace {

struct Item {
  uint64_t seq;
  uint64_t check;
};

TEST(SpscRing, FifoAndFull) {
  SpscRing<int, 4> r;
  int v;
  EXPECT_FALSE(r.TryPop(&v));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(r.TryPush(i));
  EXPECT_FALSE(r.TryPush(99));
  EXPECT_EQ(r.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(r.TryPop(&v));
    EXPECT_EQ(v, i);
  }
  EXPECT_FALSE(r.TryPop(&v));
  // Wraps around.
  for (int round = 0; round < 10; ++round) {
    EXPECT_TRUE(r.TryPush(round));
    ASSERT_TRUE(r.TryPop(&v));
    EXPECT_EQ(v, round);
  }
}

// One producer, one consumer: every item arrives once, in order, whole.
TEST(SpscRing, ConcurrentProducerConsumer) {
  constexpr uint64_t kN = 200'000;
  SpscRing<Item, 64> r;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kN;) {
      if (r.TryPush({i, ~i})) ++i;
    }
  });
  uint64_t next = 0;
  Item item;
  while (next < kN) {
    if (!r.TryPop(&item)) continue;
    ASSERT_EQ(item.seq, next);
    ASSERT_EQ(item.check, ~next);
    ++next;
  }
  producer.join();
  EXPECT_FALSE(r.TryPop(&item));
}

}  // namespace
}  // namespace zg::core
