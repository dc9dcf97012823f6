// SPDX-License-Identifier: Apache-2.0
// Admission control of PTP unicast negotiation: the per-source table, the
// limits (per source, interval floor, transmit budget), CANCEL from the
// wrong port, and the worst-case amplification per forged REQUEST that
// doc/ptp.md states, counted from what the scheduler would transmit.
#include "core/ptp/ptp_admission.h"

#include <map>
#include <vector>

#include "core/ptp/ptp_negotiation.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_unicast_service.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_admission_test {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr int64_t kSec = kNanosPerSecond;
constexpr int64_t kT0 = 5000 * kSec;
// Ethernet + IPv4 + UDP headers of every unicast UDP/IPv4 frame we send.
constexpr size_t kUdp4Headers = 14 + 20 + 8;

PtpUnicastAddress Ip(uint8_t a, uint8_t b) {
  const uint8_t ip[4] = {10, 1, a, b};
  return PtpUnicastAddress::Ipv4(ip);
}
PtpPortIdentity Port(uint16_t n) {
  return {{{0x02, 0, 0, 0xFF, 0xFE, 0, static_cast<uint8_t>(n >> 8),
            static_cast<uint8_t>(n)}},
          1};
}
PtpUnicastRequest Req(PtpMessageType type, int8_t log, uint32_t duration) {
  return {type, log, duration};
}

PtpAdmissionConfig Defaults(unsigned shards = 1) {
  absl::StatusOr<PtpAdmissionConfig> c =
      MakePtpAdmissionConfig(kPtpAdmissionDefaults);
  EXPECT_TRUE(c.ok()) << c.status();
  c->shards = shards;
  return *c;
}

std::unique_ptr<PtpUnicastService> Service(PtpProfileId profile,
                                           const PtpAdmissionConfig& a,
                                           uint32_t capacity = 64) {
  PtpUnicastService::Config c;
  c.limits = DefaultPtpPortConfig(profile).grant_limits;
  c.capacity = capacity;
  c.seed = 11;
  c.admission = a;
  auto svc = *PtpUnicastService::Create(c);
  svc->Start(kT0);
  return svc;
}

TEST(PtpSourceTable, CountsPerAddressAndShiftsBack) {
  auto t = *PtpSourceTable::Create(8, 1);
  EXPECT_EQ(t->Grants(Ip(0, 1)), 0u);
  for (uint8_t i = 0; i < 8; ++i) ASSERT_TRUE(t->Add(Ip(0, i)));
  EXPECT_FALSE(t->Add(Ip(0, 9)));  // full: a new source
  EXPECT_TRUE(t->Add(Ip(0, 3)));   // an existing one still counts up
  EXPECT_EQ(t->Grants(Ip(0, 3)), 2u);
  EXPECT_EQ(t->size(), 8u);
  for (uint8_t i = 0; i < 8; i += 2) t->Remove(Ip(0, i));
  EXPECT_EQ(t->size(), 4u);
  for (uint8_t i = 1; i < 8; i += 2) EXPECT_GE(t->Grants(Ip(0, i)), 1u) << +i;
  for (uint8_t i = 0; i < 8; i += 2) EXPECT_EQ(t->Grants(Ip(0, i)), 0u) << +i;
  t->Remove(Ip(0, 3));
  EXPECT_EQ(t->Grants(Ip(0, 3)), 1u);
  t->Remove(Ip(9, 9));  // absent: nothing
  EXPECT_EQ(t->size(), 4u);
}

TEST(PtpAdmissionConfig, BuiltFromFlagValues) {
  const PtpAdmissionConfig c = Defaults(4);
  EXPECT_EQ(c.max_grants_per_source, 8u);
  EXPECT_EQ(c.min_log_interval_per_source, -4);
  EXPECT_EQ(c.ShardBudgetUnits(), 1'000'000u * 32 / 4);
  EXPECT_EQ(PtpAdmissionConfig{}.ShardBudgetUnits(), 0u);  // no limit
  PtpAdmissionFlagValues f = kPtpAdmissionDefaults;
  f.cancel_requires_auth = true;
  absl::StatusOr<PtpAdmissionConfig> bad = MakePtpAdmissionConfig(f);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no PTP authentication"),
            absl::string_view::npos);
  f = kPtpAdmissionDefaults;
  f.min_log_interval_per_source = -11;
  EXPECT_FALSE(MakePtpAdmissionConfig(f).ok());
  f = kPtpAdmissionDefaults;
  f.tx_budget = -1;
  EXPECT_FALSE(MakePtpAdmissionConfig(f).ok());
  f = kPtpAdmissionDefaults;
  f.max_grants_per_source = -1;
  EXPECT_FALSE(MakePtpAdmissionConfig(f).ok());
}

TEST(PtpGrantRateUnits, CountsWhatIsSent) {
  EXPECT_EQ(PtpGrantRateUnits(PtpGrantType::kSync, -4, true), 2u * 16 * 32);
  EXPECT_EQ(PtpGrantRateUnits(PtpGrantType::kSync, -4, false), 16u * 32);
  EXPECT_EQ(PtpGrantRateUnits(PtpGrantType::kAnnounce, 5, true), 1u);
  EXPECT_EQ(PtpGrantRateUnits(PtpGrantType::kDelayResp, 0, true), 32u);
  EXPECT_EQ(PtpGrantRateUnits(PtpGrantType::kPdelayResp, 0, true), 64u);
}

// One address varying its portIdentity holds at most
// --ptp_max_grants_per_source grants, and the table keeps room for others.
TEST(PtpAdmission, OneAddressCannotFillTheTable) {
  auto svc = Service(PtpProfileId::kG8275_2, Defaults(), 16);
  int granted = 0, per_source = 0;
  for (uint16_t p = 0; p < 100; ++p) {
    const PtpGrantDecision d =
        svc->Request({Ip(0, 66), Port(p)}, {},
                     Req(PtpMessageType::kSync, -4, 300), true, kT0, 320);
    granted += d.granted();
    per_source += d.denial == PtpGrantDenial::kPerSource;
  }
  EXPECT_EQ(granted, 8);
  EXPECT_EQ(per_source, 92);
  EXPECT_EQ(svc->table().size(), 8u);
  EXPECT_EQ(svc->sources().Grants(Ip(0, 66)), 8u);
  EXPECT_EQ(
      svc->stats().denials[static_cast<size_t>(PtpGrantDenial::kPerSource)],
      92u);
  // Renewing a held grant is not a new one.
  EXPECT_TRUE(svc->Request({Ip(0, 66), Port(3)}, {},
                           Req(PtpMessageType::kSync, -4, 300), true, kT0, 320)
                  .granted());
  for (uint8_t i = 0; i < 8; ++i) {
    EXPECT_TRUE(svc->Request({Ip(1, i), Port(1)}, {},
                             Req(PtpMessageType::kAnnounce, 0, 300), true, kT0)
                    .granted());
  }
  EXPECT_EQ(svc->Request({Ip(2, 0), Port(1)}, {},
                         Req(PtpMessageType::kAnnounce, 0, 300), true, kT0)
                .denial,
            PtpGrantDenial::kTableFull);
  // Grants that end give the source its room back.
  EXPECT_EQ(svc->Cancel({Ip(0, 66), Port(0)}, PtpMessageType::kSync, 320),
            PtpCancelResult::kCancelled);
  EXPECT_EQ(svc->sources().Grants(Ip(0, 66)), 7u);
}

TEST(PtpAdmission, FasterThanTheFloorIsReduced) {
  auto svc = Service(PtpProfileId::kG8275_2, Defaults());
  const PtpGrantDecision d = svc->Request(
      {Ip(0, 1), Port(1)}, {}, Req(PtpMessageType::kSync, -7, 300), true, kT0);
  ASSERT_TRUE(d.granted());
  EXPECT_EQ(d.log_interval, -4);
  EXPECT_EQ(d.reduction, PtpGrantReduction::kInterval);
  EXPECT_EQ(svc->committed_units(),
            PtpGrantRateUnits(PtpGrantType::kSync, -4, true));
  EXPECT_EQ(svc->stats()
                .reductions[static_cast<size_t>(PtpGrantReduction::kInterval)],
            1u);
  // At the floor or slower: as asked.
  EXPECT_EQ(svc->Request({Ip(0, 1), Port(1)}, {},
                         Req(PtpMessageType::kAnnounce, -3, 300), true, kT0)
                .log_interval,
            -3);
}

// The budget is never exceeded: requests are reduced to the fastest
// interval that fits, then refused; renewals free their own share first.
TEST(PtpAdmission, BudgetReducesThenRefuses) {
  PtpAdmissionConfig a = Defaults();
  a.tx_budget_per_s = 100;  // messages/s
  auto svc = Service(PtpProfileId::kG8275_2, a);
  auto sync = [&](uint8_t who, int8_t log) {
    return svc->Request({Ip(3, who), Port(1)}, {},
                        Req(PtpMessageType::kSync, log, 300), true, kT0);
  };
  // 16 Sync + 16 Follow_Up a second each: three fit in 100 messages/s.
  for (uint8_t i = 0; i < 3; ++i) EXPECT_EQ(sync(i, -4).log_interval, -4);
  // 4 left: 2 Syncs/s (+2 Follow_Ups).
  PtpGrantDecision d = sync(3, -4);
  ASSERT_TRUE(d.granted());
  EXPECT_EQ(d.log_interval, -1);
  EXPECT_EQ(d.reduction, PtpGrantReduction::kBudget);
  d = sync(4, -4);  // 0 left; G.8275.2's slowest Sync is 1/s
  EXPECT_EQ(d.denial, PtpGrantDenial::kBudget);
  EXPECT_EQ(d.log_interval, -4);  // the refusal carries the request's
  EXPECT_LE(svc->committed_units(), svc->budget_units());
  EXPECT_EQ(svc->committed_units(), 100u * 32);
  // A live grant's renewal fits again (it frees its own share first).
  EXPECT_EQ(sync(0, -4).log_interval, -4);
  EXPECT_EQ(svc->committed_units(), 100u * 32);
  // Ending a grant returns its share.
  EXPECT_EQ(svc->Cancel({Ip(3, 1), Port(1)}, PtpMessageType::kSync),
            PtpCancelResult::kCancelled);
  EXPECT_EQ(sync(4, -4).log_interval, -4);
  EXPECT_EQ(svc->stats().denials[static_cast<size_t>(PtpGrantDenial::kBudget)],
            1u);
}

TEST(PtpAdmission, ExpiryReturnsTheShare) {
  PtpAdmissionConfig a = Defaults();
  a.tx_budget_per_s = 48;  // exactly Sync + Follow_Up and Delay_Resp at 16/s
  auto svc = Service(PtpProfileId::kG8275_2, a);
  ASSERT_TRUE(svc->Request({Ip(4, 1), Port(1)}, {},
                           Req(PtpMessageType::kSync, -4, 60), true, kT0)
                  .granted());
  ASSERT_TRUE(svc->Request({Ip(4, 1), Port(1)}, {},
                           Req(PtpMessageType::kDelayResp, -4, 60), true, kT0)
                  .granted());
  EXPECT_EQ(svc->committed_units(), (32u + 16) * 32);
  for (int64_t t = kT0; t <= kT0 + 61 * kSec; t += kSec / 8) {
    svc->Poll(t, 1000, true, [](auto&&...) { return true; });
    svc->SweepExpired(t, 64);
  }
  EXPECT_EQ(svc->committed_units(), 0u);
  EXPECT_EQ(svc->sources().size(), 0u);
  EXPECT_EQ(svc->table().size(), 0u);
}

TEST(PtpAdmission, CancelOnlyFromTheGrantedPort) {
  auto svc = Service(PtpProfileId::kG8275_2, Defaults());
  const PtpUnicastClientKey key{Ip(5, 1), Port(7)};
  ASSERT_TRUE(
      svc->Request(key, {}, Req(PtpMessageType::kSync, -4, 300), true, kT0, 320)
          .granted());
  EXPECT_EQ(svc->Cancel(key, PtpMessageType::kSync, 40000),
            PtpCancelResult::kWrongSource);
  EXPECT_TRUE(svc->HasGrant(key, PtpGrantType::kSync, kT0));
  EXPECT_EQ(svc->stats().cancels_wrong_source, 1u);
  EXPECT_EQ(svc->Cancel({Ip(5, 2), Port(7)}, PtpMessageType::kSync, 320),
            PtpCancelResult::kNoGrant);
  EXPECT_EQ(svc->Cancel(key, PtpMessageType::kSync, 320),
            PtpCancelResult::kCancelled);
}

TEST(PtpAdmission, RefusalRepliesAreRateLimited) {
  PtpAdmissionConfig a = Defaults();
  a.refusal_replies_per_s = 8;  // burst: one
  auto svc = Service(PtpProfileId::kG8275_2, a);
  EXPECT_TRUE(svc->AllowRefusalReply(kT0));
  EXPECT_FALSE(svc->AllowRefusalReply(kT0));
  EXPECT_FALSE(svc->AllowRefusalReply(kT0 + kSec / 16));
  EXPECT_TRUE(svc->AllowRefusalReply(kT0 + kSec / 8));
  int allowed = 0;
  for (int64_t t = kT0 + kSec; t < kT0 + 11 * kSec; t += kSec / 1000) {
    allowed += svc->AllowRefusalReply(t);
  }
  EXPECT_GE(allowed, 80);
  EXPECT_LE(allowed, 81);
  EXPECT_EQ(svc->stats().silenced, 10'000u - allowed + 2);
  // Two shards share the rate.
  a.shards = 2;
  EXPECT_EQ(a.ShardRefusalRate1024(), 4u * 1024);
  EXPECT_EQ(PtpAdmissionConfig{}.ShardRefusalRate1024(), 0u);
}

// ---- The worst case per forged REQUEST (doc/ptp.md, "Admission control") --

constexpr PtpPortIdentity kGm{{{0x02, 0, 0x5E, 0xFF, 0xFE, 0, 1, 0x29}}, 1};

// A forged Signaling message asking for everything that makes us send
// something unprompted (Sync, Announce) as fast as the default profile
// allows (2^-7 s, 2^-3 s) and as long as it may. Delay_Resp would add
// nothing: it only answers Delay_Reqs; repeating a TLV only renews.
Bytes ForgedRequest(PtpPortIdentity source) {
  Bytes tlvs;
  for (const PtpUnicastRequest& r :
       {Req(PtpMessageType::kSync, -7, 0xFFFFFFFF),
        Req(PtpMessageType::kAnnounce, -3, 0xFFFFFFFF)}) {
    Bytes t(16);
    t.resize(WritePtpUnicastRequestTlv(r, t));
    tlvs.insert(tlvs.end(), t.begin(), t.end());
  }
  PtpMessage m;
  m.header.source_port_identity = source;
  m.header.control_field = 5;
  m.header.log_message_interval = kPtpLogIntervalUnspecified;
  m.header.flags.Set(PtpFlag::kUnicast);
  m.body = PtpSignaling{PtpPortIdentity{}};
  m.tlvs = tlvs;
  Bytes out(256);
  out.resize(SerializePtpMessage(m, out));
  return out;
}

struct Outcome {
  double messages_per_s = 0;
  double bytes_per_s = 0;  // UDP/IPv4 frames, without preamble and FCS
  uint32_t duration_s = 0;
  size_t request_bytes = 0;  // the forged frame
  size_t reply_bytes = 0;    // the GRANT frame
};

// Forges `n` REQUESTs from one spoofed address (portIdentity 1..n),
// answers them as zeitgeberd does, and counts what the scheduler transmits
// (a two-step Sync is Sync + Follow_Up) over 8 s of steady state.
Outcome Forge(const PtpAdmissionConfig& admission, int n = 1) {
  auto svc = Service(PtpProfileId::kDefaultE2E, admission);
  PtpSignalingContext ctx;
  ctx.port.port_identity = kGm;
  ctx.from = Ip(7, 7);
  ctx.from_port = 320;
  ctx.serving = true;
  ctx.now_mono_ns = kT0;
  uint16_t seq = 0;
  Outcome o;
  for (int i = 1; i <= n; ++i) {
    const Bytes req = ForgedRequest(Port(static_cast<uint16_t>(i)));
    Bytes out(512);
    const PtpSignalingAnswer a = AnswerPtpSignaling(req, ctx, *svc, &seq, out);
    EXPECT_EQ(a.result, PtpSignalingResult::kReplied);
    o.request_bytes = kUdp4Headers + req.size();
    o.reply_bytes = kUdp4Headers + a.length;
    PtpMessage m;
    EXPECT_EQ(ParsePtpMessage(std::span(out).first(a.length), &m),
              PtpDrop::kOk);
    PtpTlv tlv;
    PtpUnicastGrant g;
    if (FindPtpTlv(m.tlvs, PtpTlvType::kGrantUnicastTransmission, &tlv) &&
        ParsePtpUnicastGrantTlv(tlv, &g)) {
      o.duration_s = std::max(o.duration_s, g.duration_s);
    }
  }
  const bool two_step = admission.two_step;
  uint64_t messages = 0, bytes = 0;
  constexpr int64_t kFrom = kT0 + 2 * kSec, kTo = kT0 + 10 * kSec;
  for (int64_t t = kT0; t < kTo; t += kSec / 1024) {
    svc->Poll(
        t, 100000, true,
        [&](const PtpUnicastSubscriber&, PtpTimerKind k, uint16_t, int8_t) {
          if (t < kFrom) return true;
          if (k == PtpTimerKind::kAnnounce) {
            ++messages;
            bytes += kUdp4Headers + kPtpAnnounceLength;
          } else {
            messages += two_step ? 2 : 1;
            bytes += (kUdp4Headers + kPtpSyncLength) +
                     (two_step ? kUdp4Headers + kPtpFollowUpLength : 0);
          }
          return true;
        });
  }
  const double window_s = static_cast<double>(kTo - kFrom) / kSec;
  o.messages_per_s = static_cast<double>(messages) / window_s;
  o.bytes_per_s = static_cast<double>(bytes) / window_s;
  return o;
}

TEST(PtpAmplification, WithoutAdmissionLimits) {
  // The figure: 128 Sync + 128 Follow_Up + 8 Announce a second for
  // an hour (the default profile's longest grant), for one 106-octet frame.
  const Outcome o = Forge(PtpAdmissionConfig{});
  EXPECT_EQ(o.messages_per_s, 264);
  EXPECT_EQ(o.bytes_per_s, 128 * 86 * 2 + 8 * 106);  // 22864
  EXPECT_EQ(o.duration_s, 3600u);
  EXPECT_EQ(o.request_bytes, 106u);
  EXPECT_EQ(o.reply_bytes, 110u);
}

TEST(PtpAmplification, WithTheDefaults) {
  // --ptp_min_log_interval_per_source=-4: 16 Sync + 16 Follow_Up + 8
  // Announce (the profile's fastest Announce, 2^-3 s, is slower than the
  // floor).
  const Outcome o = Forge(Defaults());
  EXPECT_EQ(o.messages_per_s, 40);
  EXPECT_EQ(o.bytes_per_s, 3600);
  EXPECT_EQ(o.duration_s, 3600u);
  // Per forged frame octet: 0.38 messages and 34 octets a second; over the
  // grant, 144000 messages and 12.96 MB (122264x).
  EXPECT_NEAR(o.messages_per_s / o.request_bytes, 0.377, 0.001);
  EXPECT_NEAR(o.bytes_per_s / o.request_bytes, 33.96, 0.01);
  EXPECT_EQ(o.bytes_per_s * o.duration_s, 12'960'000);
  // One address, any number of portIdentities: 8 grants at most, i.e. 4
  // forged REQUESTs' worth (Sync + Announce each).
  const Outcome many = Forge(Defaults(), 20);
  EXPECT_EQ(many.messages_per_s, 4 * 40);
}

TEST(PtpAmplification, WithTightAdmissionFlags) {
  // --ptp_min_log_interval_per_source=0 --ptp_grant_max_duration=60 (here:
  // the floor; the duration is the profile's clamp, checked above).
  PtpAdmissionConfig a = Defaults();
  a.min_log_interval_per_source = 0;
  const Outcome o = Forge(a);
  EXPECT_EQ(o.messages_per_s, 3);  // Sync + Follow_Up + Announce
  EXPECT_EQ(o.bytes_per_s, 86 * 2 + 106);
}

// A storm from many spoofed sources never commits more than the budget,
// and what the scheduler sends stays within it; a slave granted before the
// storm renews at its own rate.
TEST(PtpAmplification, StormStaysWithinTheBudget) {
  PtpAdmissionConfig a = Defaults();
  a.tx_budget_per_s = 500;
  auto svc = Service(PtpProfileId::kG8275_2, a, 4096);
  const PtpUnicastClientKey slave{Ip(9, 9), Port(1)};
  ASSERT_EQ(svc->Request(slave, {}, Req(PtpMessageType::kSync, -4, 60), true,
                         kT0, 320)
                .log_interval,
            -4);
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    const PtpGrantDecision d = svc->Request(
        {Ip(static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)), Port(1)},
        {}, Req(PtpMessageType::kSync, -7, 1000), true, kT0, 320);
    refused += !d.granted();
    ASSERT_LE(svc->committed_units(), svc->budget_units());
  }
  EXPECT_GT(refused, 1900);
  // The slave renews during the storm, at its own rate.
  const PtpGrantDecision renewal =
      svc->Request(slave, {}, Req(PtpMessageType::kSync, -4, 60), true,
                   kT0 + 30 * kSec, 320);
  EXPECT_TRUE(renewal.granted());
  EXPECT_EQ(renewal.log_interval, -4);
  uint64_t sent = 0;
  for (int64_t t = kT0; t < kT0 + 10 * kSec; t += kSec / 1024) {
    svc->Poll(t, 100000, true, [&](auto&&...) {
      sent += 2;  // Sync + Follow_Up
      return true;
    });
  }
  EXPECT_LE(sent, 500u * 10);
  EXPECT_GT(sent, 400u * 10);
}

}  // namespace
}  // namespace ptp_admission_test
}  // namespace zg::core
