// SPDX-License-Identifier: Apache-2.0
// The PTP wire format (core/ptp/ptp_wire.h): parsing and serialising every
// message type against hand-assembled known answers, header fields and
// flags, every drop reason, and every message of the ptp4l/pmc fixtures
// re-serialised byte for byte. The in-place replies are in
// ptp_wire_reply_test.cc.
#include "core/ptp/ptp_wire.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ptp/ptp_fields.h"
#include "core/ptp/ptp_tlv.h"
#include "gtest/gtest.h"
#include "tests/core/ptp/ptp_wire_test_util.h"
#include "tests/util/pcap_frames.h"

namespace zg::core::testing {
namespace ptp_wire_test {
namespace {

constexpr PtpPortIdentity kRequestingPort{
    {{0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11}}, 0x0203};
const Bytes kRequestingPortBytes = {0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
                                    0x0F, 0x10, 0x11, 0x02, 0x03};

PtpHeader Header(PtpMessageType type, uint16_t length, uint16_t flags,
                 uint8_t control, int8_t interval) {
  PtpHeader h;
  h.message_type = type;
  h.minor_version = 1;
  h.message_length = length;
  h.domain_number = 24;
  h.flags.bits = flags;
  h.correction = PtpCorrection{0x18000};
  h.source_port_identity = kSourcePort;
  h.sequence_id = 0x1234;
  h.control_field = control;
  h.log_message_interval = interval;
  return h;
}

// Serialises `m` and compares with the hand-assembled `bytes`, then parses
// the bytes back to `m`.
void ExpectKnownAnswer(const PtpMessage& m, const Bytes& bytes) {
  Bytes out(bytes.size() + 16, 0xEE);
  ASSERT_EQ(SerializePtpMessage(m, out), bytes.size());
  out.resize(bytes.size());
  EXPECT_EQ(out, bytes);
  PtpMessage parsed;
  ASSERT_EQ(ParsePtpMessage(bytes, &parsed), PtpDrop::kOk);
  EXPECT_TRUE(parsed == m);
}

TEST(PtpWireTest, SyncKnownAnswer) {
  PtpMessage m{
      Header(PtpMessageType::kSync, 44, 0x0400, 0, -4), PtpSync{kTs1}, {}};
  ExpectKnownAnswer(
      m, Cat(HeaderBytes(0x00, 0x12, 44, 0x04, 0x00, 0, 0xFC), kTs1Bytes));
}

TEST(PtpWireTest, DelayReqKnownAnswer) {
  PtpMessage m{
      Header(PtpMessageType::kDelayReq, 44, 0, 1, 0x7F), PtpDelayReq{kTs1}, {}};
  ExpectKnownAnswer(m,
                    Cat(HeaderBytes(0x01, 0x12, 44, 0, 0, 1, 0x7F), kTs1Bytes));
}

TEST(PtpWireTest, PdelayReqKnownAnswer) {
  PtpMessage m{
      Header(PtpMessageType::kPdelayReq, 54, 0, 5, 0), PtpPdelayReq{kTs1}, {}};
  ExpectKnownAnswer(m,
                    Cat(Cat(HeaderBytes(0x02, 0x12, 54, 0, 0, 5, 0), kTs1Bytes),
                        Bytes(10, 0x00)));
}

TEST(PtpWireTest, PdelayRespKnownAnswer) {
  PtpMessage m{Header(PtpMessageType::kPdelayResp, 54, 0x0200, 5, 0x7F),
               PtpPdelayResp{kTs1, kRequestingPort},
               {}};
  ExpectKnownAnswer(
      m, Cat(Cat(HeaderBytes(0x03, 0x12, 54, 0x02, 0, 5, 0x7F), kTs1Bytes),
             kRequestingPortBytes));
}

TEST(PtpWireTest, FollowUpKnownAnswer) {
  PtpMessage m{
      Header(PtpMessageType::kFollowUp, 44, 0, 2, 0), PtpFollowUp{kTs1}, {}};
  ExpectKnownAnswer(m, Cat(HeaderBytes(0x08, 0x12, 44, 0, 0, 2, 0), kTs1Bytes));
}

TEST(PtpWireTest, DelayRespKnownAnswer) {
  PtpMessage m{Header(PtpMessageType::kDelayResp, 54, 0, 3, -2),
               PtpDelayResp{kTs1, kRequestingPort},
               {}};
  ExpectKnownAnswer(
      m, Cat(Cat(HeaderBytes(0x09, 0x12, 54, 0, 0, 3, 0xFE), kTs1Bytes),
             kRequestingPortBytes));
}

TEST(PtpWireTest, PdelayRespFollowUpKnownAnswer) {
  PtpMessage m{Header(PtpMessageType::kPdelayRespFollowUp, 54, 0, 5, 0x7F),
               PtpPdelayRespFollowUp{kTs1, kRequestingPort},
               {}};
  ExpectKnownAnswer(
      m, Cat(Cat(HeaderBytes(0x0A, 0x12, 54, 0, 0, 5, 0x7F), kTs1Bytes),
             kRequestingPortBytes));
}

TEST(PtpWireTest, AnnounceKnownAnswer) {
  PtpAnnounce a;
  a.origin_timestamp = kTs1;
  a.current_utc_offset = 37;
  a.grandmaster_priority1 = 1;
  a.grandmaster_clock_quality = {6, 0x21, 0x4E5D};
  a.grandmaster_priority2 = 128;
  a.grandmaster_identity = kSourceClock;
  a.steps_removed = 0;
  a.time_source = PtpTimeSource::kGnss;
  // UTCV | PTP | TTRA | FTRA.
  PtpMessage m{Header(PtpMessageType::kAnnounce, 64, 0x003C, 5, 1), a, {}};
  const Bytes body = {0x00, 0x25, 0x00, 0x01, 0x06, 0x21, 0x4E,
                      0x5D, 0x80, 0x00, 0x11, 0x22, 0xFF, 0xFE,
                      0x33, 0x44, 0x55, 0x00, 0x00, 0x20};
  ExpectKnownAnswer(
      m,
      Cat(Cat(HeaderBytes(0x0B, 0x12, 64, 0x00, 0x3C, 5, 1), kTs1Bytes), body));
}

TEST(PtpWireTest, SignalingKnownAnswer) {
  // REQUEST_UNICAST_TRANSMISSION: Announce, logInterMessagePeriod 1, 60 s.
  const Bytes tlv = {0x00, 0x04, 0x00, 0x06, 0xB0,
                     0x01, 0x00, 0x00, 0x00, 0x3C};
  PtpMessage m{Header(PtpMessageType::kSignaling, 54, 0x0400, 5, 0x7F),
               PtpSignaling{PtpPortIdentity::All()}, tlv};
  ExpectKnownAnswer(m, Cat(Cat(HeaderBytes(0x0C, 0x12, 54, 0x04, 0, 5, 0x7F),
                               Bytes(10, 0xFF)),
                           tlv));
}

TEST(PtpWireTest, ManagementKnownAnswer) {
  // GET DEFAULT_DATA_SET with an empty dataField.
  const Bytes tlv = {0x00, 0x01, 0x00, 0x02, 0x20, 0x00};
  PtpMessage m{
      Header(PtpMessageType::kManagement, 54, 0, 4, 0x7F),
      PtpManagement{PtpPortIdentity::All(), 1, 1, PtpManagementAction::kGet},
      tlv};
  ExpectKnownAnswer(
      m, Cat(Cat(HeaderBytes(0x0D, 0x12, 54, 0, 0, 4, 0x7F), Bytes(10, 0xFF)),
             Cat({0x01, 0x01, 0x00, 0x00}, tlv)));
}

TEST(PtpWireTest, Version21HeaderFields) {
  Bytes b = Cat(HeaderBytes(0x18, 0x12, 44, 0, 0, 2, 0), kTs1Bytes);
  b[5] = 0x42;  // minorSdoId
  b[16] = 0xDE, b[17] = 0xAD, b[18] = 0xBE,
  b[19] = 0xEF;  // messageTypeSpecific
  PtpHeader h;
  ASSERT_EQ(ParsePtpHeader(b, &h), PtpDrop::kOk);
  EXPECT_EQ(h.major_sdo_id, 1);
  EXPECT_EQ(h.message_type, PtpMessageType::kFollowUp);
  EXPECT_EQ(h.minor_version, 1);
  EXPECT_EQ(h.version, 2);
  EXPECT_EQ(h.minor_sdo_id, 0x42);
  EXPECT_EQ(h.sdo_id(), 0x142);
  EXPECT_EQ(h.message_type_specific, 0xDEADBEEFu);
  EXPECT_EQ(h.correction.Nanos(), 1);
  EXPECT_EQ(h.correction.scaled_ns, 0x18000);
  EXPECT_EQ(h.source_port_identity, kSourcePort);
  EXPECT_EQ(h.sequence_id, 0x1234);
}

TEST(PtpWireTest, EveryFlagBitIsWhereTable37PutsIt) {
  struct Case {
    PtpFlag flag;
    int octet;
    uint8_t bit;
  } cases[] = {
      {PtpFlag::kAlternateMaster, 0, 0x01},
      {PtpFlag::kTwoStep, 0, 0x02},
      {PtpFlag::kUnicast, 0, 0x04},
      {PtpFlag::kProfileSpecific1, 0, 0x20},
      {PtpFlag::kProfileSpecific2, 0, 0x40},
      {PtpFlag::kLeap61, 1, 0x01},
      {PtpFlag::kLeap59, 1, 0x02},
      {PtpFlag::kCurrentUtcOffsetValid, 1, 0x04},
      {PtpFlag::kPtpTimescale, 1, 0x08},
      {PtpFlag::kTimeTraceable, 1, 0x10},
      {PtpFlag::kFrequencyTraceable, 1, 0x20},
      {PtpFlag::kSynchronizationUncertain, 1, 0x40},
  };
  for (const Case& c : cases) {
    Bytes b = Cat(HeaderBytes(0x0B, 0x12, 64, 0, 0, 5, 1), Bytes(30, 0));
    b[6 + c.octet] = c.bit;
    PtpHeader h;
    ASSERT_EQ(ParsePtpHeader(b, &h), PtpDrop::kOk);
    for (const Case& other : cases) {
      EXPECT_EQ(h.flags.Has(other.flag), other.flag == c.flag)
          << "octet " << c.octet << " bit " << int(c.bit);
    }
    // And back: a message with only this flag set writes only this bit.
    PtpMessage m;
    ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
    m.header.flags = PtpFlags{}.Set(c.flag);
    Bytes out(64);
    ASSERT_EQ(SerializePtpMessage(m, out), 64u);
    EXPECT_EQ(out, b);
  }
  // Reserved bits survive a round trip.
  Bytes b = Cat(HeaderBytes(0x00, 0x12, 44, 0x98, 0x80, 0, 0), kTs1Bytes);
  PtpMessage m;
  ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
  Bytes out(44);
  ASSERT_EQ(SerializePtpMessage(m, out), 44u);
  EXPECT_EQ(out, b);
  PtpFlags f;
  f.Set(PtpFlag::kTwoStep).Set(PtpFlag::kUnicast).Set(PtpFlag::kTwoStep, false);
  EXPECT_EQ(f.bits, 0x0400);
}

TEST(PtpWireTest, AcceptsVersion2And21RejectsOthers) {
  for (uint8_t minor = 0; minor < 16; ++minor) {
    const Bytes b = Cat(
        HeaderBytes(0x00, uint8_t(minor << 4 | 2), 44, 0, 0, 0, 0), kTs1Bytes);
    PtpMessage m;
    ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk) << int(minor);
    EXPECT_EQ(m.header.minor_version, minor);
  }
  for (uint8_t v : {0x01, 0x03, 0x00, 0x0F, 0x11}) {
    const Bytes b = Cat(HeaderBytes(0x00, v, 44, 0, 0, 0, 0), kTs1Bytes);
    PtpHeader h;
    EXPECT_EQ(ParsePtpHeader(b, &h), PtpDrop::kBadVersion) << int(v);
  }
}

TEST(PtpWireTest, EveryDropReason) {
  const Bytes sync = Cat(HeaderBytes(0x00, 0x12, 44, 0, 0, 0, 0), kTs1Bytes);
  PtpMessage m;
  EXPECT_EQ(ParsePtpMessage(sync, &m), PtpDrop::kOk);
  // kTruncated: every length short of the header.
  for (size_t n = 0; n < kPtpHeaderLength; ++n) {
    EXPECT_EQ(ParsePtpMessage(std::span(sync).first(n), &m),
              PtpDrop::kTruncated);
  }
  // kBadVersion.
  Bytes b = sync;
  b[1] = 0x11;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kBadVersion);
  // kUnknownType: the six reserved nibbles.
  for (uint8_t t : {4, 5, 6, 7, 0xE, 0xF}) {
    b = sync;
    b[0] = t;
    EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kUnknownType) << int(t);
  }
  // kLengthBeyondBuffer: messageLength one more than arrived.
  b = sync;
  b[3] = 45;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kLengthBeyondBuffer);
  EXPECT_EQ(ParsePtpMessage(std::span(sync).first(43), &m),
            PtpDrop::kLengthBeyondBuffer);
  // kLengthBelowMinimum: every type, messageLength one short of its minimum.
  for (uint8_t t : {0, 1, 2, 3, 8, 9, 0xA, 0xB, 0xC, 0xD}) {
    const size_t fixed = PtpFixedLength(static_cast<PtpMessageType>(t));
    b = Cat(HeaderBytes(t, 0x12, uint16_t(fixed - 1), 0, 0, 0, 0),
            Bytes(fixed - kPtpHeaderLength, 0));
    EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kLengthBelowMinimum) << int(t);
    b[3] = uint8_t(fixed);
    EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk) << int(t);
  }
  // kBadTimestamp: nanoseconds = 1e9 (0x3B9ACA00).
  b = sync;
  b[40] = 0x3B, b[41] = 0x9A, b[42] = 0xCA, b[43] = 0x00;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kBadTimestamp);
  b[43] = 0xFF;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kBadTimestamp);
  b[40] = 0x3B, b[41] = 0x9A, b[42] = 0xC9, b[43] = 0xFF;  // 999999999
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
  // kBadTlv: two stray octets inside messageLength.
  b = Cat(sync, {0x00, 0x03});
  b[3] = 46;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kBadTlv);
  // kBadAction: management actionField 5..15.
  const Bytes mgmt =
      Cat(Cat(HeaderBytes(0x0D, 0x12, 54, 0, 0, 4, 0x7F), Bytes(10, 0xFF)),
          {0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x20, 0x00});
  EXPECT_EQ(ParsePtpMessage(mgmt, &m), PtpDrop::kOk);
  for (uint8_t action = 5; action < 16; ++action) {
    b = mgmt;
    b[46] = action;
    EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kBadAction) << int(action);
  }
  // Reserved high nibble of actionField is ignored.
  b = mgmt;
  b[46] = 0xF2;
  ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
  EXPECT_EQ(std::get<PtpManagement>(m.body).action,
            PtpManagementAction::kResponse);
}

TEST(PtpWireTest, DropNamesAreDistinct) {
  std::vector<std::string> names;
  for (size_t i = 0; i < static_cast<size_t>(PtpDrop::kCount); ++i) {
    const std::string name = PtpDropName(static_cast<PtpDrop>(i));
    EXPECT_NE(name, "unknown");
    for (const std::string& other : names) EXPECT_NE(name, other);
    names.push_back(name);
  }
  EXPECT_STREQ(PtpDropName(PtpDrop::kBadTlv), "bad_tlv");
}

TEST(PtpWireTest, MaliciousTlvLengthsInsideMessages) {
  const Bytes sync = Cat(HeaderBytes(0x00, 0x12, 44, 0, 0, 0, 0), kTs1Bytes);
  struct Case {
    Bytes tlvs;
    PtpDrop want;
  } cases[] = {
      {{0x00, 0x03, 0x00, 0x00}, PtpDrop::kOk},  // empty value is fine
      {{0x00, 0x03, 0x00, 0x02, 0xAA, 0xBB}, PtpDrop::kOk},
      {{0x00, 0x03, 0x00, 0x01, 0xAA, 0x00}, PtpDrop::kBadTlv},  // odd
      {{0x00, 0x03, 0x00, 0x04, 0xAA, 0xBB}, PtpDrop::kBadTlv},  // past end
      {{0x00, 0x03, 0xFF, 0xFE, 0xAA, 0xBB}, PtpDrop::kBadTlv},  // 65534
      {{0x00, 0x03, 0xFF, 0xFF}, PtpDrop::kBadTlv},
      {{0x00, 0x03, 0x00, 0x00, 0x00}, PtpDrop::kBadTlv},  // 1 stray octet
      {{0x00, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00}, PtpDrop::kBadTlv},
  };
  for (const Case& c : cases) {
    Bytes b = Cat(sync, c.tlvs);
    b[2] = uint8_t(b.size() >> 8), b[3] = uint8_t(b.size());
    PtpMessage m;
    EXPECT_EQ(ParsePtpMessage(b, &m), c.want) << b.size();
    // The TLV area ends at messageLength, not at the buffer: the same bytes
    // past messageLength are padding and ignored.
    Bytes padded = Cat(sync, c.tlvs);
    ASSERT_EQ(ParsePtpMessage(padded, &m), PtpDrop::kOk);
    EXPECT_TRUE(m.tlvs.empty());
  }
}

TEST(PtpWireTest, RoundTripsEveryType) {
  const Bytes tlvs = {0x00, 0x08, 0x00, 0x08, 1,    2,    3,    4,    5,
                      6,    7,    8,    0x80, 0x08, 0x00, 0x02, 0x00, 0x00};
  PtpAnnounce announce;
  announce.origin_timestamp = {kPtpSecondsMask, 999'999'999};
  announce.current_utc_offset = -5;
  announce.time_source = static_cast<PtpTimeSource>(0xFE);
  const PtpBody bodies[] = {
      PtpSync{kTs1},
      PtpDelayReq{{0, 0}},
      PtpPdelayReq{kTs1},
      PtpPdelayResp{kTs1, kRequestingPort},
      PtpFollowUp{{kPtpSecondsMask, 0}},
      PtpDelayResp{kTs1, PtpPortIdentity::All()},
      PtpPdelayRespFollowUp{kTs1, kRequestingPort},
      announce,
      PtpSignaling{kRequestingPort},
      PtpManagement{kRequestingPort, 7, 3, PtpManagementAction::kCommand},
  };
  for (const PtpBody& body : bodies) {
    for (bool with_tlvs : {false, true}) {
      PtpMessage m;
      m.body = body;
      m.header.major_sdo_id = 0xF;
      m.header.message_type = PtpBodyType(body);
      m.header.minor_version = 0xF;
      m.header.domain_number = 0xFF;
      m.header.minor_sdo_id = 0xFF;
      m.header.flags.bits = 0xFFFF;
      m.header.correction = PtpCorrection::FromNanos(-123456789);
      m.header.message_type_specific = 0xFFFFFFFF;
      m.header.source_port_identity = PtpPortIdentity::All();
      m.header.sequence_id = 0xFFFF;
      m.header.control_field = 0xFF;
      m.header.log_message_interval = -128;
      if (with_tlvs) m.tlvs = tlvs;
      m.header.message_length = static_cast<uint16_t>(
          PtpFixedLength(m.header.message_type) + m.tlvs.size());
      Bytes out(200);
      const size_t n = SerializePtpMessage(m, out);
      ASSERT_EQ(n, m.header.message_length);
      PtpMessage back;
      ASSERT_EQ(ParsePtpMessage(std::span(out).first(n), &back), PtpDrop::kOk);
      EXPECT_TRUE(back == m) << PtpMessageTypeName(m.header.message_type);
      // Every shorter buffer is refused, untouched past its end.
      for (size_t cap = 0; cap < n; ++cap) {
        Bytes small(cap + 1, 0xEE);
        EXPECT_EQ(SerializePtpMessage(m, std::span(small).first(cap)), 0u);
        EXPECT_EQ(small[cap], 0xEE);
      }
    }
  }
}

TEST(PtpWireTest, SerializeRefusesInvalidMessages) {
  PtpMessage m{Header(PtpMessageType::kSync, 44, 0, 0, 0), PtpSync{kTs1}, {}};
  Bytes out(100);
  ASSERT_EQ(SerializePtpMessage(m, out), 44u);
  PtpMessage bad = m;
  bad.body = PtpSync{{kPtpSecondsMask + 1, 0}};
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad.body = PtpSync{{0, 1'000'000'000}};
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad = m;
  bad.header.version = 1;
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad = m;
  bad.header.major_sdo_id = 16;
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad = m;
  bad.header.minor_version = 16;
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad = m;
  const Bytes odd_tlv = {0x00, 0x03, 0x00, 0x01, 0xAA};
  bad.tlvs = odd_tlv;
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  bad = m;
  bad.body = PtpManagement{{}, 0, 0, static_cast<PtpManagementAction>(5)};
  EXPECT_EQ(SerializePtpMessage(bad, out), 0u);
  // Over 65535 octets.
  Bytes huge(70000, 0);
  Bytes big_tlvs = {0x80, 0x08, 0xFF, 0xFE};
  big_tlvs.resize(4 + 0xFFFE, 0);
  bad = m;
  bad.tlvs = big_tlvs;
  EXPECT_EQ(SerializePtpMessage(bad, huge), 0u);
}

TEST(PtpWireTest, EventGeneralClassification) {
  for (uint8_t t = 0; t < 16; ++t) {
    const auto type = static_cast<PtpMessageType>(t);
    const Bytes b = {t, 0x12};
    if (!PtpIsKnownMessageType(t)) {
      EXPECT_EQ(PtpClassifyMessage(b), PtpMessageClass::kInvalid);
      EXPECT_STREQ(PtpMessageTypeName(type), "RESERVED");
      continue;
    }
    const bool event = t <= 3;
    EXPECT_EQ(PtpIsEventMessage(type), event);
    EXPECT_EQ(PtpClassifyMessage(b),
              event ? PtpMessageClass::kEvent : PtpMessageClass::kGeneral);
    EXPECT_EQ(PtpClassifyMessage(Bytes{uint8_t(0x10 | t), 0x02}),
              event ? PtpMessageClass::kEvent : PtpMessageClass::kGeneral);
  }
  EXPECT_EQ(PtpClassifyMessage(Bytes{0x00, 0x01}), PtpMessageClass::kInvalid);
  EXPECT_EQ(PtpClassifyMessage(Bytes{0x00}), PtpMessageClass::kInvalid);
  EXPECT_EQ(PtpClassifyMessage(Bytes{}), PtpMessageClass::kInvalid);
  EXPECT_STREQ(PtpMessageTypeName(PtpMessageType::kPdelayRespFollowUp),
               "PDELAY_RESP_FOLLOW_UP");
}

TEST(PtpWireTest, ControlFieldAndFixedLengths) {
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kSync), 0);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kDelayReq), 1);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kFollowUp), 2);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kDelayResp), 3);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kManagement), 4);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kAnnounce), 5);
  EXPECT_EQ(PtpControlFieldFor(PtpMessageType::kPdelayReq), 5);
  EXPECT_EQ(PtpFixedLength(static_cast<PtpMessageType>(4)), 0u);
  EXPECT_EQ(
      PtpClockIdentity::FromMac({0x36, 0x21, 0xDF, 0x83, 0x9D, 0xA0}),
      (PtpClockIdentity{{0x36, 0x21, 0xDF, 0xFF, 0xFE, 0x83, 0x9D, 0xA0}}));
}

// ---- Real ptp4l traffic -----------------------------------------------------

// Parses every message, checks it re-serializes (header, body, TLVs) to
// exactly the bytes ptp4l or pmc sent, and counts it by type.
void RoundTrip(const std::string& name, const std::vector<Bytes>& msgs,
               int major_sdo_id, size_t* count) {
  for (const Bytes& b : msgs) {
    PtpMessage m;
    ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk) << name;
    ++count[static_cast<size_t>(m.header.message_type)];
    EXPECT_EQ(m.header.minor_version, 0) << "linuxptp 3.1 sends v2.0";
    EXPECT_EQ(m.header.major_sdo_id, major_sdo_id) << name;
    Bytes out(b.size());
    ASSERT_EQ(SerializePtpMessage(m, out), m.header.message_length);
    out.resize(m.header.message_length);
    EXPECT_EQ(out, Bytes(b.begin(), b.begin() + m.header.message_length))
        << name << " " << PtpMessageTypeName(m.header.message_type);
  }
}

TEST(PtpWireTest, EveryPtp4lMessageParsesAndReserializesByteForByte) {
  size_t count[kPtpMessageTypeCount] = {};
  for (const char* name :
       {"ptp4l_e2e.pcap", "ptp4l_p2p.pcap", "ptp4l_l2_gptp.pcap",
        "ptp4l_unicast.pcap", "pmc.pcap"}) {
    const std::vector<Bytes> msgs = Fixture(name);
    ASSERT_GT(msgs.size(), 8u) << name;
    const bool gptp = std::string(name).find("gptp") != std::string::npos;
    RoundTrip(name, msgs, gptp ? 1 : 0, count);
  }
  for (uint8_t t : {0, 1, 2, 3, 8, 9, 0xA, 0xB, 0xC, 0xD}) {
    EXPECT_GT(count[t], 0u) << PtpMessageTypeName(PtpMessageType(t));
  }
}

// The same for the peer fixtures of tests/data/ (scripts/capture-peer-pcaps.sh:
// ptp4l E2E, P2P and unicast negotiation, pmc over UDPv4 and 802.3), whose
// UDP checksums are real.
TEST(PtpWireTest, EveryPeerFixtureMessageParsesAndReserializesByteForByte) {
  size_t count[kPtpMessageTypeCount] = {};
  size_t total = 0;
  for (const char* name :
       {"ptp_e2e_udp4.pcap", "ptp_e2e_l2.pcap", "ptp_p2p_l2.pcap",
        "ptp_unicast_udp4.pcap", "ptp_management_udp4.pcap",
        "ptp_management_l2.pcap"}) {
    absl::StatusOr<std::vector<Bytes>> msgs =
        testutil::PtpMessagesInFixture(name, testutil::PeerPairEndpoints());
    ASSERT_TRUE(msgs.ok()) << msgs.status();
    total += msgs->size();
    RoundTrip(name, *msgs, 0, count);
  }
  // tests/data/README.md: 14 + 14 + 17 + 19 + 18 + 18 messages.
  EXPECT_EQ(total, 100u);
  for (uint8_t t : {0, 1, 2, 3, 8, 9, 0xA, 0xB, 0xC, 0xD}) {
    EXPECT_GT(count[t], 0u) << PtpMessageTypeName(PtpMessageType(t));
  }
}

}  // namespace
}  // namespace ptp_wire_test
}  // namespace zg::core::testing
