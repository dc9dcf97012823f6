// SPDX-License-Identifier: Apache-2.0
// The grandmaster's in-place replies (core/ptp/ptp_wire.h): Delay_Req to
// Delay_Resp and Pdelay_Req to Pdelay_Resp rewritten in the request's buffer
// against hand-assembled known answers and byte for byte against the replies
// ptp4l sent in the fixtures, the drops that leave the buffer untouched, and
// the correctionField update.
#include <cstddef>
#include <cstdint>
#include <span>
#include <variant>
#include <vector>

#include "core/ptp/ptp_wire.h"
#include "core/time/time_types.h"
#include "gtest/gtest.h"
#include "tests/core/ptp/ptp_wire_test_util.h"

namespace zg::core::testing {
namespace ptp_wire_reply_test {
namespace {

// ---- In-place replies -------------------------------------------------------

constexpr PtpPortIdentity kServerPort{
    {{0xAA, 0xBB, 0xCC, 0xFF, 0xFE, 0xDD, 0xEE, 0xFF}}, 1};
const Bytes kServerPortBytes = {0xAA, 0xBB, 0xCC, 0xFF, 0xFE,
                                0xDD, 0xEE, 0xFF, 0x00, 0x01};

PtpReplyConfig ServerConfig() {
  PtpReplyConfig c;
  c.port_identity = kServerPort;
  c.domain_number = 24;
  c.sdo_id = 0;
  c.minor_version = 1;
  c.log_min_delay_req_interval = -3;
  return c;
}

constexpr TaiNs kT4{1'700'000'000 * kNanosPerSecond + 123'456'789};

// A Delay_Req with profile and leap flag bits and messageTypeSpecific set, to
// show the reply clears them.
Bytes DelayReq(uint8_t flags0) {
  Bytes b =
      Cat(HeaderBytes(0x01, 0x02, 44, flags0, 0x03, 1, 0x7F), Bytes(10, 0x00));
  b[16] = 0x01, b[19] = 0x02;
  return b;
}

TEST(PtpWireTest, DelayReqToDelayRespInPlaceKnownAnswer) {
  Bytes buf = DelayReq(0x20);
  buf.resize(kPtpDelayRespLength + 10, 0xEE);  // mbuf room
  ASSERT_EQ(PtpDelayReqToDelayResp(buf, 44, ServerConfig(), kT4), PtpDrop::kOk);
  const Bytes want =
      Cat(Cat(Cat({0x09, 0x12, 0x00, 0x36, 0x18, 0x00, 0x00, 0x00,  //
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00,  // kept
                   0x00, 0x00, 0x00, 0x00},
                  kServerPortBytes),
              Cat({0x12, 0x34, 0x03, 0xFD}, kTs1Bytes)),
          {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55, 0x00, 0x01});
  EXPECT_EQ(Bytes(buf.begin(), buf.begin() + kPtpDelayRespLength), want);
  EXPECT_EQ(buf[kPtpDelayRespLength], 0xEE);
  PtpMessage m;
  ASSERT_EQ(ParsePtpMessage(std::span(buf).first(kPtpDelayRespLength), &m),
            PtpDrop::kOk);
  const auto& resp = std::get<PtpDelayResp>(m.body);
  EXPECT_EQ(resp.requesting_port_identity, kSourcePort);
  EXPECT_EQ(resp.receive_timestamp, kTs1);
  EXPECT_EQ(m.header.sequence_id, 0x1234);
}

TEST(PtpWireTest, UnicastDelayRespCarriesFlagAnd0x7F) {
  Bytes buf = DelayReq(0x04);
  buf.resize(kPtpDelayRespLength);
  ASSERT_EQ(PtpDelayReqToDelayResp(buf, 44, ServerConfig(), kT4), PtpDrop::kOk);
  EXPECT_EQ(buf[6], 0x04);
  EXPECT_EQ(buf[7], 0x00);
  EXPECT_EQ(buf[33], 0x7F);
}

TEST(PtpWireTest, DelayReqWithTlvsAnswersWithoutThem) {
  Bytes buf = Cat(DelayReq(0), {0x80, 0x08, 0x00, 0x02, 0x00, 0x00});
  buf[3] = 50;
  buf.resize(64, 0xEE);
  ASSERT_EQ(PtpDelayReqToDelayResp(buf, 50, ServerConfig(), kT4), PtpDrop::kOk);
  PtpMessage m;
  ASSERT_EQ(ParsePtpMessage(buf, &m), PtpDrop::kOk);
  EXPECT_EQ(m.header.message_length, kPtpDelayRespLength);
  EXPECT_TRUE(m.tlvs.empty());
}

TEST(PtpWireTest, DelayReqDropsLeaveBufferUntouched) {
  const PtpReplyConfig config = ServerConfig();
  struct Case {
    Bytes buf;
    size_t request_length;
    PtpDrop want;
  };
  Bytes bad_tlv = Cat(DelayReq(0), {0x80, 0x08, 0x00, 0x04, 0x00, 0x00});
  bad_tlv[3] = 50;
  Bytes other_domain = DelayReq(0);
  other_domain[4] = 25;
  Bytes other_sdo = DelayReq(0);
  other_sdo[0] = 0x11;
  Bytes bad_ts = DelayReq(0);
  bad_ts[40] = 0xFF;
  Bytes sync = DelayReq(0);
  sync[0] = 0x00;
  Case cases[] = {
      {DelayReq(0), 44, PtpDrop::kNoRoom},                 // 44 < 54 room
      {Cat(DelayReq(0), Bytes(9)), 44, PtpDrop::kNoRoom},  // 53 < 54
      {Cat(DelayReq(0), Bytes(10)), 43, PtpDrop::kLengthBeyondBuffer},
      {Cat(DelayReq(0), Bytes(10)), 20, PtpDrop::kTruncated},
      {Cat(bad_tlv, Bytes(10)), 50, PtpDrop::kBadTlv},
      {Cat(other_domain, Bytes(10)), 44, PtpDrop::kWrongDomain},
      {Cat(other_sdo, Bytes(10)), 44, PtpDrop::kWrongDomain},
      {Cat(bad_ts, Bytes(10)), 44, PtpDrop::kBadTimestamp},
      {Cat(sync, Bytes(10)), 44, PtpDrop::kWrongType},
  };
  for (Case& c : cases) {
    const Bytes before = c.buf;
    EXPECT_EQ(PtpDelayReqToDelayResp(c.buf, c.request_length, config, kT4),
              c.want);
    EXPECT_EQ(c.buf, before);
  }
  // A request_length past the buffer is clamped to it (and then too short
  // for its messageLength here).
  Bytes short_buf = DelayReq(0);
  short_buf.resize(40);
  EXPECT_EQ(PtpDelayReqToDelayResp(short_buf, 44, config, kT4),
            PtpDrop::kLengthBeyondBuffer);
  // sdoId 0x142 served: majorSdoId 1, minorSdoId 0x42.
  PtpReplyConfig gptp = config;
  gptp.sdo_id = 0x142;
  Bytes req = Cat(DelayReq(0), Bytes(10));
  req[0] = 0x11, req[5] = 0x42;
  ASSERT_EQ(PtpDelayReqToDelayResp(req, 44, gptp, kT4), PtpDrop::kOk);
  EXPECT_EQ(req[0], 0x19);
  EXPECT_EQ(req[5], 0x42);
}

TEST(PtpWireTest, PdelayReqToPdelayRespInPlaceKnownAnswer) {
  Bytes buf = Cat(HeaderBytes(0x02, 0x12, 54, 0x04, 0x00, 5, 0x00), kTs1Bytes);
  buf = Cat(buf, Bytes(10, 0x00));
  PtpCorrection req_correction;
  ASSERT_EQ(
      PtpPdelayReqToPdelayResp(buf, 54, ServerConfig(), kT4, &req_correction),
      PtpDrop::kOk);
  EXPECT_EQ(req_correction.scaled_ns, 0x18000);
  const Bytes want =
      Cat(Cat(Cat({0x03, 0x12, 0x00, 0x36, 0x18, 0x00, 0x06, 0x00,  //
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // zeroed
                   0x00, 0x00, 0x00, 0x00},
                  kServerPortBytes),
              Cat({0x12, 0x34, 0x05, 0x7F}, kTs1Bytes)),
          {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55, 0x00, 0x01});
  EXPECT_EQ(buf, want);
  // A Delay_Req is not a Pdelay_Req.
  Bytes d = Cat(DelayReq(0), Bytes(10));
  EXPECT_EQ(
      PtpPdelayReqToPdelayResp(d, 44, ServerConfig(), kT4, &req_correction),
      PtpDrop::kWrongType);
}

TEST(PtpWireTest, AddToCorrectionField) {
  Bytes b = Cat(HeaderBytes(0x00, 0x12, 44, 0, 0, 0, 0), kTs1Bytes);
  ASSERT_TRUE(PtpAddToCorrectionField(b, PtpCorrection::FromNanos(-2)));
  PtpHeader h;
  ASSERT_EQ(ParsePtpHeader(b, &h), PtpDrop::kOk);
  EXPECT_EQ(h.correction.scaled_ns, 0x18000 - 0x20000);
  EXPECT_FALSE(PtpAddToCorrectionField(std::span(b).first(33), {}));
}

// ---- Against ptp4l ----------------------------------------------------------

// Our in-place Delay_Resp, given ptp4l's receive timestamp, is byte for byte
// the Delay_Resp ptp4l sent.
TEST(PtpWireTest, InPlaceDelayRespMatchesPtp4l) {
  for (const char* name : {"ptp4l_e2e.pcap", "ptp4l_unicast.pcap"}) {
    const std::vector<Bytes> msgs = Fixture(name);
    int matched = 0;
    for (size_t i = 0; i + 1 < msgs.size(); ++i) {
      PtpMessage req, resp;
      ASSERT_EQ(ParsePtpMessage(msgs[i], &req), PtpDrop::kOk);
      if (req.header.message_type != PtpMessageType::kDelayReq) continue;
      // The answer is the next Delay_Resp with this sequenceId.
      size_t j = i + 1;
      for (; j < msgs.size(); ++j) {
        ASSERT_EQ(ParsePtpMessage(msgs[j], &resp), PtpDrop::kOk);
        if (resp.header.message_type == PtpMessageType::kDelayResp &&
            resp.header.sequence_id == req.header.sequence_id) {
          break;
        }
      }
      ASSERT_LT(j, msgs.size());
      PtpReplyConfig config;
      config.port_identity = resp.header.source_port_identity;
      config.domain_number = resp.header.domain_number;
      config.minor_version = resp.header.minor_version;
      config.log_min_delay_req_interval = resp.header.log_message_interval;
      const TaiNs t4 =
          PtpToTai(std::get<PtpDelayResp>(resp.body).receive_timestamp);
      Bytes buf = msgs[i];
      buf.resize(kPtpDelayRespLength);
      ASSERT_EQ(PtpDelayReqToDelayResp(buf, msgs[i].size(), config, t4),
                PtpDrop::kOk);
      EXPECT_EQ(buf, msgs[j]) << name << " seq " << req.header.sequence_id;
      ++matched;
    }
    EXPECT_GE(matched, 2) << name;
  }
}

TEST(PtpWireTest, InPlacePdelayRespMatchesPtp4l) {
  for (const char* name : {"ptp4l_p2p.pcap", "ptp4l_l2_gptp.pcap"}) {
    const std::vector<Bytes> msgs = Fixture(name);
    int matched = 0;
    for (size_t i = 0; i + 2 < msgs.size(); ++i) {
      PtpMessage req, resp, fup;
      ASSERT_EQ(ParsePtpMessage(msgs[i], &req), PtpDrop::kOk);
      if (req.header.message_type != PtpMessageType::kPdelayReq) continue;
      ASSERT_EQ(ParsePtpMessage(msgs[i + 1], &resp), PtpDrop::kOk);
      ASSERT_EQ(ParsePtpMessage(msgs[i + 2], &fup), PtpDrop::kOk);
      if (resp.header.message_type != PtpMessageType::kPdelayResp) continue;
      PtpReplyConfig config;
      config.port_identity = resp.header.source_port_identity;
      config.domain_number = resp.header.domain_number;
      config.sdo_id = resp.header.sdo_id();
      config.minor_version = resp.header.minor_version;
      const TaiNs t2 = PtpToTai(
          std::get<PtpPdelayResp>(resp.body).request_receipt_timestamp);
      Bytes buf = msgs[i];
      PtpCorrection req_correction{-1};
      ASSERT_EQ(PtpPdelayReqToPdelayResp(buf, buf.size(), config, t2,
                                         &req_correction),
                PtpDrop::kOk);
      EXPECT_EQ(buf, msgs[i + 1]) << name << " seq " << req.header.sequence_id;
      // ptp4l's Pdelay_Resp_Follow_Up carries the request's correction.
      EXPECT_EQ(req_correction, fup.header.correction);
      ++matched;
    }
    EXPECT_GE(matched, 4) << name;
  }
}

}  // namespace
}  // namespace ptp_wire_reply_test
}  // namespace zg::core::testing
