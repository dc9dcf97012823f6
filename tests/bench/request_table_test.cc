// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/request_table.h"

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace zg::bench {
namespace request_table_test {
namespace {

constexpr uint64_t kTimeout = 1000;

std::unique_ptr<RequestTable> MakeTable(uint32_t clients, uint32_t depth) {
  auto t = RequestTable::Create(clients, depth, kTimeout);
  EXPECT_TRUE(t.ok()) << t.status();
  return std::move(t).value();
}

TEST(RequestTableTest, CreateRejectsBadShapes) {
  EXPECT_FALSE(RequestTable::Create(0, 4, kTimeout).ok());
  EXPECT_FALSE(RequestTable::Create(4, 0, kTimeout).ok());
  EXPECT_FALSE(RequestTable::Create(4, 3, kTimeout).ok());
  EXPECT_FALSE(RequestTable::Create(4, 1u << 17, kTimeout).ok());
  EXPECT_FALSE(RequestTable::Create(4, 4, 0).ok());
  auto too_big = RequestTable::Create(1u << 20, 8, kTimeout);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("fewer clients per lane"),
            std::string::npos)
      << too_big.status();
  EXPECT_TRUE(RequestTable::Create(1u << 12, 1u << 10, kTimeout).ok());
}

TEST(RequestTableTest, SequencesArePerClient) {
  auto t = MakeTable(3, 4);
  EXPECT_EQ(t->NextSequence(0), 0u);
  EXPECT_EQ(t->NextSequence(0), 1u);
  EXPECT_EQ(t->NextSequence(2), 0u);
  EXPECT_EQ(t->NextSequence(0), 2u);
  EXPECT_EQ(t->depth(), 4u);
  EXPECT_EQ(t->clients(), 3u);
}

TEST(RequestTableTest, FirstReplyThenDuplicates) {
  auto t = MakeTable(2, 4);
  EXPECT_FALSE(t->OnSent(1, 7, 0xABCD, 100));
  uint64_t key = 0;
  ASSERT_TRUE(t->KeyOf(1, 7, &key));
  EXPECT_EQ(key, 0xABCDu);
  EXPECT_EQ(t->CountWaiting(), 1u);
  ReplyMatch m = t->OnReply(1, 7, 0xABCD, 600);
  EXPECT_EQ(m.outcome, MatchOutcome::kFirst);
  EXPECT_EQ(m.tx_tsc, 100u);
  EXPECT_EQ(t->CountWaiting(), 0u);
  EXPECT_EQ(t->OnReply(1, 7, 0xABCD, 700).outcome, MatchOutcome::kDuplicate);
  EXPECT_EQ(t->OnReply(1, 7, 0xABCD, 900000).outcome, MatchOutcome::kDuplicate);
  EXPECT_EQ(t->Finish(), 0u);  // answered: nothing lost
}

TEST(RequestTableTest, UnknownReplies) {
  auto t = MakeTable(2, 4);
  t->OnSent(0, 1, 42, 100);
  // Wrong key (stale or forged origin), never-sent sequence, other client,
  // client out of range.
  EXPECT_EQ(t->OnReply(0, 1, 43, 200).outcome, MatchOutcome::kUnknown);
  EXPECT_EQ(t->OnReply(0, 2, 42, 200).outcome, MatchOutcome::kUnknown);
  EXPECT_EQ(t->OnReply(1, 1, 42, 200).outcome, MatchOutcome::kUnknown);
  EXPECT_EQ(t->OnReply(2, 1, 42, 200).outcome, MatchOutcome::kUnknown);
  EXPECT_EQ(t->OnReply(0xFFFFFFFF, 1, 42, 200).outcome, MatchOutcome::kUnknown);
  uint64_t key;
  EXPECT_FALSE(t->KeyOf(2, 1, &key));
  EXPECT_FALSE(t->KeyOf(1, 1, &key));
  // None of them touched the real request.
  EXPECT_EQ(t->OnReply(0, 1, 42, 300).outcome, MatchOutcome::kFirst);
}

TEST(RequestTableTest, LateReplyAfterTimeout) {
  auto t = MakeTable(1, 2);
  t->OnSent(0, 0, 5, 1000);
  t->OnSent(0, 1, 6, 1000);
  EXPECT_EQ(t->OnReply(0, 0, 5, 1000 + kTimeout).outcome,
            MatchOutcome::kFirst);  // exactly at the deadline: in time
  ReplyMatch late = t->OnReply(0, 1, 6, 1001 + kTimeout);
  EXPECT_EQ(late.outcome, MatchOutcome::kFirstLate);
  EXPECT_EQ(late.tx_tsc, 1000u);
  EXPECT_EQ(t->OnReply(0, 1, 6, 5000).outcome, MatchOutcome::kDuplicate);
  EXPECT_EQ(t->Finish(), 0u);  // late is not also lost
}

TEST(RequestTableTest, ReplyStampedBeforeSendIsInTime) {
  auto t = MakeTable(1, 1);
  t->OnSent(0, 0, 5, 1000);
  EXPECT_EQ(t->OnReply(0, 0, 5, 990).outcome, MatchOutcome::kFirst);
}

TEST(RequestTableTest, ReuseEvictsAWaitingRequestAsLost) {
  auto t = MakeTable(2, 4);
  for (uint32_t s = 0; s < 4; ++s) EXPECT_FALSE(t->OnSent(0, s, 100 + s, s));
  t->OnReply(0, 1, 101, 10);               // seq 1 answered
  EXPECT_TRUE(t->OnSent(0, 4, 104, 20));   // evicts seq 0, still waiting
  EXPECT_FALSE(t->OnSent(0, 5, 105, 21));  // seq 1 was answered
  EXPECT_FALSE(t->OnSent(1, 4, 204, 22));  // other client: its own row
  // The evicted request's reply now finds a different key: unknown.
  EXPECT_EQ(t->OnReply(0, 0, 100, 30).outcome, MatchOutcome::kUnknown);
  EXPECT_EQ(t->OnReply(0, 4, 104, 30).outcome, MatchOutcome::kFirst);
  // Waiting: seq 2, 3, 5 of client 0 and seq 4 of client 1.
  EXPECT_EQ(t->CountWaiting(), 4u);
  EXPECT_EQ(t->Finish(), 4u);
  EXPECT_EQ(t->CountWaiting(), 0u);
  EXPECT_EQ(t->OnReply(0, 4, 104, 40).outcome, MatchOutcome::kUnknown);
}

// A simulated server that drops, duplicates, delays and corrupts: every
// request must end in exactly one class, and the table's verdicts must agree
// with the simulation's own ground truth.
TEST(RequestTableTest, AccountingAgreesWithGroundTruth) {
  constexpr uint32_t kClients = 50;
  constexpr uint32_t kDepth = 8;
  auto t = MakeTable(kClients, kDepth);
  std::mt19937_64 rng(11);
  struct Pending {
    uint32_t client, seq;
    uint64_t key, tx, rx;
    bool duplicate;
    bool corrupt;
  };
  std::multimap<uint64_t, Pending> wire;  // by arrival time
  uint64_t now = 0;
  uint64_t sent = 0, lost_truth = 0;
  uint64_t first = 0, late = 0, dup = 0, unknown = 0, evicted = 0;
  std::map<std::pair<uint32_t, uint32_t>, int> replies_seen;
  auto deliver_until = [&](uint64_t until) {
    while (!wire.empty() && wire.begin()->first <= until) {
      const Pending p = wire.begin()->second;
      wire.erase(wire.begin());
      const uint64_t key = p.corrupt ? p.key ^ 1 : p.key;
      switch (t->OnReply(p.client, p.seq, key, p.rx).outcome) {
        case MatchOutcome::kFirst:
          ++first;
          EXPECT_FALSE(p.corrupt);
          EXPECT_LE(p.rx - p.tx, kTimeout);
          break;
        case MatchOutcome::kFirstLate:
          ++late;
          EXPECT_GT(p.rx - p.tx, kTimeout);
          break;
        case MatchOutcome::kDuplicate:
          ++dup;
          break;
        case MatchOutcome::kUnknown:
          ++unknown;
          break;
      }
    }
  };
  for (int i = 0; i < 200'000; ++i) {
    now += 1 + rng() % 20;
    deliver_until(now);
    const uint32_t c = static_cast<uint32_t>(rng() % kClients);
    const uint32_t seq = t->NextSequence(c);
    const uint64_t key = (uint64_t{c} << 32) | seq;
    evicted += t->OnSent(c, seq, key, now);
    ++sent;
    const uint64_t r = rng() % 1000;
    if (r < 20) {  // 2 % dropped
      ++lost_truth;
      continue;
    }
    // Mostly fast; 1 % slow enough to be late.
    const uint64_t delay = r < 30 ? kTimeout + 1 + rng() % 500 : rng() % 300;
    const bool corrupt = r >= 30 && r < 35;  // 0.5 %: bit flip in the key
    wire.insert({now + delay, {c, seq, key, now, now + delay, false, corrupt}});
    if (r >= 35 && r < 45) {  // 1 %: the server answers twice
      wire.insert(
          {now + delay + 5, {c, seq, key, now, now + delay + 5, true, false}});
    }
  }
  deliver_until(UINT64_MAX);
  const uint64_t finished = t->Finish();
  // Every request ended exactly once.
  EXPECT_EQ(sent, first + late + evicted + finished);
  // Nothing answered that was dropped or corrupted; every drop is lost.
  EXPECT_GE(evicted + finished, lost_truth);
  EXPECT_GT(dup, 0u);
  EXPECT_GT(late, 0u);
  EXPECT_GT(unknown, 0u);
  EXPECT_GT(first, sent * 9 / 10);
}

TEST(NtpTagTest, TagLivesInTheLowFractionBits) {
  const core::NtpTimestamp t{0xE9000000u, 0x12345678u};
  for (int bits : {0, 1, 4, 10, 16}) {
    for (uint32_t seq : {0u, 1u, 5u, 0xFFFFu, 0x12345u}) {
      const core::NtpTimestamp tagged = TagNtpTransmit(t, seq, bits);
      EXPECT_EQ(tagged.seconds, t.seconds);
      const uint32_t mask = bits == 0 ? 0 : (1u << bits) - 1;
      EXPECT_EQ(tagged.fraction & ~mask, t.fraction & ~mask);
      EXPECT_EQ(NtpTransmitTag(tagged, bits), seq & mask);
    }
  }
  EXPECT_EQ(TagNtpTransmit(t, 0xABCDEF01u, 32).fraction, 0xABCDEF01u);
}

}  // namespace
}  // namespace request_table_test
}  // namespace zg::bench
