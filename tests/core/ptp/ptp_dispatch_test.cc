// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_dispatch.h"

#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_dispatch_test {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr PtpClockIdentity kUs{{0x02, 0, 0, 0xFF, 0xFE, 0, 0, 1}};
constexpr PtpClockIdentity kClient{{0x04, 0, 0, 0xFF, 0xFE, 0, 0, 2}};

Bytes Message(PtpMessageType type, uint8_t domain = 0,
              PtpClockIdentity from = kClient) {
  PtpMessage m;
  m.header.domain_number = domain;
  m.header.source_port_identity = {from, 1};
  switch (type) {
    case PtpMessageType::kSync:
      m.body = PtpSync{};
      break;
    case PtpMessageType::kDelayReq:
      m.body = PtpDelayReq{};
      break;
    case PtpMessageType::kPdelayReq:
      m.body = PtpPdelayReq{};
      break;
    case PtpMessageType::kPdelayResp:
      m.body = PtpPdelayResp{};
      break;
    case PtpMessageType::kFollowUp:
      m.body = PtpFollowUp{};
      break;
    case PtpMessageType::kDelayResp:
      m.body = PtpDelayResp{};
      break;
    case PtpMessageType::kPdelayRespFollowUp:
      m.body = PtpPdelayRespFollowUp{};
      break;
    case PtpMessageType::kAnnounce:
      m.body = PtpAnnounce{};
      break;
    case PtpMessageType::kSignaling:
      m.body = PtpSignaling{};
      break;
    case PtpMessageType::kManagement:
      m.body = PtpManagement{};
      break;
  }
  Bytes out(128);
  out.resize(SerializePtpMessage(m, out));
  return out;
}

class DispatchTest : public ::testing::Test {
 protected:
  PtpRxDecision Decide(const Bytes& b) { return DecidePtpRx(b, ctx_); }
  PtpRxDecision Event(PtpMessageType t) {
    ctx_.event_port = true;
    return Decide(Message(t));
  }
  PtpRxDecision General(PtpMessageType t) {
    ctx_.event_port = false;
    return Decide(Message(t));
  }
  PtpPortConfig config_ = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  PtpRxContext ctx_{&config_, PtpPortState::kMaster,         kUs,
                    false,    PtpUnicastTransport::kUdpIpv4, true};
};

TEST_F(DispatchTest, MasterAnswersDelayReqAndHandsOnTheRest) {
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).action,
            PtpRxAction::kAnswerDelayReq);
  EXPECT_EQ(General(PtpMessageType::kAnnounce).action, PtpRxAction::kAnnounce);
  EXPECT_EQ(General(PtpMessageType::kManagement).action,
            PtpRxAction::kManagement);
  const PtpRxDecision d = General(PtpMessageType::kSignaling);
  EXPECT_EQ(d.drop, PtpPortDrop::kNegotiationOff);
  config_.unicast_negotiation = true;
  EXPECT_EQ(General(PtpMessageType::kSignaling).action,
            PtpRxAction::kSignaling);
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).header.message_type,
            PtpMessageType::kDelayReq);
}

TEST_F(DispatchTest, UnexpectedTypes) {
  for (PtpMessageType t :
       {PtpMessageType::kSync, PtpMessageType::kPdelayResp}) {
    EXPECT_EQ(Event(t).drop, PtpPortDrop::kUnexpectedType);
  }
  for (PtpMessageType t :
       {PtpMessageType::kFollowUp, PtpMessageType::kDelayResp,
        PtpMessageType::kPdelayRespFollowUp}) {
    EXPECT_EQ(General(t).drop, PtpPortDrop::kUnexpectedType);
  }
}

TEST_F(DispatchTest, WrongPortDomainSelfTransport) {
  EXPECT_EQ(General(PtpMessageType::kDelayReq).drop,
            PtpPortDrop::kWrongUdpPort);
  EXPECT_EQ(Event(PtpMessageType::kAnnounce).drop, PtpPortDrop::kWrongUdpPort);
  ctx_.event_port = true;
  EXPECT_EQ(Decide(Message(PtpMessageType::kDelayReq, 5)).drop,
            PtpPortDrop::kWrongDomain);
  EXPECT_EQ(Decide(Message(PtpMessageType::kDelayReq, 0, kUs)).drop,
            PtpPortDrop::kFromSelf);
  ctx_.transport = PtpUnicastTransport::kL2;
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).drop,
            PtpPortDrop::kWrongTransport);
  config_.transports |= kPtpTransportL2;
  // Layer 2 has no event/general port distinction.
  EXPECT_EQ(General(PtpMessageType::kDelayReq).action,
            PtpRxAction::kAnswerDelayReq);
  Bytes sdo = Message(PtpMessageType::kAnnounce);
  sdo[0] |= 0x10;  // majorSdoId 1 (802.1AS)
  EXPECT_EQ(Decide(sdo).drop, PtpPortDrop::kWrongDomain);
}

TEST_F(DispatchTest, Malformed) {
  Bytes b = Message(PtpMessageType::kDelayReq);
  b[1] = 0x01;  // versionPTP 1
  const PtpRxDecision d = Decide(b);
  EXPECT_EQ(d.drop, PtpPortDrop::kMalformed);
  EXPECT_EQ(d.parse, PtpDrop::kBadVersion);
  EXPECT_EQ(Decide(Bytes(10, 0)).parse, PtpDrop::kTruncated);
}

TEST_F(DispatchTest, StateAndProfileRules) {
  ctx_.state = PtpPortState::kPassive;
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).drop, PtpPortDrop::kNotMaster);
  ctx_.state = PtpPortState::kListening;
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).drop, PtpPortDrop::kNotMaster);
  EXPECT_EQ(General(PtpMessageType::kAnnounce).action, PtpRxAction::kAnnounce);
  ctx_.state = PtpPortState::kMaster;
  EXPECT_EQ(Event(PtpMessageType::kPdelayReq).drop,
            PtpPortDrop::kWrongDelayMechanism);

  // G.8275.2: unicast Delay_Req only.
  config_ = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  ctx_.event_port = true;
  EXPECT_EQ(Decide(Message(PtpMessageType::kDelayReq, 44)).drop,
            PtpPortDrop::kMulticastNotServed);
  ctx_.unicast = true;
  EXPECT_EQ(Decide(Message(PtpMessageType::kDelayReq, 44)).action,
            PtpRxAction::kAnswerDelayReq);

  // P2P: Pdelay answered even when PASSIVE; Delay_Req is not.
  config_ = DefaultPtpPortConfig(PtpProfileId::kDefaultP2P);
  ctx_.state = PtpPortState::kPassive;
  EXPECT_EQ(Event(PtpMessageType::kPdelayReq).action,
            PtpRxAction::kAnswerPdelayReq);
  EXPECT_EQ(Event(PtpMessageType::kDelayReq).drop,
            PtpPortDrop::kWrongDelayMechanism);
  ctx_.state = PtpPortState::kInitializing;
  EXPECT_EQ(Event(PtpMessageType::kPdelayReq).drop, PtpPortDrop::kNotMaster);
}

TEST(DispatchNames, EveryDropHasAName) {
  for (size_t i = 0; i < kPtpPortDropCount; ++i) {
    EXPECT_STRNE(PtpPortDropName(static_cast<PtpPortDrop>(i)), "unknown");
  }
  EXPECT_STREQ(PtpPortDropName(PtpPortDrop::kNoGrant), "no_grant");
}

}  // namespace
}  // namespace ptp_dispatch_test
}  // namespace zg::core
