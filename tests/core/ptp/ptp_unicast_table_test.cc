// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_unicast_table.h"

#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_unicast_table_test {
namespace {

PtpUnicastClientKey Key(uint32_t n, uint16_t port = 1) {
  const uint8_t ip[4] = {10, static_cast<uint8_t>(n >> 16),
                         static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
  PtpUnicastClientKey k;
  k.address = PtpUnicastAddress::Ipv4(ip);
  k.port_identity.clock_identity = {
      {0x02, 0, 0, 0xFF, 0xFE, ip[1], ip[2], ip[3]}};
  k.port_identity.port_number = port;
  return k;
}

TEST(PtpUnicastTable, CreateChecksCapacity) {
  EXPECT_FALSE(PtpUnicastTable::Create(0, 1).ok());
  EXPECT_FALSE(
      PtpUnicastTable::Create(PtpUnicastTable::kMaxCapacity + 1, 1).ok());
  EXPECT_TRUE(PtpUnicastTable::Create(1, 1).ok());
}

TEST(PtpUnicastTable, InsertFindErase) {
  auto t = *PtpUnicastTable::Create(8, 42);
  bool inserted = false;
  const uint32_t a = t->Insert(Key(1), &inserted);
  ASSERT_NE(a, PtpUnicastTable::kNone);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(t->at(a).key, Key(1));
  EXPECT_EQ(t->Insert(Key(1), &inserted), a);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(t->Find(Key(1)), a);
  EXPECT_EQ(t->Find(Key(2)), PtpUnicastTable::kNone);
  // Same address, another port number: another subscriber.
  const uint32_t b = t->Insert(Key(1, 2), &inserted);
  EXPECT_TRUE(inserted);
  EXPECT_NE(a, b);
  EXPECT_EQ(t->size(), 2u);
  t->at(a).sync_sequence_id = 77;
  t->Erase(a);
  EXPECT_FALSE(t->in_use(a));
  EXPECT_EQ(t->Find(Key(1)), PtpUnicastTable::kNone);
  EXPECT_EQ(t->Find(Key(1, 2)), b);
  EXPECT_EQ(t->size(), 1u);
  // A reused entry starts clean.
  const uint32_t c = t->Insert(Key(3), &inserted);
  EXPECT_EQ(t->at(c).sync_sequence_id, 0);
  EXPECT_EQ(t->at(c).granted, 0);
}

TEST(PtpUnicastTable, TransportsAreDistinctKeys) {
  auto t = *PtpUnicastTable::Create(8, 42);
  const uint8_t bytes[16] = {10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  PtpUnicastClientKey v4{PtpUnicastAddress::Ipv4(bytes), {}};
  PtpUnicastClientKey v6{PtpUnicastAddress::Ipv6(bytes), {}};
  PtpUnicastClientKey l2{PtpUnicastAddress::L2(bytes), {}};
  bool inserted;
  const uint32_t a = t->Insert(v4, &inserted);
  const uint32_t b = t->Insert(v6, &inserted);
  const uint32_t c = t->Insert(l2, &inserted);
  EXPECT_EQ(std::set<uint32_t>({a, b, c}).size(), 3u);
  EXPECT_NE(t->Hash(v4), t->Hash(v6));
}

TEST(PtpUnicastTable, FullTableRefuses) {
  auto t = *PtpUnicastTable::Create(3, 1);
  bool inserted;
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_NE(t->Insert(Key(i), &inserted), PtpUnicastTable::kNone);
  }
  EXPECT_EQ(t->Insert(Key(99), &inserted), PtpUnicastTable::kNone);
  EXPECT_FALSE(inserted);
  // Existing keys are still found when full.
  EXPECT_NE(t->Insert(Key(1), &inserted), PtpUnicastTable::kNone);
  t->Erase(t->Find(Key(0)));
  EXPECT_NE(t->Insert(Key(99), &inserted), PtpUnicastTable::kNone);
}

TEST(PtpUnicastTable, SeedChangesTheHash) {
  auto a = *PtpUnicastTable::Create(8, 1);
  auto b = *PtpUnicastTable::Create(8, 2);
  int same = 0;
  for (uint32_t i = 0; i < 64; ++i) same += a->Hash(Key(i)) == b->Hash(Key(i));
  EXPECT_EQ(same, 0);
}

// Random inserts and erases against std::map, with a small table so probe
// runs wrap around and backward shifts happen constantly.
TEST(PtpUnicastTable, MatchesAReferenceMapUnderChurn) {
  constexpr uint32_t kCap = 64;
  auto t = *PtpUnicastTable::Create(kCap, 7);
  std::map<uint32_t, uint32_t> ref;  // key number -> entry
  std::mt19937 rng(1234);
  for (int step = 0; step < 200'000; ++step) {
    const uint32_t k = rng() % 150;
    const bool insert = rng() % 2 == 0;
    bool inserted;
    if (insert) {
      const uint32_t e = t->Insert(Key(k), &inserted);
      if (ref.count(k)) {
        ASSERT_EQ(e, ref[k]);
        ASSERT_FALSE(inserted);
      } else if (ref.size() == kCap) {
        ASSERT_EQ(e, PtpUnicastTable::kNone);
      } else {
        ASSERT_NE(e, PtpUnicastTable::kNone);
        ASSERT_TRUE(inserted);
        ref[k] = e;
      }
    } else if (ref.count(k)) {
      t->Erase(ref[k]);
      ref.erase(k);
    }
    if (step % 997 == 0) {
      for (uint32_t q = 0; q < 150; ++q) {
        const uint32_t e = t->Find(Key(q));
        if (ref.count(q)) {
          ASSERT_EQ(e, ref[q]) << "step " << step << " key " << q;
        } else {
          ASSERT_EQ(e, PtpUnicastTable::kNone) << "step " << step;
        }
      }
    }
    ASSERT_EQ(t->size(), ref.size());
  }
}

TEST(PtpUnicastTable, MillionSubscribersFitAndProbeShort) {
  auto t = *PtpUnicastTable::Create(1'000'000, 99);
  bool inserted;
  for (uint32_t i = 0; i < 1'000'000; ++i) {
    ASSERT_NE(t->Insert(Key(i), &inserted), PtpUnicastTable::kNone);
  }
  EXPECT_EQ(t->size(), 1'000'000u);
  // Linear probing at load <= 1/2: runs stay short (expected max ~ a few
  // dozen for 1M keys).
  EXPECT_LT(t->max_probe(), 100u);
  for (uint32_t i = 0; i < 1'000'000; i += 9973) {
    EXPECT_NE(t->Find(Key(i)), PtpUnicastTable::kNone);
  }
  EXPECT_EQ(t->Find(Key(1'000'001)), PtpUnicastTable::kNone);
}

}  // namespace
}  // namespace ptp_unicast_table_test
}  // namespace zg::core
