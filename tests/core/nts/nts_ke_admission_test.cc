// SPDX-License-Identifier: Apache-2.0
// core/nts/nts_ke_admission.h: chrony's ntsratelimit per source (IPv4
// address, IPv6 /64), the fair sharing of the slots when all are taken, the
// bounded source table and the per-source refusal report.
#include "core/nts/nts_ke_admission.h"

#include "gtest/gtest.h"

namespace zg::core {
namespace nts_ke_admission_test {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kT0 = 5000 * kS;  // a monotonic clock's reading

NtsKeSource V4(uint8_t last) {
  return NtsKeSource::V4(Ipv4Addr::FromOctets(192, 0, 2, last));
}
NtsKeSource V6(uint8_t subnet, uint8_t host) {
  Ipv6Addr a;
  a.b = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, subnet, 0, 0, 0, 0, 0, 0, 0, host};
  return NtsKeSource::V6(a);
}

NtsKeAdmission::Config NoRateLimit(uint32_t slots) {
  NtsKeAdmission::Config c;
  c.rate_limit = false;
  c.max_connections = slots;
  return c;
}

TEST(NtsKeAdmissionTest, ChronysNtsRateLimitBurstIntervalAndLeak) {
  NtsKeAdmission a({});  // interval 6 (64 s), burst 8, leak 2
  const NtsKeSource s = V4(7);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(a.Admit(s, kT0).refusal, NtsKeRefusal::kNone) << i;
  }
  // Past the bucket: about a quarter leak through (chrony's leak 2).
  int leaked = 0;
  for (int i = 0; i < 4000; ++i) {
    leaked += a.Admit(s, kT0).refusal == NtsKeRefusal::kNone;
  }
  EXPECT_GT(leaked, 800);
  EXPECT_LT(leaked, 1200);
  // A leak empties the bucket; 64 s later there is one token again.
  NtsKeAdmission b({});
  for (int i = 0; i < 8; ++i) b.Admit(s, kT0);
  EXPECT_EQ(b.Admit(s, kT0 + 64 * kS).refusal, NtsKeRefusal::kNone);
  // Another source has its own bucket.
  EXPECT_EQ(a.Admit(V4(8), kT0).refusal, NtsKeRefusal::kNone);
}

TEST(NtsKeAdmissionTest, OneConnectionPer2ToTheIntervalSeconds) {
  NtsKeAdmission::Config c;
  c.rate = {0, 1, 4};  // 1/s, burst 1, leak 1 in 16
  NtsKeAdmission a(c);
  const NtsKeSource s = V4(9);
  int admitted = 0;
  // 10 connections a second for 100 s: at most one a second by the
  // bucket, and 1 in 16 of the others leak (each leak empties the bucket,
  // so the next token comes a little later, as in chrony).
  for (int i = 0; i < 1000; ++i) {
    admitted += a.Admit(s, kT0 + i * kS / 10).refusal == NtsKeRefusal::kNone;
  }
  EXPECT_GT(admitted, 100);
  EXPECT_LT(admitted, 100 + 900 / 16 * 2);
}

TEST(NtsKeAdmissionTest, AnIpv6SourceIsItsSlash64) {
  NtsKeAdmission::Config c;
  c.rate = {6, 2, 4};
  NtsKeAdmission a(c);
  EXPECT_EQ(V6(1, 1), V6(1, 200));
  EXPECT_NE(V6(1, 1), V6(2, 1));
  EXPECT_EQ(V6(3, 4).ToString(), "2001:db8:0:3::/64");
  EXPECT_EQ(V4(5).ToString(), "192.0.2.5");
  EXPECT_EQ(a.Admit(V6(1, 1), kT0).refusal, NtsKeRefusal::kNone);
  EXPECT_EQ(a.Admit(V6(1, 2), kT0).refusal, NtsKeRefusal::kNone);
  int refused = 0;
  for (uint8_t h = 3; h < 100; ++h) {
    refused += a.Admit(V6(1, h), kT0).refusal == NtsKeRefusal::kRateLimited;
  }
  EXPECT_GT(refused, 80);  // the /64's bucket, whatever the host part
  EXPECT_EQ(a.Admit(V6(2, 1), kT0).refusal, NtsKeRefusal::kNone);
}

// A flooder holding every slot gives them up one by one to newcomers; a
// newcomer is refused only once it holds about as many as the heaviest.
TEST(NtsKeAdmissionTest, SlotsAreSharedFairlyWhenFull) {
  NtsKeAdmission a(NoRateLimit(8));
  const NtsKeSource flood = V4(66), b = V4(2), c = V4(3);
  for (int i = 0; i < 8; ++i) {
    const NtsKeAdmission::Decision d = a.Admit(flood, kT0);
    ASSERT_EQ(d.refusal, NtsKeRefusal::kNone);
    EXPECT_FALSE(d.cut);
    a.Opened(flood);
  }
  EXPECT_EQ(a.Admit(flood, kT0).refusal, NtsKeRefusal::kFull);
  auto admit_with_cut = [&](const NtsKeSource& s) {
    const NtsKeAdmission::Decision d = a.Admit(s, kT0);
    if (d.refusal != NtsKeRefusal::kNone || !d.cut) return false;
    a.Closed(d.cut_source);
    a.Opened(s);
    return d.cut_source == flood;
  };
  EXPECT_TRUE(admit_with_cut(b));  // flood 7, b 1
  EXPECT_TRUE(admit_with_cut(c));  // flood 6, b 1, c 1
  EXPECT_TRUE(admit_with_cut(b));  // flood 5, b 2
  EXPECT_TRUE(admit_with_cut(b));  // flood 4, b 3, c 1
  EXPECT_TRUE(admit_with_cut(c));  // flood 3, b 3, c 2
  EXPECT_EQ(a.connections(), 8u);
  // flood 3 and b 3: b would hold 4, no more than flood has +1: refused.
  EXPECT_EQ(a.Admit(b, kT0).refusal, NtsKeRefusal::kFull);
  // c (2) would hold 3: flood and b hold 3, not 4: refused too.
  EXPECT_EQ(a.Admit(c, kT0).refusal, NtsKeRefusal::kFull);
  // A new source takes one from a heaviest (3 >= 0 + 2).
  const NtsKeAdmission::Decision d = a.Admit(V4(4), kT0);
  EXPECT_EQ(d.refusal, NtsKeRefusal::kNone);
  EXPECT_TRUE(d.cut);
  EXPECT_TRUE(d.cut_source == flood || d.cut_source == b);
  // Closing makes room without cuts.
  a.Closed(b);
  const NtsKeAdmission::Decision e = a.Admit(flood, kT0);
  EXPECT_EQ(e.refusal, NtsKeRefusal::kNone);
  EXPECT_FALSE(e.cut);
}

TEST(NtsKeAdmissionTest, RefusalsAreReportedBySource) {
  NtsKeAdmission::Config c;
  c.rate = {6, 1, 4};
  c.max_connections = 1;
  NtsKeAdmission a(c);
  a.Opened(V4(1));
  for (int i = 0; i < 50; ++i) a.Admit(V4(66), kT0);  // 1 admitted, then rate
  a.Admit(V4(2), kT0);                                // full (1 vs 1)
  const NtsKeAdmission::TopRefused top = a.TakeTopRefused();
  EXPECT_EQ(top.source, V4(66));
  EXPECT_GT(top.refused, 40u);
  EXPECT_EQ(a.TakeTopRefused().refused, 0u);  // forgotten once taken
  EXPECT_STREQ(NtsKeRefusalName(NtsKeRefusal::kRateLimited), "rate_limited");
  EXPECT_STREQ(NtsKeRefusalName(NtsKeRefusal::kFull), "full");
}

TEST(NtsKeAdmissionTest, TheSourceTableIsBounded) {
  NtsKeAdmission::Config c;
  c.max_sources = 100;
  c.max_connections = 1000;
  NtsKeAdmission a(c);
  a.Opened(V4(1));  // holds a connection: kept
  for (uint32_t i = 0; i < 10'000; ++i) {
    Ipv6Addr addr;
    addr.b[0] = 0x20;
    addr.b[4] = static_cast<uint8_t>(i >> 8);
    addr.b[5] = static_cast<uint8_t>(i);
    a.Admit(NtsKeSource::V6(addr), kT0);
    ASSERT_LE(a.sources(), 100u);
  }
  EXPECT_EQ(a.ConnectionsOf(V4(1)), 1u);
}

}  // namespace
}  // namespace nts_ke_admission_test
}  // namespace zg::core
