// SPDX-License-Identifier: Apache-2.0
// Tests of the interleaved-mode table (core/ntp/ntp_interleave.h): hits,
// replay, unknown and lost-TX keys, duplicate keys, eviction when the table
// is full, unique keys for one burst's shared stamp, the era 2036 rollover,
// and which requests look interleaved.
#include "core/ntp/ntp_interleave.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ntp_interleave_test {
namespace {

using Table = NtpInterleaveTable;

NtpTimestamp Ts(uint64_t v) { return NtpTimestamp::FromU64(v); }

Table Make(uint32_t slots = 1024) {
  absl::StatusOr<Table> t = Table::Create(slots);
  EXPECT_TRUE(t.ok()) << t.status();
  return std::move(*t);
}

// Saves `rx` (already tagged and unique) with transmit time `tx`.
void SaveWithTx(Table& t, NtpTimestamp rx, NtpTimestamp tx) {
  const Table::Saved s = t.Save(rx);
  ASSERT_NE(s.slot, kNtpInterleaveNoSlot);
  t.SetTx(s.slot, tx);
}

TEST(NtpInterleaveTableTest, CreateChecksAndRoundsTheSize) {
  EXPECT_FALSE(Table::Create(kNtpInterleaveMinSlots - 1).ok());
  EXPECT_FALSE(Table::Create(kNtpInterleaveMaxSlots + 1).ok());
  EXPECT_EQ(Make(100).slots(), 128u);
  EXPECT_EQ(Make(kNtpInterleaveMinSlots).slots(), kNtpInterleaveMinSlots);
}

TEST(NtpInterleaveTableTest, AnEntryAnswersOneInterleavedRequest) {
  Table t = Make();
  const NtpTimestamp rx = Ts(0xe8fe6f80'10000001);
  const NtpTimestamp tx = Ts(0xe8fe6f80'10004001);  // low bit cleared on set
  SaveWithTx(t, rx, tx);
  const Table::Taken first = t.Take(rx);
  EXPECT_EQ(first.result, Table::TakeResult::kHit);
  EXPECT_EQ(first.tx, TagNtpTx(tx));
  EXPECT_EQ(t.Take(rx).result, Table::TakeResult::kReplay)
      << "a replayed request gets a basic reply";
  EXPECT_EQ(t.Take(Ts(0xe8fe6f80'20000001)).result,
            Table::TakeResult::kUnknown);
}

TEST(NtpInterleaveTableTest, TransmitTimeBeforeOrFarFromRx) {
  Table t = Make();
  // TX a few ns before RX (NIC model for T2, TSC model for T3): kept.
  const NtpTimestamp rx = Ts(0xe8fe6f80'10000001);
  SaveWithTx(t, rx, Ts(0xe8fe6f80'0fffff00));
  EXPECT_EQ(t.Take(rx).tx, Ts(0xe8fe6f80'0fffff00));
  // More than 0.5 s away: not kept.
  const NtpTimestamp rx2 = Ts(0xe8fe6f90'00000001);
  SaveWithTx(t, rx2, Ts(0xe8fe6f91'00000000));
  EXPECT_EQ(t.Take(rx2).result, Table::TakeResult::kNoTx);
}

TEST(NtpInterleaveTableTest, NotSentOrStillPendingHasNoTx) {
  Table t = Make();
  const NtpTimestamp rx = Ts(0xe8fe6f80'10000001);
  const Table::Saved s = t.Save(rx);
  t.ClearTx(s.slot);
  t.SetTx(s.slot, Ts(0xe8fe6f80'10001000));  // too late: stays kNoTx
  EXPECT_EQ(t.Take(rx).result, Table::TakeResult::kNoTx);
  // Asked for before its reply left (never in practice): no answer, and the
  // slot stays that reply's until its TX time comes, which then answers
  // nothing either.
  const NtpTimestamp rx2 = Ts(0xe8fe6f80'20000001);
  const Table::Saved s2 = t.Save(rx2);
  EXPECT_EQ(t.Take(rx2).result, Table::TakeResult::kNoTx);
  t.SetTx(s2.slot, Ts(0xe8fe6f80'20001000));
  EXPECT_EQ(t.Take(rx2).result, Table::TakeResult::kReplay);
  // An exact TX time set in FinaliseTx, then tx_burst did not take it.
  const NtpTimestamp rx3 = Ts(0xe8fe6f80'30000001);
  const Table::Saved s3 = t.Save(rx3);
  t.SetTx(s3.slot, Ts(0xe8fe6f80'30001000));
  t.ClearTx(s3.slot);
  EXPECT_EQ(t.Take(rx3).result, Table::TakeResult::kNoTx);
}

TEST(NtpInterleaveTableTest, ADuplicateKeyDisablesBoth) {
  Table t = Make();
  const NtpTimestamp rx = Ts(0xe8fe6f80'10000001);
  SaveWithTx(t, rx, Ts(0xe8fe6f80'10001000));
  EXPECT_EQ(t.Save(rx).result, Table::SaveResult::kDuplicate);
  EXPECT_EQ(t.Take(rx).result, Table::TakeResult::kReplay);
}

TEST(NtpInterleaveTableTest, UniqueRxSpreadsOneBurstsStamp) {
  Table t = Make();
  const NtpTimestamp stamp = Ts(0xe8fe6f80'10000000);
  std::vector<uint64_t> keys;
  for (int i = 0; i < 32; ++i) keys.push_back(t.UniqueRx(stamp).ToU64());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i], stamp.ToU64() + 1 + 2 * i) << i;  // tagged, 0.47 ns
  }
  // A later stamp is kept as it is; one far behind (another queue's
  // older frame) too.
  EXPECT_EQ(t.UniqueRx(Ts(0xe8fe6f80'20000000)), Ts(0xe8fe6f80'20000001));
  EXPECT_EQ(t.UniqueRx(Ts(0xe8fe6f80'10000000)), Ts(0xe8fe6f80'10000001));
  EXPECT_EQ(t.UniqueRx(Ts(0xe8fe6f80'20000000)), Ts(0xe8fe6f80'20000003))
      << "the newest key stays the reference";
}

TEST(NtpInterleaveTableTest, Era2036RolloverIsJustTheNextKey) {
  Table t = Make();
  // The last fraction of era 0 and the first of era 1.
  const NtpTimestamp before = t.UniqueRx(Ts(0xffffffff'fffffff0));
  const NtpTimestamp after = t.UniqueRx(Ts(0x00000000'00000010));
  EXPECT_EQ(after, Ts(0x00000000'00000011));
  // A burst sharing the last stamp of era 0 wraps into era 1.
  t = Make();
  t.UniqueRx(Ts(0xffffffff'fffffffe));  // 0xffffffffffffffff
  EXPECT_EQ(t.UniqueRx(Ts(0xffffffff'fffffffe)), Ts(0x00000000'00000001));
  // Transmit times across the rollover.
  SaveWithTx(t, before, Ts(0x00000000'00001000));
  const Table::Taken k = t.Take(before);
  EXPECT_EQ(k.result, Table::TakeResult::kHit);
  EXPECT_EQ(k.tx, Ts(0x00000000'00001000));
  SaveWithTx(t, after, Ts(0xffffffff'ffff0000));  // 1 us before, in era 0
  EXPECT_EQ(t.Take(after).tx, Ts(0xffffffff'ffff0000));
}

TEST(NtpInterleaveTableTest, AFullTableEvictsTheOldestAndKeepsWorking) {
  Table t = Make(kNtpInterleaveMinSlots);
  // 16 poll rounds of 4x the table's size: every bucket wraps many times.
  const uint64_t base = 0xe8fe6f80'00000001;
  const uint64_t n = 4 * t.slots();
  int evicting = 0, busy = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const NtpTimestamp rx = Ts(base + i * 0x1000'0000);  // 1/16 s apart
    const Table::Saved s = t.Save(rx);
    evicting += s.result == Table::SaveResult::kSavedEvicting;
    busy += s.result == Table::SaveResult::kBusy;
    if (s.slot != kNtpInterleaveNoSlot) t.SetTx(s.slot, Ts(rx.ToU64() + 64));
  }
  EXPECT_EQ(busy, 0);
  EXPECT_GE(evicting, static_cast<int>(n - 2 * t.slots()));
  // The newest keys answer, with their own TX time; the oldest are gone.
  int hits = 0;
  for (uint64_t i = n - t.slots() / 4; i < n; ++i) {
    const Table::Taken k = t.Take(Ts(base + i * 0x1000'0000));
    if (k.result == Table::TakeResult::kHit) {
      ++hits;
      EXPECT_EQ(k.tx, TagNtpTx(Ts(base + i * 0x1000'0000 + 64)));
    }
  }
  EXPECT_GE(hits, static_cast<int>(t.slots() / 4) * 3 / 4);
  EXPECT_EQ(t.Take(Ts(base)).result, Table::TakeResult::kUnknown);
}

TEST(NtpInterleaveTableTest, PendingEntriesAreNotEvictedUntilStale) {
  Table t = Make(kNtpInterleaveMinSlots);
  // Fill with pending keys of one instant: each bucket fills up, then busy.
  const uint64_t base = 0xe8fe6f80'00000001;
  int busy = 0;
  std::vector<Table::Saved> saved;
  for (uint64_t i = 0; i < 4 * t.slots(); ++i) {
    const Table::Saved s = t.Save(Ts(base + 2 * i));
    busy += s.result == Table::SaveResult::kBusy;
    EXPECT_NE(s.result, Table::SaveResult::kSavedEvicting);
  }
  EXPECT_GE(busy, static_cast<int>(2 * t.slots()));
  // Two seconds later, they are stale and make room.
  int evicting = 0;
  for (uint64_t i = 0; i < 4 * t.slots(); ++i) {
    const Table::Saved s = t.Save(Ts(base + (uint64_t{2} << 32) + 2 * i));
    evicting += s.result == Table::SaveResult::kSavedEvicting;
  }
  EXPECT_GE(evicting, static_cast<int>(t.slots() / 2));
}

std::array<uint8_t, kNtpHeaderSize> Request(uint64_t origin, uint64_t receive,
                                            uint64_t transmit,
                                            uint8_t version = 4) {
  std::array<uint8_t, kNtpHeaderSize> p = {};
  p[0] = NtpLiVnMode(NtpLeapIndicator::kNoWarning, version, NtpMode::kClient);
  StoreNtpTimestamp(p.data() + kNtpOffsetOriginTime, Ts(origin));
  StoreNtpTimestamp(p.data() + kNtpOffsetReceiveTime, Ts(receive));
  StoreNtpTimestamp(p.data() + kNtpOffsetTransmitTime, Ts(transmit));
  return p;
}

TEST(NtpInterleavedLookupTest, OnlyTaggedOriginsOfV4RequestsLookInterleaved) {
  auto looks = [](const std::array<uint8_t, kNtpHeaderSize>& p) {
    const NtpRequestCheck c = ValidateNtpRequest(p.data(), kNtpHeaderSize);
    EXPECT_EQ(c.drop, NtpDrop::kNone);
    return NtpInterleavedLookup(p.data(), c);
  };
  const NtpInterleavedRequest x = looks(Request(0x11'00000003, 0x22, 0x33));
  EXPECT_TRUE(x.looks_interleaved);
  EXPECT_EQ(x.origin, Ts(0x11'00000003));
  EXPECT_EQ(x.receive, Ts(0x22));
  // chronyd's first request (origin 0), ntpd's basic (origin = our T3,
  // bit cleared), receive == transmit, NTPv3.
  EXPECT_FALSE(looks(Request(0, 0, 0x33)).looks_interleaved);
  EXPECT_FALSE(looks(Request(0x11'00000002, 0x22, 0x33)).looks_interleaved);
  EXPECT_FALSE(looks(Request(0x11'00000003, 0x33, 0x33)).looks_interleaved);
  EXPECT_FALSE(looks(Request(0x11'00000003, 0x22, 0x33, 3)).looks_interleaved);
}

}  // namespace
}  // namespace ntp_interleave_test
}  // namespace zg::core
