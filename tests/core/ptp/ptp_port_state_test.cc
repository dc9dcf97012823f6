// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_port_state.h"

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_port_state_test {
namespace {

constexpr int64_t kSec = kNanosPerSecond;
constexpr PtpClockIdentity kUs{
    {0x02, 0x00, 0x00, 0xFF, 0xFE, 0x00, 0x00, 0x10}};
constexpr PtpClockIdentity kPeer{
    {0x02, 0x00, 0x00, 0xFF, 0xFE, 0x00, 0x00, 0x20}};

PtpGrandmasterView Ours(uint8_t clock_class = 6) {
  PtpGrandmasterView gm;
  gm.identity = kUs;
  gm.quality = {clock_class, 0x21, 0x4E5D};
  return gm;
}

struct Foreign {
  PtpHeader header;
  PtpAnnounce announce;
};

Foreign PeerAnnounce(uint8_t clock_class, uint16_t seq,
                     PtpClockIdentity id = kPeer) {
  Foreign f;
  f.header.message_type = PtpMessageType::kAnnounce;
  f.header.source_port_identity = {id, 1};
  f.header.sequence_id = seq;
  f.announce.grandmaster_identity = id;
  f.announce.grandmaster_clock_quality = {clock_class, 0x21, 0x4E5D};
  return f;
}

class PortStateTest : public ::testing::Test {
 protected:
  PortStateTest()
      : config_(DefaultPtpPortConfig(PtpProfileId::kDefaultE2E)),
        sm_(config_, {kUs, 1}) {}
  // Default profile: announce interval 2 s, receipt timeout 3 -> 6 s.
  PtpPortConfig config_;
  PtpPortStateMachine sm_;
};

TEST_F(PortStateTest, ListensThenBecomesMaster) {
  EXPECT_EQ(sm_.state(), PtpPortState::kInitializing);
  EXPECT_EQ(sm_.Update(Ours(), 0).state, PtpPortState::kInitializing);
  sm_.Start(0);
  EXPECT_EQ(sm_.state(), PtpPortState::kListening);
  EXPECT_EQ(sm_.receipt_timeout_ns(), 6 * kSec);
  PtpStateDecision d = sm_.Update(Ours(), 5 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kListening);
  EXPECT_EQ(d.code, PtpDecisionCode::kListening);
  EXPECT_FALSE(d.changed);
  d = sm_.Update(Ours(), 6 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kMaster);
  EXPECT_EQ(d.code, PtpDecisionCode::kM1);  // class 6
  EXPECT_TRUE(d.changed);
  d = sm_.Update(Ours(248), 7 * kSec);
  EXPECT_EQ(d.code, PtpDecisionCode::kM2);
  EXPECT_FALSE(d.changed);
}

TEST_F(PortStateTest, BetterMasterMakesUsPassiveAndTimeoutBringsUsBack) {
  sm_.Start(0);
  sm_.Update(Ours(248), 6 * kSec);
  ASSERT_EQ(sm_.state(), PtpPortState::kMaster);
  // One Announce does not qualify a foreign master.
  Foreign f = PeerAnnounce(6, 1);
  EXPECT_EQ(sm_.OnAnnounce(f.header, f.announce, 10 * kSec),
            PtpAnnounceVerdict::kAccepted);
  EXPECT_EQ(sm_.Update(Ours(248), 10 * kSec).state, PtpPortState::kMaster);
  f = PeerAnnounce(6, 2);
  sm_.OnAnnounce(f.header, f.announce, 12 * kSec);
  PtpStateDecision d = sm_.Update(Ours(248), 12 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kPassive);
  EXPECT_EQ(d.code, PtpDecisionCode::kP2);
  EXPECT_TRUE(d.changed);
  ASSERT_NE(d.best, nullptr);
  EXPECT_EQ(d.best->dataset.gm_identity, kPeer);
  // Still passive just before the receipt timeout (6 s after the last).
  EXPECT_EQ(sm_.Update(Ours(248), 18 * kSec).state, PtpPortState::kPassive);
  // It stops: the record expires and we serve again.
  d = sm_.Update(Ours(248), 18 * kSec + 1);
  EXPECT_EQ(d.state, PtpPortState::kMaster);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(sm_.foreign_masters(), 0u);
  EXPECT_EQ(sm_.state_changes(), 4u);  // LISTENING, MASTER, PASSIVE, MASTER
}

// Link down: FAULTY, whatever is heard or announced, the foreign masters
// forgotten; link up: LISTENING for a whole receipt timeout, then MASTER.
TEST_F(PortStateTest, FaultHoldsFaultyAndClearingListensAgain) {
  sm_.SetFault(true, 0);  // before Start: nothing
  EXPECT_EQ(sm_.state(), PtpPortState::kInitializing);
  sm_.Start(0);
  sm_.Update(Ours(), 6 * kSec);
  ASSERT_EQ(sm_.state(), PtpPortState::kMaster);
  Foreign f = PeerAnnounce(248, 1);
  sm_.OnAnnounce(f.header, f.announce, 7 * kSec);
  ASSERT_EQ(sm_.foreign_masters(), 1u);
  sm_.SetFault(true, 8 * kSec);
  EXPECT_EQ(sm_.state(), PtpPortState::kFaulty);
  EXPECT_EQ(sm_.code(), PtpDecisionCode::kFault);
  EXPECT_EQ(sm_.foreign_masters(), 0u);
  sm_.SetFault(true, 9 * kSec);  // still down: no new change
  PtpStateDecision d = sm_.Update(Ours(), 30 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kFaulty);
  EXPECT_FALSE(d.changed);
  sm_.SetFault(false, 40 * kSec);
  EXPECT_EQ(sm_.state(), PtpPortState::kListening);
  EXPECT_EQ(sm_.Update(Ours(), 45 * kSec).state, PtpPortState::kListening);
  d = sm_.Update(Ours(), 46 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kMaster);
  EXPECT_TRUE(d.changed);
  // LISTENING, MASTER, FAULTY, LISTENING, MASTER
  EXPECT_EQ(sm_.state_changes(), 5u);
  EXPECT_STREQ(PtpDecisionCodeName(PtpDecisionCode::kFault), "fault");
}

TEST_F(PortStateTest, WorseMasterEndsListeningEarly) {
  sm_.Start(0);
  Foreign f = PeerAnnounce(248, 1);
  sm_.OnAnnounce(f.header, f.announce, kSec);
  f = PeerAnnounce(248, 2);
  sm_.OnAnnounce(f.header, f.announce, 2 * kSec);
  const PtpStateDecision d = sm_.Update(Ours(6), 2 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kMaster);
  EXPECT_EQ(d.code, PtpDecisionCode::kM1);
}

TEST_F(PortStateTest, BetterMasterWhileListeningGivesP1) {
  sm_.Start(0);
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(6, s);
    f.announce.grandmaster_priority1 = 10;
    sm_.OnAnnounce(f.header, f.announce, s * kSec);
  }
  const PtpStateDecision d = sm_.Update(Ours(6), 2 * kSec);
  EXPECT_EQ(d.state, PtpPortState::kPassive);
  EXPECT_EQ(d.code, PtpDecisionCode::kP1);
}

TEST_F(PortStateTest, OurQualityChangeFlipsTheDecision) {
  sm_.Start(0);
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(7, s);
    sm_.OnAnnounce(f.header, f.announce, s * kSec);
  }
  EXPECT_EQ(sm_.Update(Ours(6), 2 * kSec).state, PtpPortState::kMaster);
  EXPECT_EQ(sm_.Update(Ours(248), 3 * kSec).state, PtpPortState::kPassive);
  EXPECT_EQ(sm_.Update(Ours(6), 4 * kSec).state, PtpPortState::kMaster);
}

TEST_F(PortStateTest, EqualQualityLowerIdentityWins) {
  sm_.Start(0);
  // The peer's identity (..20) is higher than ours (..10): we stay master.
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(6, s);
    sm_.OnAnnounce(f.header, f.announce, s * kSec);
  }
  EXPECT_EQ(sm_.Update(Ours(6), 2 * kSec).state, PtpPortState::kMaster);
  // A peer with a lower identity wins.
  constexpr PtpClockIdentity kLow{{0x01, 0, 0, 0xFF, 0xFE, 0, 0, 1}};
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(6, s, kLow);
    sm_.OnAnnounce(f.header, f.announce, (2 + s) * kSec);
  }
  EXPECT_EQ(sm_.Update(Ours(6), 4 * kSec).state, PtpPortState::kPassive);
}

TEST_F(PortStateTest, QualificationNeedsTwoDistinctAnnouncesInTheWindow) {
  sm_.Start(0);
  // The same sequenceId twice (e.g. received over two transports).
  Foreign f = PeerAnnounce(6, 5);
  sm_.OnAnnounce(f.header, f.announce, kSec);
  sm_.OnAnnounce(f.header, f.announce, 2 * kSec);
  EXPECT_EQ(sm_.Update(Ours(248), 2 * kSec).state, PtpPortState::kListening);
  // A second distinct one 9 s after the first: the pair lies outside the
  // window (4 intervals = 8 s), so still not qualified.
  f = PeerAnnounce(6, 6);
  sm_.OnAnnounce(f.header, f.announce, 11 * kSec);
  EXPECT_EQ(sm_.Update(Ours(248), 11 * kSec).state, PtpPortState::kMaster);
  f = PeerAnnounce(6, 7);
  sm_.OnAnnounce(f.header, f.announce, 13 * kSec);
  EXPECT_EQ(sm_.Update(Ours(248), 13 * kSec).state, PtpPortState::kPassive);
}

TEST_F(PortStateTest, IgnoresOwnAndFarAnnounces) {
  sm_.Start(0);
  Foreign self = PeerAnnounce(0, 1, kUs);
  EXPECT_EQ(sm_.OnAnnounce(self.header, self.announce, kSec),
            PtpAnnounceVerdict::kFromSelf);
  Foreign far = PeerAnnounce(6, 1);
  far.announce.steps_removed = 255;
  EXPECT_EQ(sm_.OnAnnounce(far.header, far.announce, kSec),
            PtpAnnounceVerdict::kStepsRemovedLimit);
  EXPECT_EQ(sm_.foreign_masters(), 0u);
}

TEST_F(PortStateTest, OurGrandmasterRelayedBackLosesByTopology) {
  sm_.Start(0);
  // A boundary clock one step away relays our own grandmaster.
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(6, s);
    f.announce.grandmaster_identity = kUs;
    f.announce.steps_removed = 1;
    sm_.OnAnnounce(f.header, f.announce, s * kSec);
  }
  EXPECT_EQ(sm_.Update(Ours(6), 2 * kSec).state, PtpPortState::kMaster);
}

TEST_F(PortStateTest, FullTableEvictsTheStalest) {
  sm_.Start(0);
  for (size_t i = 0; i < kPtpMaxForeignMasters; ++i) {
    PtpClockIdentity id = kPeer;
    id.octets[6] = static_cast<uint8_t>(i + 1);
    Foreign f = PeerAnnounce(248, 1, id);
    EXPECT_EQ(sm_.OnAnnounce(f.header, f.announce,
                             static_cast<int64_t>(i + 1) * 1000),
              PtpAnnounceVerdict::kAccepted);
  }
  EXPECT_EQ(sm_.foreign_masters(), kPtpMaxForeignMasters);
  Foreign f = PeerAnnounce(248, 1, kPeer);
  EXPECT_EQ(sm_.OnAnnounce(f.header, f.announce, kSec),
            PtpAnnounceVerdict::kEvicted);
  EXPECT_EQ(sm_.foreign_masters(), kPtpMaxForeignMasters);
}

TEST(PortStateG8275, LocalPriorityDecides) {
  PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  config.port_local_priority = 200;  // given to the peer's dataset
  PtpPortStateMachine sm(config, {kUs, 1});
  sm.Start(0);
  for (uint16_t s = 1; s <= 2; ++s) {
    Foreign f = PeerAnnounce(6, s);
    sm.OnAnnounce(f.header, f.announce, s * kSec / 2);
  }
  PtpGrandmasterView gm = Ours(6);
  gm.local_priority = 100;
  EXPECT_EQ(sm.Update(gm, kSec).state, PtpPortState::kMaster);
  gm.local_priority = 250;
  EXPECT_EQ(sm.Update(gm, kSec).state, PtpPortState::kPassive);
}

TEST(PortStateNames, Names) {
  EXPECT_STREQ(PtpPortStateName(PtpPortState::kPassive), "PASSIVE");
  EXPECT_STREQ(PtpPortStateName(PtpPortState::kMaster), "MASTER");
  EXPECT_STREQ(PtpDecisionCodeName(PtpDecisionCode::kP2), "P2");
  EXPECT_STREQ(PtpAnnounceVerdictName(PtpAnnounceVerdict::kFromSelf),
               "from_self");
}

}  // namespace
}  // namespace ptp_port_state_test
}  // namespace zg::core
