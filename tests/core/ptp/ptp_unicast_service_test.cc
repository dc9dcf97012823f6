// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_unicast_service.h"

#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_unicast_service_test {
namespace {

constexpr int64_t kSec = kNanosPerSecond;
constexpr int64_t kT0 = 5000 * kSec;

PtpUnicastClientKey Key(uint8_t n) {
  const uint8_t ip[4] = {192, 0, 2, n};
  return {PtpUnicastAddress::Ipv4(ip),
          {{{0x02, 0, 0, 0xFF, 0xFE, 0, 0, n}}, 1}};
}

PtpUnicastRequest Req(PtpMessageType type, int8_t log, uint32_t duration) {
  return {type, log, duration};
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PtpUnicastService::Config c;
    c.limits = DefaultPtpPortConfig(PtpProfileId::kG8275_2).grant_limits;
    c.capacity = 4;
    c.seed = 3;
    svc_ = *PtpUnicastService::Create(c);
    svc_->Start(kT0);
    path_.mac = {0x02, 0xAA, 0, 0, 0, 1};
  }
  struct Sent {
    uint8_t client;
    PtpTimerKind kind;
    uint16_t seq;
    int8_t log;
    int64_t at;
  };
  // Polls in 1 ms steps from `from` to `to` (inclusive), recording sends.
  // kT0 is a whole second, so a subscriber's first timer of a given
  // interval (phase 0) is due exactly one interval after kT0.
  std::vector<Sent> Run(int64_t from, int64_t to, bool transmit = true) {
    std::vector<Sent> out;
    for (int64_t t = from; t <= to; t += kSec / 1000) {
      svc_->Poll(t, 1000, transmit,
                 [&](const PtpUnicastSubscriber& s, PtpTimerKind k,
                     uint16_t seq, int8_t log) {
                   out.push_back({s.key.address.octets[3], k, seq, log, t});
                   return true;
                 });
    }
    return out;
  }
  std::unique_ptr<PtpUnicastService> svc_;
  PtpUnicastReturnPath path_;
};

TEST_F(ServiceTest, GrantsWithinLimitsAndClampsDuration) {
  PtpGrantDecision d = svc_->Request(
      Key(1), path_, Req(PtpMessageType::kAnnounce, 0, 3600), true, kT0);
  EXPECT_TRUE(d.granted());
  EXPECT_EQ(d.duration_s, 1000u);  // G.8275.2 maximum
  EXPECT_EQ(d.log_interval, 0);
  EXPECT_FALSE(d.renewal);
  d = svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, -4, 10), true,
                    kT0);
  EXPECT_TRUE(d.granted());
  EXPECT_EQ(d.duration_s, 60u);  // G.8275.2 minimum
  EXPECT_EQ(svc_->table().size(), 1u);
  const auto& s = svc_->table().at(svc_->table().Find(Key(1)));
  EXPECT_EQ(s.path, path_);
  EXPECT_TRUE(s.Has(PtpGrantType::kAnnounce));
  EXPECT_TRUE(s.Has(PtpGrantType::kSync));
  EXPECT_FALSE(s.Has(PtpGrantType::kDelayResp));
  EXPECT_EQ(svc_->stats().grants[0], 1u);
  EXPECT_EQ(svc_->stats().grants[1], 1u);
}

TEST_F(ServiceTest, DenialReasons) {
  auto deny = [&](PtpUnicastRequest r, bool serving = true) {
    return svc_->Request(Key(2), path_, r, serving, kT0).denial;
  };
  EXPECT_EQ(deny(Req(PtpMessageType::kSync, -8, 300)),
            PtpGrantDenial::kIntervalTooShort);
  EXPECT_EQ(deny(Req(PtpMessageType::kSync, 1, 300)),
            PtpGrantDenial::kIntervalTooLong);
  EXPECT_EQ(deny(Req(PtpMessageType::kAnnounce, -4, 300)),
            PtpGrantDenial::kIntervalTooShort);
  EXPECT_EQ(deny(Req(PtpMessageType::kPdelayResp, 0, 300)),
            PtpGrantDenial::kTypeNotGranted);
  EXPECT_EQ(deny(Req(PtpMessageType::kFollowUp, 0, 300)),
            PtpGrantDenial::kTypeNotGranted);
  EXPECT_EQ(deny(Req(PtpMessageType::kSync, 0, 0)),
            PtpGrantDenial::kZeroDuration);
  EXPECT_EQ(deny(Req(PtpMessageType::kSync, 0, 300), false),
            PtpGrantDenial::kNotMaster);
  EXPECT_EQ(svc_->table().size(), 0u);  // denials create nothing
  for (uint8_t i = 10; i < 14; ++i) {
    ASSERT_TRUE(svc_->Request(Key(i), path_,
                              Req(PtpMessageType::kDelayResp, 0, 300), true,
                              kT0)
                    .granted());
  }
  EXPECT_EQ(deny(Req(PtpMessageType::kSync, 0, 300)),
            PtpGrantDenial::kTableFull);
  const auto& st = svc_->stats();
  EXPECT_EQ(st.denials[static_cast<size_t>(PtpGrantDenial::kTableFull)], 1u);
  EXPECT_EQ(st.denials[static_cast<size_t>(PtpGrantDenial::kIntervalTooShort)],
            2u);
  EXPECT_STREQ(PtpGrantDenialName(PtpGrantDenial::kIntervalTooLong),
               "interval_too_long");
}

TEST_F(ServiceTest, SendsAtTheGrantedRateWithSequenceIds) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kAnnounce, 0, 300), true,
                kT0);
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, -2, 300), true, kT0);
  const auto sent = Run(kT0, kT0 + 4 * kSec);
  int announces = 0, syncs = 0;
  uint16_t next_sync = 0, next_announce = 0;
  for (const Sent& s : sent) {
    EXPECT_EQ(s.client, 1);
    if (s.kind == PtpTimerKind::kSync) {
      EXPECT_EQ(s.seq, next_sync++);
      EXPECT_EQ(s.log, -2);
      ++syncs;
    } else {
      EXPECT_EQ(s.seq, next_announce++);
      EXPECT_EQ(s.log, 0);
      ++announces;
    }
  }
  EXPECT_EQ(syncs, 16);
  EXPECT_EQ(announces, 4);
  EXPECT_EQ(svc_->stats().sent[1], 16u);
}

TEST_F(ServiceTest, LatenessAndSkippedSyncsAreCounted) {
  ASSERT_TRUE(svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 300),
                            true, kT0)
                  .granted());
  // Polled every ms: every Sync leaves within the wheel's grain.
  ASSERT_EQ(Run(kT0, kT0 + 3 * kSec).size(), 3u);
  const size_t sync = static_cast<size_t>(PtpTimerKind::kSync);
  uint64_t within_1ms = 0;
  for (size_t b = 0; b <= PtpLatenessBucket(1'000'000); ++b) {
    within_1ms += svc_->stats().lateness[sync][b];
  }
  EXPECT_EQ(within_1ms, 3u);
  EXPECT_EQ(PtpLatenessBucket(1'000'000), 4u);  // 50, 100, 250, 500 us, 1 ms
  EXPECT_EQ(PtpLatenessBucket(40'000), 0u);
  EXPECT_EQ(svc_->stats().skipped[sync], 0u);
  // The worker stalls for 3.5 s: the next Poll sends one Sync, 2.5 s late,
  // and counts the two it can no longer send on time; none is replayed.
  std::vector<Sent> late =
      Run(kT0 + 6 * kSec + kSec / 2, kT0 + 6 * kSec + kSec / 2);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(svc_->stats().skipped[sync], 2u);
  EXPECT_EQ(svc_->stats().lateness[sync][kPtpLatenessBuckets - 1], 1u);
  EXPECT_GE(svc_->stats().lateness_sum_ns[sync], 2 * kSec + kSec / 2);
  // Back on schedule, phase kept: the next is due at kT0 + 7 s.
  EXPECT_EQ(Run(kT0 + 6 * kSec + kSec / 2 + 1'000'000, kT0 + 7 * kSec).size(),
            1u);
  EXPECT_EQ(svc_->stats().sent[sync], 5u);
}

TEST_F(ServiceTest, RenewalKeepsPhaseAndExtends) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 60), true, kT0);
  const auto first = Run(kT0, kT0 + 2 * kSec);
  ASSERT_EQ(first.size(), 2u);  // at 1 s and 2 s
  EXPECT_EQ(first[0].at, kT0 + kSec);
  const PtpGrantDecision d = svc_->Request(
      Key(1), path_, Req(PtpMessageType::kSync, 0, 60), true, kT0 + 2 * kSec);
  EXPECT_TRUE(d.renewal);
  EXPECT_EQ(svc_->stats().renewals[1], 1u);
  // The grant now ends at kT0 + 62 s (not 60 s): sends at 3..61 s, on the
  // same whole-second phase.
  const auto later = Run(kT0 + 2 * kSec + kSec / 1000, kT0 + 70 * kSec);
  ASSERT_EQ(later.size(), 59u);
  EXPECT_EQ(later.back().at, kT0 + 61 * kSec);
  for (const Sent& s : later) EXPECT_EQ((s.at - kT0) % kSec, 0);
}

TEST_F(ServiceTest, ExpiryEndsSendingAndFreesTheEntry) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 60), true, kT0);
  const auto sent = Run(kT0, kT0 + 62 * kSec);
  EXPECT_EQ(sent.size(), 59u);  // at 1..59 s; the grant ends at 60 s
  EXPECT_EQ(svc_->stats().expiries[1], 1u);
  EXPECT_EQ(svc_->table().size(), 0u);
  EXPECT_EQ(svc_->scheduler().armed_count(), 0u);
}

TEST_F(ServiceTest, SweepExpiresDelayRespOnlySubscribers) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kDelayResp, -4, 60), true,
                kT0);
  EXPECT_TRUE(svc_->HasGrant(Key(1), PtpGrantType::kDelayResp, kT0));
  EXPECT_FALSE(svc_->HasGrant(Key(1), PtpGrantType::kSync, kT0));
  EXPECT_FALSE(svc_->HasGrant(Key(2), PtpGrantType::kDelayResp, kT0));
  EXPECT_EQ(svc_->SweepExpired(kT0 + 59 * kSec, 4), 0u);
  EXPECT_EQ(svc_->table().size(), 1u);
  EXPECT_FALSE(
      svc_->HasGrant(Key(1), PtpGrantType::kDelayResp, kT0 + 60 * kSec));
  EXPECT_EQ(svc_->SweepExpired(kT0 + 60 * kSec, 4), 1u);
  EXPECT_EQ(svc_->table().size(), 0u);
  EXPECT_EQ(svc_->stats().expiries[2], 1u);
}

TEST_F(ServiceTest, CancelEndsOneGrantThenTheSubscriber) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kAnnounce, 0, 300), true,
                kT0);
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 300), true, kT0);
  EXPECT_EQ(svc_->Cancel(Key(1), PtpMessageType::kSync),
            PtpCancelResult::kCancelled);
  EXPECT_EQ(svc_->Cancel(Key(1), PtpMessageType::kSync),
            PtpCancelResult::kNoGrant);
  EXPECT_EQ(svc_->Cancel(Key(2), PtpMessageType::kSync),
            PtpCancelResult::kNoGrant);
  EXPECT_EQ(svc_->Cancel(Key(1), PtpMessageType::kFollowUp),
            PtpCancelResult::kNoGrant);
  const auto sent = Run(kT0, kT0 + 2 * kSec);
  for (const Sent& s : sent) EXPECT_EQ(s.kind, PtpTimerKind::kAnnounce);
  EXPECT_EQ(sent.size(), 2u);
  EXPECT_EQ(svc_->Cancel(Key(1), PtpMessageType::kAnnounce),
            PtpCancelResult::kCancelled);
  EXPECT_EQ(svc_->table().size(), 0u);
  EXPECT_EQ(svc_->scheduler().armed_count(), 0u);
  EXPECT_EQ(svc_->stats().cancels[0], 1u);
}

TEST_F(ServiceTest, PassiveSuppressesButKeepsGrants) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 300), true, kT0);
  EXPECT_TRUE(Run(kT0, kT0 + 3 * kSec, /*transmit=*/false).empty());
  EXPECT_EQ(svc_->stats().suppressed, 3u);
  EXPECT_EQ(Run(kT0 + 3 * kSec + kSec / 1000, kT0 + 5 * kSec).size(), 2u);
}

TEST_F(ServiceTest, BackpressureRetriesTheSameMessage) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 300), true, kT0);
  int calls = 0;
  auto full = [&](const PtpUnicastSubscriber&, PtpTimerKind, uint16_t, int8_t) {
    ++calls;
    return false;
  };
  svc_->Poll(kT0 + kSec + 1, 10, true, full);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(svc_->stats().backpressure, 1u);
  std::vector<uint16_t> seqs;
  svc_->Poll(
      kT0 + kSec + 2, 10, true,
      [&](const PtpUnicastSubscriber&, PtpTimerKind, uint16_t seq, int8_t) {
        seqs.push_back(seq);
        return true;
      });
  EXPECT_EQ(seqs, std::vector<uint16_t>{0});
}

TEST_F(ServiceTest, IntervalChangeOnRenewal) {
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, 0, 300), true, kT0);
  svc_->Request(Key(1), path_, Req(PtpMessageType::kSync, -3, 300), true, kT0);
  const auto sent = Run(kT0, kT0 + kSec);
  EXPECT_EQ(sent.size(), 8u);  // every 125 ms
  for (const Sent& s : sent) EXPECT_EQ(s.log, -3);
  for (size_t i = 1; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i].at - sent[i - 1].at, kSec / 8);
  }
}

}  // namespace
}  // namespace ptp_unicast_service_test
}  // namespace zg::core
