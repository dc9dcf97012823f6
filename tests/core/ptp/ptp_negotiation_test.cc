// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_negotiation.h"

#include <string>
#include <vector>

#include "core/ptp/ptp_fields.h"
#include "core/ptp/ptp_tlv.h"
#include "gtest/gtest.h"
#include "tests/util/pcap_frames.h"

namespace zg::core {
namespace ptp_negotiation_test {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr PtpClockIdentity kOurClock{
    {0x02, 0x00, 0x5E, 0xFF, 0xFE, 0x00, 0x01, 0x29}};
constexpr PtpPortIdentity kOurPort{kOurClock, 1};
constexpr PtpPortIdentity kClientPort{
    {{0x0A, 0x0B, 0x0C, 0xFF, 0xFE, 0x0D, 0x0E, 0x0F}}, 1};
constexpr int64_t kNow = 7000 * kNanosPerSecond;

// A Signaling message from the client carrying `tlvs`.
Bytes Signaling(const Bytes& tlvs, uint8_t domain = 44,
                PtpPortIdentity target = PtpPortIdentity{},
                PtpPortIdentity source = kClientPort) {
  PtpMessage m;
  m.header.domain_number = domain;
  m.header.source_port_identity = source;
  m.header.sequence_id = 5;
  m.header.control_field = 5;
  m.header.log_message_interval = 0x7F;
  m.header.flags.Set(PtpFlag::kUnicast);
  m.body = PtpSignaling{target};
  m.tlvs = tlvs;
  Bytes out(1500);
  out.resize(SerializePtpMessage(m, out));
  return out;
}

Bytes RequestTlv(PtpMessageType type, int8_t log, uint32_t duration) {
  Bytes b(32);
  b.resize(WritePtpUnicastRequestTlv({type, log, duration}, b));
  return b;
}
Bytes CancelTlv(PtpMessageType type) {
  Bytes b(32);
  b.resize(WritePtpUnicastCancelTlv(PtpTlvType::kCancelUnicastTransmission,
                                    {type, 0}, b));
  return b;
}
Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

class NegotiationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PtpUnicastService::Config c;
    c.limits = DefaultPtpPortConfig(PtpProfileId::kG8275_2).grant_limits;
    c.capacity = 16;
    svc_ = *PtpUnicastService::Create(c);
    svc_->Start(kNow);
    ctx_.port.port_identity = kOurPort;
    ctx_.port.domain_number = 44;
    const uint8_t ip[4] = {10, 0, 0, 2};
    ctx_.from = PtpUnicastAddress::Ipv4(ip);
    ctx_.serving = true;
    ctx_.now_mono_ns = kNow;
  }
  PtpSignalingAnswer Answer(const Bytes& req) {
    out_.assign(512, 0xEE);
    return AnswerPtpSignaling(req, ctx_, *svc_, &seq_, out_);
  }
  // The reply, parsed, with its GRANT / ACK TLVs.
  PtpMessage Reply(const PtpSignalingAnswer& a) {
    PtpMessage m;
    EXPECT_EQ(ParsePtpMessage(std::span(out_).first(a.length), &m),
              PtpDrop::kOk);
    return m;
  }
  std::vector<PtpUnicastGrant> Grants(const PtpMessage& m) {
    std::vector<PtpUnicastGrant> out;
    PtpTlvReader r(m.tlvs);
    PtpTlv tlv;
    while (r.Next(&tlv)) {
      PtpUnicastGrant g;
      if (ParsePtpUnicastGrantTlv(tlv, &g)) out.push_back(g);
    }
    return out;
  }
  std::unique_ptr<PtpUnicastService> svc_;
  PtpSignalingContext ctx_;
  uint16_t seq_ = 100;
  Bytes out_;
};

TEST_F(NegotiationTest, GrantsEachRequestInOneReply) {
  const Bytes req =
      Signaling(Cat({RequestTlv(PtpMessageType::kSync, -4, 300),
                     RequestTlv(PtpMessageType::kDelayResp, -4, 300)}));
  const PtpSignalingAnswer a = Answer(req);
  ASSERT_EQ(a.result, PtpSignalingResult::kReplied);
  EXPECT_EQ(a.granted, 2);
  EXPECT_EQ(a.denied, 0);
  EXPECT_EQ(a.length, kPtpSignalingLength + 2 * 12);
  const PtpMessage m = Reply(a);
  EXPECT_EQ(m.header.message_type, PtpMessageType::kSignaling);
  EXPECT_EQ(m.header.domain_number, 44);
  EXPECT_EQ(m.header.source_port_identity, kOurPort);
  EXPECT_EQ(m.header.sequence_id, 100);
  EXPECT_EQ(seq_, 101);
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kUnicast));
  EXPECT_EQ(m.header.control_field, 5);
  EXPECT_EQ(m.header.log_message_interval, 0x7F);
  EXPECT_EQ(std::get<PtpSignaling>(m.body).target_port_identity, kClientPort);
  const auto grants = Grants(m);
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0], (PtpUnicastGrant{PtpMessageType::kSync, -4, 300, true}));
  EXPECT_EQ(grants[1],
            (PtpUnicastGrant{PtpMessageType::kDelayResp, -4, 300, true}));
  const PtpUnicastClientKey key{ctx_.from, kClientPort};
  EXPECT_TRUE(svc_->HasGrant(key, PtpGrantType::kSync, kNow));
  EXPECT_TRUE(svc_->HasGrant(key, PtpGrantType::kDelayResp, kNow));
}

TEST_F(NegotiationTest, DenialIsAZeroDurationGrant) {
  const PtpSignalingAnswer a =
      Answer(Signaling(RequestTlv(PtpMessageType::kSync, -9, 300)));
  ASSERT_EQ(a.result, PtpSignalingResult::kReplied);
  EXPECT_EQ(a.denied, 1);
  const auto grants = Grants(Reply(a));
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0].duration_s, 0u);
  EXPECT_EQ(grants[0].log_inter_message_period, -9);
  EXPECT_FALSE(grants[0].renewal_invited);
  EXPECT_EQ(svc_->table().size(), 0u);
  // Not MASTER: denied too.
  ctx_.serving = false;
  const PtpSignalingAnswer b =
      Answer(Signaling(RequestTlv(PtpMessageType::kAnnounce, 0, 300)));
  EXPECT_EQ(b.denied, 1);
}

TEST_F(NegotiationTest, CancelIsAcknowledged) {
  Answer(Signaling(RequestTlv(PtpMessageType::kAnnounce, 0, 300)));
  ASSERT_EQ(svc_->table().size(), 1u);
  const PtpSignalingAnswer a =
      Answer(Signaling(CancelTlv(PtpMessageType::kAnnounce)));
  ASSERT_EQ(a.result, PtpSignalingResult::kReplied);
  EXPECT_EQ(a.cancelled, 1);
  EXPECT_EQ(svc_->table().size(), 0u);
  const PtpMessage m = Reply(a);
  PtpTlv tlv;
  ASSERT_TRUE(FindPtpTlv(
      m.tlvs, PtpTlvType::kAcknowledgeCancelUnicastTransmission, &tlv));
  PtpUnicastCancel c;
  ASSERT_TRUE(ParsePtpUnicastCancelTlv(tlv, &c));
  EXPECT_EQ(c.message_type, PtpMessageType::kAnnounce);
  // A cancel of nothing is acknowledged as well.
  EXPECT_EQ(Answer(Signaling(CancelTlv(PtpMessageType::kSync))).cancelled, 1);
}

TEST_F(NegotiationTest, NothingToDoForAcknowledgements) {
  Bytes ack(32);
  ack.resize(WritePtpUnicastCancelTlv(
      PtpTlvType::kAcknowledgeCancelUnicastTransmission,
      {PtpMessageType::kSync, 0}, ack));
  const PtpSignalingAnswer a = Answer(Signaling(ack));
  EXPECT_EQ(a.result, PtpSignalingResult::kNothingToDo);
  EXPECT_EQ(a.length, 0u);
  EXPECT_EQ(a.ignored, 1);
  EXPECT_EQ(Answer(Signaling({})).result, PtpSignalingResult::kNothingToDo);
  EXPECT_EQ(seq_, 100);
}

TEST_F(NegotiationTest, Addressing) {
  const Bytes tlv = RequestTlv(PtpMessageType::kAnnounce, 0, 300);
  EXPECT_EQ(Answer(Signaling(tlv, 0)).result, PtpSignalingResult::kWrongDomain);
  EXPECT_EQ(Answer(Signaling(tlv, 44, {kClientPort.clock_identity, 1})).result,
            PtpSignalingResult::kNotForUs);
  EXPECT_EQ(Answer(Signaling(tlv, 44, {kOurClock, 2})).result,
            PtpSignalingResult::kNotForUs);
  EXPECT_EQ(Answer(Signaling(tlv, 44, kOurPort)).result,
            PtpSignalingResult::kReplied);
  EXPECT_EQ(Answer(Signaling(tlv, 44, PtpPortIdentity::All())).result,
            PtpSignalingResult::kReplied);
  EXPECT_EQ(Answer(Signaling(tlv, 44, {kOurClock, kPtpAllPorts})).result,
            PtpSignalingResult::kReplied);
  EXPECT_EQ(Answer(Signaling(tlv, 44, {}, {kOurClock, 3})).result,
            PtpSignalingResult::kFromSelf);
}

TEST_F(NegotiationTest, MalformedIsDropped) {
  Bytes req = Signaling(RequestTlv(PtpMessageType::kSync, 0, 300));
  Bytes bad = req;
  bad[kPtpSignalingLength + 3] = 7;  // odd TLV length
  PtpSignalingAnswer a = Answer(bad);
  EXPECT_EQ(a.result, PtpSignalingResult::kMalformed);
  EXPECT_EQ(a.drop, PtpDrop::kBadTlv);
  a = Answer(Bytes(req.begin(), req.begin() + 20));
  EXPECT_EQ(a.drop, PtpDrop::kTruncated);
  Bytes sync = req;
  sync[0] = 0x00;  // messageType Sync
  EXPECT_EQ(Answer(sync).drop, PtpDrop::kWrongType);
  // A REQUEST for a type that cannot be negotiated is ignored, not answered.
  Bytes follow_up = RequestTlv(PtpMessageType::kSync, 0, 300);
  follow_up[4] = 0x80;
  a = Answer(Signaling(follow_up));
  EXPECT_EQ(a.result, PtpSignalingResult::kNothingToDo);
  EXPECT_EQ(a.ignored, 1);
}

TEST_F(NegotiationTest, AtMostEightTlvsAreAnswered) {
  Bytes tlvs;
  for (int i = 0; i < 20; ++i) {
    const Bytes t = RequestTlv(PtpMessageType::kSync, -4, 300);
    tlvs.insert(tlvs.end(), t.begin(), t.end());
  }
  const Bytes req = Signaling(tlvs);
  const PtpSignalingAnswer a = Answer(req);
  EXPECT_EQ(a.granted, 8);
  EXPECT_EQ(a.ignored, 12);
  EXPECT_EQ(a.length, kPtpSignalingLength + 8 * 12);
  EXPECT_LT(a.length, req.size());
}

TEST_F(NegotiationTest, ReplyInPlaceAndNoRoom) {
  Bytes buf = Signaling(Cat({RequestTlv(PtpMessageType::kAnnounce, 0, 300),
                             RequestTlv(PtpMessageType::kSync, 0, 300)}));
  const size_t req_len = buf.size();
  buf.resize(200, 0);
  const PtpSignalingAnswer a = AnswerPtpSignaling(std::span(buf).first(req_len),
                                                  ctx_, *svc_, &seq_, buf);
  ASSERT_EQ(a.result, PtpSignalingResult::kReplied);
  PtpMessage m;
  ASSERT_EQ(ParsePtpMessage(std::span(buf).first(a.length), &m), PtpDrop::kOk);
  out_ = buf;
  EXPECT_EQ(Grants(m).size(), 2u);

  Bytes small(50);
  const PtpSignalingAnswer b =
      AnswerPtpSignaling(Signaling(RequestTlv(PtpMessageType::kSync, 0, 300)),
                         ctx_, *svc_, &seq_, small);
  EXPECT_EQ(b.result, PtpSignalingResult::kNoRoom);
  EXPECT_EQ(b.length, 0u);
}

// The REQUEST messages ptp4l (linuxptp) sent in a real capture.
TEST_F(NegotiationTest, AnswersRealPtp4lRequests) {
  int answered = 0;
  absl::StatusOr<std::vector<Bytes>> msgs =
      testutil::Ptp4lFixtureMessages("ptp4l_unicast.pcap");
  ASSERT_TRUE(msgs.ok()) << msgs.status();
  for (const Bytes& msg : *msgs) {
    PtpHeader h;
    if (ParsePtpHeader(msg, &h) != PtpDrop::kOk ||
        h.message_type != PtpMessageType::kSignaling) {
      continue;
    }
    PtpTlv tlv;
    PtpMessage parsed;
    ASSERT_EQ(ParsePtpMessage(msg, &parsed), PtpDrop::kOk);
    if (!FindPtpTlv(parsed.tlvs, PtpTlvType::kRequestUnicastTransmission,
                    &tlv)) {
      continue;
    }
    ctx_.port.domain_number = h.domain_number;
    // Play the master of the capture once ptp4l has learnt its identity.
    const PtpPortIdentity target =
        std::get<PtpSignaling>(parsed.body).target_port_identity;
    if (target != PtpPortIdentity{}) ctx_.port.port_identity = target;
    const PtpSignalingAnswer a = Answer(msg);
    // The capture's requests ask for 10 s; G.8275.2 grants at least 60 s.
    ASSERT_EQ(a.result, PtpSignalingResult::kReplied)
        << PtpSignalingResultName(a.result);
    EXPECT_GE(a.granted + a.denied, 1);
    for (const PtpUnicastGrant& g : Grants(Reply(a))) {
      if (g.duration_s != 0) {
        EXPECT_EQ(g.duration_s, 60u);
      }
    }
    ++answered;
  }
  EXPECT_GT(answered, 0);
}

TEST_F(NegotiationTest, RepliesThatGrantNothingAreRateLimited) {
  PtpUnicastService::Config c;
  c.limits = DefaultPtpPortConfig(PtpProfileId::kG8275_2).grant_limits;
  c.capacity = 16;
  c.admission.refusal_replies_per_s = 1;  // burst: one
  svc_ = *PtpUnicastService::Create(c);
  svc_->Start(kNow);
  const Bytes refused = Signaling(RequestTlv(PtpMessageType::kSync, -9, 300));
  EXPECT_EQ(Answer(refused).result, PtpSignalingResult::kReplied);
  const PtpSignalingAnswer a = Answer(refused);
  EXPECT_EQ(a.result, PtpSignalingResult::kSilenced);
  EXPECT_EQ(a.length, 0u);
  EXPECT_EQ(a.denied, 1);  // decided all the same
  // A cancel acknowledgement grants nothing either.
  EXPECT_EQ(Answer(Signaling(CancelTlv(PtpMessageType::kSync))).result,
            PtpSignalingResult::kSilenced);
  // What grants is always answered.
  EXPECT_EQ(
      Answer(Signaling(RequestTlv(PtpMessageType::kSync, -4, 300))).result,
      PtpSignalingResult::kReplied);
  ctx_.now_mono_ns = kNow + kNanosPerSecond;
  EXPECT_EQ(Answer(refused).result, PtpSignalingResult::kReplied);
  EXPECT_EQ(svc_->stats().silenced, 2u);
  EXPECT_STREQ(PtpSignalingResultName(PtpSignalingResult::kSilenced),
               "silenced");
}

TEST(NegotiationNames, Names) {
  EXPECT_STREQ(PtpSignalingResultName(PtpSignalingResult::kNotForUs),
               "not_for_us");
  EXPECT_STREQ(PtpSignalingResultName(PtpSignalingResult::kReplied), "replied");
}

}  // namespace
}  // namespace ptp_negotiation_test
}  // namespace zg::core
