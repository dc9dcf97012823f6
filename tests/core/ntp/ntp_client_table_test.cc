// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client_table.h"

#include <memory>

#include "gtest/gtest.h"

namespace zg::core {
namespace ntp_client_table_test {
namespace {

constexpr int64_t kS = kNanosPerSecond;
const TaiNs kT0{1'800'000'000 * kS};
const NtpClientKey kClient =
    NtpClientKey::V4(Ipv4Addr::FromOctets(10, 0, 0, 1));

std::unique_ptr<NtpClientTable> Table(NtpRateLimitConfig limit,
                                      bool kod = false,
                                      size_t capacity = 1024) {
  absl::StatusOr<std::unique_ptr<NtpClientTable>> t =
      NtpClientTable::Create({capacity, limit, kod, 42});
  EXPECT_TRUE(t.ok()) << t.status();
  return std::move(*t);
}

bool Answered(NtpRateVerdict v) {
  return v.decision == NtpRateDecision::kAnswer;
}

TEST(NtpClientTableTest, BurstThenOnePerInterval) {
  auto t = Table({3, 8, 4});
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(Answered(t->Check(kClient, kT0))) << i;
  }
  EXPECT_FALSE(Answered(t->Check(kClient, kT0 + kS)));
  EXPECT_FALSE(Answered(t->Check(kClient, kT0 + 7 * kS)));
  // 8 s after the burst: one token again, then none.
  EXPECT_TRUE(Answered(t->Check(kClient, kT0 + 8 * kS)));
  EXPECT_FALSE(Answered(t->Check(kClient, kT0 + 8 * kS + kS / 2)));
  // A client polling at exactly the interval is always answered.
  for (int i = 2; i < 20; ++i) {
    EXPECT_TRUE(Answered(t->Check(kClient, kT0 + i * 8 * kS))) << i;
  }
}

TEST(NtpClientTableTest, VerdictCarriesTheIntervalAsPoll) {
  auto t = Table({5, 1, 1}, /*kod=*/true);
  EXPECT_EQ(t->Check(kClient, kT0).min_poll_log2, 5);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(t->Check(kClient, kT0).min_poll_log2, 5);
  }
}

// Counts plain answers of `n` requests `gap_ns` apart.
int AnsweredOf(NtpClientTable& t, int n, int64_t gap_ns, TaiNs start = kT0) {
  int answered = 0;
  for (int i = 0; i < n; ++i) {
    answered += Answered(t.Check(kClient, start + i * gap_ns)) ? 1 : 0;
  }
  return answered;
}

TEST(NtpClientTableTest, NegativeIntervals) {
  // interval -2: 4 replies/s. At 4/s all answered, at 8/s about half.
  auto t = Table({-2, 1, 4});
  EXPECT_EQ(AnsweredOf(*t, 400, kS / 4), 400);
  t = Table({-2, 1, 4});
  // (a leaked answer empties the bucket: a few plain answers fewer)
  EXPECT_NEAR(AnsweredOf(*t, 800, kS / 8), 400, 20);
  // interval -6 (coarse: below chrony's 1/16 s resolution): 64/s.
  t = Table({-6, 1, 4});
  EXPECT_NEAR(AnsweredOf(*t, 6400, kS / 64), 6400, 8);
  t = Table({-6, 1, 4});
  EXPECT_NEAR(AnsweredOf(*t, 12800, kS / 128), 6400, 16);
}

TEST(NtpClientTableTest, LeakAnswersOneInTwoToTheLeak) {
  for (int leak = 1; leak <= 4; ++leak) {
    auto t = Table({6, 1, leak});
    const int n = 200'000;
    int plain = 0, leaked = 0;
    for (int i = 0; i < n; ++i) {
      const NtpRateDecision d = t->Check(kClient, kT0 + i * 1000).decision;
      plain += d == NtpRateDecision::kAnswer;
      leaked += d == NtpRateDecision::kAnswerLeak;
    }
    EXPECT_EQ(plain, 1) << "leak " << leak;
    const double expect = (n - 1) / double(1 << leak);
    // Binomial: 5 sigma is at most ~0.6% of n here.
    EXPECT_NEAR(leaked, expect, 5 * std::sqrt(expect)) << "leak " << leak;
    EXPECT_EQ(t->stats().answered_leak, uint64_t(leaked));
    EXPECT_EQ(t->stats().dropped, uint64_t(n - 1 - leaked));
  }
}

TEST(NtpClientTableTest, KissesAreLimitedPerClient) {
  // 1000 requests/s for 10 s past a 1/s bucket: KoD at most once a second.
  auto t = Table({0, 1, 4}, /*kod=*/true);
  int kisses = 0, replies = 0;
  for (int i = 0; i < 10'000; ++i) {
    const NtpRateDecision d = t->Check(kClient, kT0 + i * (kS / 1000)).decision;
    kisses += d == NtpRateDecision::kKiss;
    replies += d != NtpRateDecision::kDrop;
  }
  EXPECT_GE(kisses, 9);
  EXPECT_LE(kisses, 11);
  EXPECT_EQ(t->stats().kissed, uint64_t(kisses));
  // Answers (10) + leak (1/16 of the rest) + KoDs: far below one per request.
  EXPECT_LT(replies, 10'000 / 16 + 30 + 11 + 100);
  // interval 4: at most one KoD per 16 s.
  t = Table({4, 1, 4}, /*kod=*/true);
  kisses = 0;
  for (int i = 0; i < 3200; ++i) {
    kisses += t->Check(kClient, kT0 + i * (kS / 100)).decision ==
              NtpRateDecision::kKiss;
  }
  EXPECT_GE(kisses, 2);
  EXPECT_LE(kisses, 3);
}

TEST(NtpClientTableTest, NoKissWithoutKod) {
  auto t = Table({0, 1, 4}, /*kod=*/false);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_NE(t->Check(kClient, kT0 + i * 1000).decision,
              NtpRateDecision::kKiss);
  }
  EXPECT_EQ(t->stats().kissed, 0u);
}

TEST(NtpClientTableTest, AnswersClientsThatRetryFasterWhenDropped) {
  // A client that polls every 8 s while answered but retries 8 times a
  // second when not: dropping it raises its traffic, so it is answered
  // (chrony's anti-amplification rule).
  auto t = Table({4, 1, 4});
  TaiNs now = kT0;
  int sent = 0;
  for (int i = 0; i < 2000; ++i, ++sent) {
    const NtpRateDecision d = t->Check(kClient, now).decision;
    now = now + (d == NtpRateDecision::kDrop ? kS / 8 : 8 * kS);
  }
  EXPECT_GT(t->stats().answered_flood, 100u);
  EXPECT_LT(t->stats().dropped, t->stats().answered_flood);
}

TEST(NtpClientTableTest, FullBucketsEvictTheOldestAndCount) {
  auto t = Table({3, 1, 4}, false, /*capacity=*/64);
  EXPECT_EQ(t->capacity(), 64u);
  for (uint32_t i = 0; i < 1000; ++i) {
    t->Check(NtpClientKey::V4(Ipv4Addr{0x0a000000u + i}), kT0 + i * kS);
  }
  const NtpClientTableStats& s = t->stats();
  EXPECT_EQ(s.inserted, 1000u);
  EXPECT_LE(s.tracked, 64u);
  EXPECT_GE(s.tracked, 56u);
  EXPECT_EQ(s.tracked + s.evictions, 1000u);
  EXPECT_GE(t->memory_bytes(), 64 * NtpClientTable::kBytesPerClient);
  // What the kernel gave is its choice (THP may be off); never more.
  EXPECT_LE(t->huge_page_bytes(), t->memory_bytes());
}

TEST(NtpClientTableTest, EvictsTheLeastRecentlySeen) {
  // Capacity 4: one bucket, every client in it.
  auto t = Table({3, 1, 4}, false, /*capacity=*/4);
  auto key = [](uint32_t i) { return NtpClientKey::V4(Ipv4Addr{i}); };
  for (uint32_t i = 1; i <= 4; ++i) t->Check(key(i), kT0 + i * kS);
  t->Check(key(1), kT0 + 5 * kS);  // 2 is now the oldest
  t->Check(key(5), kT0 + 6 * kS);  // evicts 2
  EXPECT_EQ(t->stats().evictions, 1u);
  const uint64_t inserted = t->stats().inserted;
  t->Check(key(1), kT0 + 7 * kS);
  t->Check(key(3), kT0 + 7 * kS);
  EXPECT_EQ(t->stats().inserted, inserted) << "1 and 3 are still tracked";
  t->Check(key(2), kT0 + 8 * kS);
  EXPECT_EQ(t->stats().inserted, inserted + 1) << "2 was evicted";
}

TEST(NtpClientTableTest, Ipv4AndIpv6KeysAreDistinct) {
  auto t = Table({12, 1, 4}, false, /*capacity=*/4);
  Ipv6Addr mapped;
  mapped.b = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
  const NtpClientKey v6 = NtpClientKey::V6(mapped);
  EXPECT_TRUE(Answered(t->Check(kClient, kT0)));
  EXPECT_FALSE(Answered(t->Check(kClient, kT0)));
  EXPECT_TRUE(Answered(t->Check(v6, kT0))) << "a client of its own";
  EXPECT_FALSE(Answered(t->Check(v6, kT0)));
  Ipv6Addr other = mapped;
  other.b[0] = 0x20;
  EXPECT_TRUE(Answered(t->Check(NtpClientKey::V6(other), kT0)));
  EXPECT_EQ(t->stats().tracked, 3u);
}

// Steady polling at the interval and a bucket refill across a boundary.
void ExpectSteadyAcross(TaiNs boundary) {
  auto t = Table({-3, 1, 4});
  EXPECT_EQ(AnsweredOf(*t, 160, kS / 8, boundary - 10 * kS), 160);
  t = Table({3, 1, 4});
  EXPECT_TRUE(Answered(t->Check(kClient, boundary - 4 * kS)));
  EXPECT_FALSE(Answered(t->Check(kClient, boundary - kS)));
  EXPECT_FALSE(Answered(t->Check(kClient, boundary + 3 * kS)));
  EXPECT_TRUE(Answered(t->Check(kClient, boundary + 4 * kS)));
}

TEST(NtpClientTableTest, TimeHandlingAcrossEraAndWrapBoundaries) {
  // 2036-02-07T06:28:16Z: NTP era 0 -> 1 (TAI = UTC + 37 s).
  ExpectSteadyAcross(TaiNs{(2'085'978'496 + 37) * kS});
  // 2038-01-19T03:14:08: 2^31 s, where the table's 2^-4 s stamp wraps too.
  const TaiNs y2038{(int64_t{1} << 31) * kS};
  EXPECT_EQ(NtpClientTable::Stamp(y2038 - kS), 0xfffffff0u);
  EXPECT_EQ(NtpClientTable::Stamp(y2038), 0u);
  ExpectSteadyAcross(y2038);
  // The stamp's other wraps (every 2^28 s), and 2106 (2^32 s).
  ExpectSteadyAcross(TaiNs{(int64_t{7} << 28) * kS});
  ExpectSteadyAcross(TaiNs{(int64_t{1} << 32) * kS});
}

TEST(NtpClientTableTest, CapacityIsValidated) {
  EXPECT_FALSE(NtpClientTable::Create({0, {}, false, 0}).ok());
  EXPECT_FALSE(
      NtpClientTable::Create({NtpClientTable::kMaxCapacity + 1, {}, false, 0})
          .ok());
}

}  // namespace
}  // namespace ntp_client_table_test
}  // namespace zg::core
