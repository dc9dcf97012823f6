// SPDX-License-Identifier: Apache-2.0
// The per-client NTP records (core/ntp/ntp_client_records.h): exact counts for
// known request sequences, drops by reason, KoD, auth kinds and key ids,
// interleave, first/last seen and the interval, eviction, and a reader on
// another thread while the writer inserts and evicts (also run under TSan).
#include "core/ntp/ntp_client_records.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace {

constexpr int64_t kS = kNanosPerSecond;
constexpr int64_t kStamp = kS / 16;  // the last-seen resolution
const TaiNs kT0{1'800'000'000 * kS};
const NtpClientKey kA = NtpClientKey::V4(Ipv4Addr::FromOctets(10, 0, 0, 1));
const NtpClientKey kB = NtpClientKey::V4(Ipv4Addr::FromOctets(10, 0, 0, 2));

std::unique_ptr<NtpClientRecords> Records(size_t capacity = 1024) {
  absl::StatusOr<std::unique_ptr<NtpClientRecords>> r =
      NtpClientRecords::Create({capacity, 42});
  EXPECT_TRUE(r.ok()) << r.status();
  return std::move(*r);
}

// Flushes the writer's new clients (as the worker does after each burst)
// and reads `k`.
NtpClientRecord Of(NtpClientRecords& r, const NtpClientKey& k) {
  r.Flush();
  std::optional<NtpClientRecord> rec = r.Find(k);
  EXPECT_TRUE(rec.has_value());
  return rec.value_or(NtpClientRecord{});
}

TEST(NtpClientRecordsTest, CountsAKnownSequenceExactly) {
  auto r = Records();
  for (int i = 0; i < 5; ++i) {
    r->Request(kA, kT0 + i * 16 * kS, NtpClientAuth::kNone);
  }
  r->Request(kB, kT0 + 3 * kS, NtpClientAuth::kNone);
  const NtpClientRecord a = Of(*r, kA);
  EXPECT_EQ(a.key, kA);
  EXPECT_EQ(a.address().ToString(), "10.0.0.1");
  EXPECT_EQ(a.requests, 5u);
  EXPECT_EQ(a.drops(), 0u);
  EXPECT_EQ(a.kod, 0u);
  EXPECT_EQ(a.first_seen, kT0);
  EXPECT_EQ(a.last_seen, kT0 + 64 * kS);
  ASSERT_TRUE(a.MeanIntervalSeconds().has_value());
  EXPECT_DOUBLE_EQ(*a.MeanIntervalSeconds(), 16.0);
  EXPECT_EQ(a.auth, NtpClientAuth::kNone);
  EXPECT_FALSE(a.interleaved);
  const NtpClientRecord b = Of(*r, kB);
  EXPECT_EQ(b.requests, 1u);
  EXPECT_FALSE(b.MeanIntervalSeconds().has_value());
  EXPECT_EQ(r->stats().tracked, 2u);
  EXPECT_EQ(r->stats().inserted, 2u);
  EXPECT_FALSE(r->Find(NtpClientKey::V4(Ipv4Addr::FromOctets(10, 0, 0, 3))));
}

TEST(NtpClientRecordsTest, ANewClientIsBusyUntilFlush) {
  auto r = Records();
  r->Request(kA, kT0, NtpClientAuth::kNone);
  r->Request(kA, kT0 + kS, NtpClientAuth::kNone);
  NtpClientRecord rec;
  size_t slot = 0;
  while (!r->Used(slot)) ++slot;
  EXPECT_EQ(r->Read(slot, &rec), NtpClientRecords::ReadResult::kBusy);
  EXPECT_EQ(r->ForEach([](const NtpClientRecord&) {}), 1u) << "busy";
  r->Flush();
  ASSERT_EQ(r->Read(slot, &rec), NtpClientRecords::ReadResult::kOk);
  EXPECT_EQ(rec.requests, 2u);
  EXPECT_EQ(rec.first_seen, kT0);
  // A drop completes its client's insert at once.
  const uint32_t b = r->Request(kB, kT0, NtpClientAuth::kNone);
  r->Drop(b, NtpClientDrop::kAcl);
  ASSERT_EQ(r->Read(b, &rec), NtpClientRecords::ReadResult::kOk);
  EXPECT_EQ(rec.drops_acl, 1u);
  EXPECT_EQ(rec.key, kB);
}

TEST(NtpClientRecordsTest, AClientReplacedBeforeFlushLeavesNoTrace) {
  auto r = Records(/*capacity=*/4);   // one bucket
  for (uint32_t i = 0; i < 9; ++i) {  // 5 replaced before any Flush
    r->Request(NtpClientKey::V4(Ipv4Addr{0x0a000001u + i}), kT0 + i * kS,
               NtpClientAuth::kNone);
  }
  r->Flush();
  std::vector<uint32_t> seen;
  EXPECT_EQ(r->ForEach([&](const NtpClientRecord& c) {
    seen.push_back(static_cast<uint32_t>(c.key.lo));
    EXPECT_EQ(c.first_seen, kT0 + (c.key.lo - 0x0a000001u) * kS);
  }),
            0u);
  EXPECT_THAT(seen, ::testing::UnorderedElementsAre(0x0a000006u, 0x0a000007u,
                                                    0x0a000008u, 0x0a000009u));
  EXPECT_EQ(r->stats().evictions, 5u);
}

TEST(NtpClientRecordsTest, DropsByReasonAndKod) {
  auto r = Records();
  auto req = [&] { return r->Request(kA, kT0, NtpClientAuth::kNone); };
  r->Drop(req(), NtpClientDrop::kRateLimit);
  r->Drop(req(), NtpClientDrop::kRateLimit);
  r->Drop(req(), NtpClientDrop::kAcl);
  for (int i = 0; i < 3; ++i) r->Drop(req(), NtpClientDrop::kAuth);
  r->Kiss(req());
  r->Kiss(req());
  req();  // answered
  const NtpClientRecord a = Of(*r, kA);
  EXPECT_EQ(a.requests, 9u);
  EXPECT_EQ(a.drops_rate_limit, 2u);
  EXPECT_EQ(a.drops_acl, 1u);
  EXPECT_EQ(a.drops_auth, 3u);
  EXPECT_EQ(a.drops(), 6u);
  EXPECT_EQ(a.kod, 2u);
}

TEST(NtpClientRecordsTest, AuthKindAndKeyIdOfTheLatestRequest) {
  auto r = Records();
  r->Answered(r->Request(kA, kT0, NtpClientAuth::kNone), 0, false);
  EXPECT_EQ(Of(*r, kA).auth, NtpClientAuth::kNone);
  r->Answered(r->Request(kA, kT0, NtpClientAuth::kSymmetricKey), 7, false);
  NtpClientRecord a = Of(*r, kA);
  EXPECT_EQ(a.auth, NtpClientAuth::kSymmetricKey);
  EXPECT_EQ(a.key_id, 7u);
  r->Answered(r->Request(kA, kT0, NtpClientAuth::kSymmetricKey), 9, false);
  EXPECT_EQ(Of(*r, kA).key_id, 9u);
  r->Answered(r->Request(kA, kT0, NtpClientAuth::kNts), 0, false);
  a = Of(*r, kA);
  EXPECT_EQ(a.auth, NtpClientAuth::kNts);
  EXPECT_EQ(a.requests, 4u);
  // A failed MAC keeps the kind (what the client tried) and counts the drop.
  r->Drop(r->Request(kA, kT0, NtpClientAuth::kSymmetricKey),
          NtpClientDrop::kAuth);
  a = Of(*r, kA);
  EXPECT_EQ(a.auth, NtpClientAuth::kSymmetricKey);
  EXPECT_EQ(a.drops_auth, 1u);
  EXPECT_STREQ(NtpClientAuthName(NtpClientAuth::kNts), "nts");
}

TEST(NtpClientRecordsTest, InterleavedOrBasicOfTheLatestReply) {
  auto r = Records();
  r->Answered(r->Request(kA, kT0, NtpClientAuth::kNone), 0, false);
  EXPECT_FALSE(Of(*r, kA).interleaved);
  r->Answered(r->Request(kA, kT0 + kS, NtpClientAuth::kNone), 0, true);
  EXPECT_TRUE(Of(*r, kA).interleaved);
  r->Answered(r->Request(kA, kT0 + 2 * kS, NtpClientAuth::kNone), 0, false);
  EXPECT_FALSE(Of(*r, kA).interleaved);
  EXPECT_EQ(Of(*r, kA).requests, 3u);
}

TEST(NtpClientRecordsTest, Ipv4AndIpv6AreDifferentClients) {
  auto r = Records();
  Ipv6Addr mapped{};
  mapped.b[10] = mapped.b[11] = 0xff;
  mapped.b[12] = 10;
  mapped.b[15] = 1;
  const NtpClientKey v6 = NtpClientKey::V6(mapped);
  r->Request(kA, kT0, NtpClientAuth::kNone);
  r->Request(v6, kT0, NtpClientAuth::kNone);
  r->Request(v6, kT0, NtpClientAuth::kNone);
  EXPECT_EQ(Of(*r, kA).requests, 1u);
  const NtpClientRecord b = Of(*r, v6);
  EXPECT_EQ(b.requests, 2u);
  EXPECT_TRUE(b.key.ipv6);
  EXPECT_EQ(b.address().ToString(), "::ffff:10.0.0.1");
}

TEST(NtpClientRecordsTest, LastSeenToASixteenthOfASecond) {
  auto r = Records();
  const TaiNs first = kT0 + 100'000'000;  // 0.1 s: within the second 1/16
  r->Request(kA, first, NtpClientAuth::kNone);
  NtpClientRecord a = Of(*r, kA);
  EXPECT_EQ(a.last_seen, first) << "never before first_seen";
  r->Request(kA, kT0 + 10 * kS + 70'000'000, NtpClientAuth::kNone);
  a = Of(*r, kA);
  EXPECT_EQ(a.last_seen, kT0 + 10 * kS + kStamp);
  EXPECT_EQ(a.first_seen, first);
}

TEST(NtpClientRecordsTest, LastSeenAcrossTheStampWrap) {
  auto r = Records();
  // The 32-bit 1/16 s stamp wraps at 2^32 / 16 s: first seen just before.
  const TaiNs wrap{(int64_t{1} << 32) * kStamp};
  const TaiNs first = wrap - 2 * kS;
  r->Request(kA, first, NtpClientAuth::kNone);
  r->Request(kA, wrap + 3 * kS, NtpClientAuth::kNone);
  const NtpClientRecord a = Of(*r, kA);
  EXPECT_EQ(a.first_seen, first);
  EXPECT_EQ(a.last_seen, wrap + 3 * kS);
  EXPECT_DOUBLE_EQ(*a.MeanIntervalSeconds(), 5.0);
}

TEST(NtpClientRecordsTest, AFullBucketEvictsItsLeastRecentlySeen) {
  auto r = Records(/*capacity=*/4);  // one bucket
  ASSERT_EQ(r->capacity(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    r->Request(NtpClientKey::V4(Ipv4Addr{0x0a000001u + i}), kT0 + i * kS,
               NtpClientAuth::kNone);
  }
  r->Request(kA, kT0 + 10 * kS, NtpClientAuth::kNone);  // 10.0.0.1 again
  const NtpClientKey fifth = NtpClientKey::V4(Ipv4Addr{0x0a000009u});
  r->Drop(r->Request(fifth, kT0 + 11 * kS, NtpClientAuth::kNone),
          NtpClientDrop::kAcl);
  EXPECT_EQ(r->stats().tracked, 4u);
  EXPECT_EQ(r->stats().evictions, 1u);
  EXPECT_EQ(r->stats().inserted, 5u);
  // 10.0.0.2 was seen longest ago; 10.0.0.1 was refreshed.
  EXPECT_FALSE(r->Find(kB).has_value());
  EXPECT_EQ(Of(*r, kA).requests, 2u);
  const NtpClientRecord f = Of(*r, fifth);
  EXPECT_EQ(f.requests, 1u);
  EXPECT_EQ(f.drops_acl, 1u) << "a new client starts from zero";
  EXPECT_EQ(f.first_seen, kT0 + 11 * kS);
  size_t listed = 0;
  r->Flush();
  EXPECT_EQ(r->ForEach([&](const NtpClientRecord&) { ++listed; }), 0u);
  EXPECT_EQ(listed, 4u);
}

TEST(NtpClientRecordsTest, CapacityIsChecked) {
  EXPECT_FALSE(NtpClientRecords::Create({0}).ok());
  EXPECT_FALSE(
      NtpClientRecords::Create({NtpClientRecords::kMaxCapacity + 1}).ok());
  auto r = Records(1000);
  EXPECT_EQ(r->capacity(), 1000u);
  EXPECT_GE(r->memory_bytes(), 1000 * NtpClientRecords::kBytesPerClient);
}

// A reader on another thread while the writer inserts and evicts in a
// small table: a record never mixes two clients (the key id a client
// sends is its own address), and requests >= drops + KoD.
TEST(NtpClientRecordsTest, ReaderOnAnotherThreadSeesWholeClients) {
  auto r = Records(/*capacity=*/64);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    TaiNs t = kT0;
    for (uint32_t i = 0; i < 200'000; ++i) {
      const uint32_t addr = 0x0a000000u + (i * 7919u) % 1000u;
      t = t + kStamp;
      const uint32_t slot = r->Request(NtpClientKey::V4(Ipv4Addr{addr}), t,
                                       NtpClientAuth::kSymmetricKey);
      if (addr & 1) {
        r->Drop(slot, NtpClientDrop::kRateLimit);
      } else {
        r->Kiss(slot);
        r->Answered(slot, addr, false);
      }
      if (i % 32 == 31) r->Flush();  // a burst
    }
    done.store(true);
  });
  uint64_t seen = 0;
  while (!done.load()) {
    r->ForEach([&](const NtpClientRecord& c) {
      ++seen;
      const uint32_t addr = static_cast<uint32_t>(c.key.lo);
      EXPECT_TRUE(c.key_id == 0 || c.key_id == addr) << c.key_id;
      EXPECT_GE(c.requests, c.drops() + c.kod);
      EXPECT_EQ(addr & 1 ? c.kod : c.drops(), 0u);
      EXPECT_GE(c.last_seen, c.first_seen);
    });
  }
  writer.join();
  EXPECT_GT(seen, 0u);
  EXPECT_EQ(r->stats().inserted - r->stats().evictions, r->stats().tracked);
}

}  // namespace
}  // namespace zg::core
