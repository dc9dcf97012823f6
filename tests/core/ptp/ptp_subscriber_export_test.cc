// SPDX-License-Identifier: Apache-2.0
// The subscriber export: the busiest N of a worker's table, walked in
// bounded slices, and handed to another thread only when complete.
#include "core/ptp/ptp_subscriber_export.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace {

PtpUnicastClientKey Key(uint32_t n) {
  const uint8_t ip[4] = {10, static_cast<uint8_t>(n >> 16),
                         static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
  PtpUnicastClientKey k;
  k.address = PtpUnicastAddress::Ipv4(ip);
  k.port_identity.port_number = 1;
  return k;
}

// n subscribers; subscriber i has a Sync grant at 2^-(i % 8) s (so the
// busiest are those with i % 8 == 7) and an Announce grant at 1 s.
std::unique_ptr<PtpUnicastTable> Table(uint32_t n, uint32_t capacity) {
  auto t = PtpUnicastTable::Create(capacity, 42);
  EXPECT_TRUE(t.ok());
  for (uint32_t i = 0; i < n; ++i) {
    bool inserted = false;
    PtpUnicastSubscriber& s = (*t)->at((*t)->Insert(Key(i), &inserted));
    s.Set(PtpGrantType::kSync, true);
    s.log_interval[static_cast<size_t>(PtpGrantType::kSync)] =
        static_cast<int8_t>(-static_cast<int>(i % 8));
    s.expiry_s[static_cast<size_t>(PtpGrantType::kSync)] = 1000 + i;
    s.Set(PtpGrantType::kAnnounce, true);
    s.expiry_s[static_cast<size_t>(PtpGrantType::kAnnounce)] = 1000;
  }
  return *std::move(t);
}

TEST(PtpSubscriberExportTest, Rate) {
  PtpUnicastSubscriber s;
  EXPECT_EQ(PtpSubscriberRate(s), 0);
  s.Set(PtpGrantType::kSync, true);
  s.log_interval[static_cast<size_t>(PtpGrantType::kSync)] = -4;
  s.Set(PtpGrantType::kDelayResp, true);
  s.log_interval[static_cast<size_t>(PtpGrantType::kDelayResp)] = 1;
  EXPECT_EQ(PtpSubscriberRate(s), 16.5);
}

TEST(PtpSubscriberExportTest, TheBusiestNInBoundedSlices) {
  const uint32_t capacity = 5 * PtpSubscriberExport::kChunk;
  auto table = Table(10'000, capacity);
  auto exp = std::make_unique<PtpSubscriberExport>();
  const uint64_t gen = exp->Request(20);
  int steps = 0;
  while (!exp->Done(gen)) {
    exp->Step(table.get(), /*now_s=*/900);
    ++steps;
    ASSERT_LT(steps, 100);
  }
  // One slice per step: the walk took capacity / kChunk steps.
  EXPECT_EQ(steps, static_cast<int>(capacity / PtpSubscriberExport::kChunk));
  EXPECT_EQ(exp->total(), 10'000u);
  ASSERT_EQ(exp->entries().size(), 20u);
  for (const PtpSubscriberEntry& e : exp->entries()) {
    EXPECT_EQ(e.rate, 128 + 1);  // 2^7 Syncs + 1 Announce per second
    const uint32_t i = e.key.address.octets[1] << 16 |
                       e.key.address.octets[2] << 8 | e.key.address.octets[3];
    EXPECT_EQ(i % 8, 7u);
    EXPECT_EQ(e.expires_in_s[static_cast<size_t>(PtpGrantType::kSync)],
              100 + i);
    EXPECT_EQ(e.expires_in_s[static_cast<size_t>(PtpGrantType::kDelayResp)],
              0u);
  }
  // Equal rates: the lowest addresses (i = 7, 15, 23, ...), every run.
  std::vector<uint32_t> kept;
  for (const PtpSubscriberEntry& e : exp->entries()) {
    kept.push_back(e.key.address.octets[1] << 16 |
                   e.key.address.octets[2] << 8 | e.key.address.octets[3]);
  }
  std::sort(kept.begin(), kept.end());
  for (size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(kept[k], 7 + 8 * k);
  // Nothing more to do until asked again.
  exp->Step(table.get(), 900);
  EXPECT_TRUE(exp->Done(gen));
  const uint64_t again = exp->Request(3);
  EXPECT_FALSE(exp->Done(again));
  while (!exp->Done(again)) exp->Step(table.get(), 900);
  EXPECT_EQ(exp->entries().size(), 3u);
}

TEST(PtpSubscriberExportTest, NoTableIsAnEmptyAnswer) {
  PtpSubscriberExport exp;
  const uint64_t gen = exp.Request(5);
  exp.Step(nullptr, 0);
  ASSERT_TRUE(exp.Done(gen));
  EXPECT_EQ(exp.total(), 0u);
  EXPECT_TRUE(exp.entries().empty());
}

// A worker thread stepping while the control thread asks again and again:
// every completed answer is whole (also under TSan).
TEST(PtpSubscriberExportTest, ConcurrentRequestsSeeWholeAnswers) {
  auto table = Table(3'000, 4 * PtpSubscriberExport::kChunk);
  auto exp = std::make_unique<PtpSubscriberExport>();
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    while (!stop.load(std::memory_order_relaxed)) exp->Step(table.get(), 0);
  });
  for (int round = 0; round < 50; ++round) {
    const uint32_t top = 1 + round % 10;
    const uint64_t gen = exp->Request(top);
    while (!exp->Done(gen)) std::this_thread::yield();
    EXPECT_EQ(exp->total(), 3'000u);
    EXPECT_EQ(exp->entries().size(), top);
  }
  stop = true;
  worker.join();
}

}  // namespace
}  // namespace zg::core
