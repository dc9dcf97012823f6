// SPDX-License-Identifier: Apache-2.0
// The management responder (AnswerPtpManagement): GET of each data set and
// NULL_MANAGEMENT, error statuses, no amplification unless allowed, what is
// not for us, malformed requests, no room, and our answers to pmc byte for
// byte as ptp4l's. Data set and message encoding is in
// ptp_management_wire_test.cc.
#include "core/ptp/ptp_management.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"
#include "tests/core/ptp/ptp_management_test_util.h"
#include "tests/util/pcap_frames.h"

namespace zg::core::testing {
namespace ptp_management_test {
namespace {

PtpManagementConfig GmConfig() {
  PtpManagementConfig c;
  c.port_identity = kGmPort;
  c.domain_number = 24;
  return c;
}

// Answers `req` into *storage and parses the reply (which points into it).
PtpManagementMessage AnswerAndParse(const Bytes& req,
                                    const PtpManagementConfig& config,
                                    PtpManagementResult want_result,
                                    Bytes* storage) {
  storage->assign(300, 0);
  const PtpManagementAnswer a =
      AnswerPtpManagement(req, config, GmDataSets(), *storage);
  EXPECT_EQ(a.result, want_result) << PtpManagementResultName(a.result);
  PtpManagementMessage reply;
  EXPECT_GT(a.length, 0u);
  storage->resize(a.length);
  EXPECT_EQ(ParsePtpManagementMessage(*storage, &reply), PtpDrop::kOk);
  EXPECT_LE(a.length, req.size());  // never larger by default
  return reply;
}

TEST(PtpManagementTest, GetEachDataSet) {
  const PtpDataSets ds = GmDataSets();
  struct Case {
    PtpManagementId id;
    size_t length;
  } cases[] = {
      {PtpManagementId::kDefaultDataSet, kPtpDefaultDataSetLength},
      {PtpManagementId::kCurrentDataSet, kPtpCurrentDataSetLength},
      {PtpManagementId::kParentDataSet, kPtpParentDataSetLength},
      {PtpManagementId::kTimePropertiesDataSet,
       kPtpTimePropertiesDataSetLength},
      {PtpManagementId::kPortDataSet, kPtpPortDataSetLength},
  };
  for (const Case& c : cases) {
    const uint16_t id = static_cast<uint16_t>(c.id);
    const Bytes req = Request(PtpManagementAction::kGet, id, c.length, 99);
    Bytes storage;
    const PtpManagementMessage r = AnswerAndParse(
        req, GmConfig(), PtpManagementResult::kResponse, &storage);
    EXPECT_EQ(r.management_id, id);
    EXPECT_FALSE(r.is_error_status);
    EXPECT_EQ(r.fields.action, PtpManagementAction::kResponse);
    EXPECT_EQ(r.fields.target_port_identity, kClientPort);
    EXPECT_EQ(r.fields.starting_boundary_hops, 2);  // 3 - 1
    EXPECT_EQ(r.fields.boundary_hops, 2);
    EXPECT_EQ(r.header.source_port_identity, kGmPort);
    EXPECT_EQ(r.header.sequence_id, 99);
    EXPECT_EQ(r.header.domain_number, 24);
    EXPECT_EQ(r.header.control_field, 4);
    EXPECT_EQ(r.header.log_message_interval, 0x7F);
    EXPECT_EQ(r.header.minor_version, 1);
    EXPECT_EQ(r.data.size(), c.length);
    switch (c.id) {
      case PtpManagementId::kDefaultDataSet: {
        PtpDefaultDataSet d;
        ASSERT_TRUE(ParsePtpDataSet(r.data, &d));
        EXPECT_EQ(d, ds.default_ds);
        break;
      }
      case PtpManagementId::kCurrentDataSet: {
        PtpCurrentDataSet d;
        ASSERT_TRUE(ParsePtpDataSet(r.data, &d));
        EXPECT_EQ(d, ds.current_ds);
        break;
      }
      case PtpManagementId::kParentDataSet: {
        PtpParentDataSet d;
        ASSERT_TRUE(ParsePtpDataSet(r.data, &d));
        EXPECT_EQ(d, ds.parent_ds);
        break;
      }
      case PtpManagementId::kTimePropertiesDataSet: {
        PtpTimePropertiesDataSet d;
        ASSERT_TRUE(ParsePtpDataSet(r.data, &d));
        EXPECT_EQ(d, ds.time_properties_ds);
        break;
      }
      default: {
        PtpPortDataSet d;
        ASSERT_TRUE(ParsePtpDataSet(r.data, &d));
        EXPECT_EQ(d, ds.port_ds);
        break;
      }
    }
  }
}

TEST(PtpManagementTest, NullManagement) {
  const uint16_t id = 0;
  Bytes storage;
  PtpManagementMessage r =
      AnswerAndParse(Request(PtpManagementAction::kGet, id, 0), GmConfig(),
                     PtpManagementResult::kResponse, &storage);
  EXPECT_EQ(r.fields.action, PtpManagementAction::kResponse);
  EXPECT_TRUE(r.data.empty());
  r = AnswerAndParse(Request(PtpManagementAction::kCommand, id, 0), GmConfig(),
                     PtpManagementResult::kResponse, &storage);
  EXPECT_EQ(r.fields.action, PtpManagementAction::kAcknowledge);
  r = AnswerAndParse(Request(PtpManagementAction::kSet, id, 0), GmConfig(),
                     PtpManagementResult::kResponse, &storage);
  EXPECT_EQ(r.fields.action, PtpManagementAction::kResponse);
}

TEST(PtpManagementTest, ErrorStatuses) {
  struct Case {
    PtpManagementAction action;
    uint16_t id;
    PtpManagementErrorId error;
  } cases[] = {
      {PtpManagementAction::kSet, 0x2000, PtpManagementErrorId::kNotSetable},
      {PtpManagementAction::kSet, 0x2004, PtpManagementErrorId::kNotSetable},
      {PtpManagementAction::kCommand, 0x2003,
       PtpManagementErrorId::kNotSupported},
      {PtpManagementAction::kGet, 0x2005, PtpManagementErrorId::kNotSupported},
      {PtpManagementAction::kGet, 0x0001, PtpManagementErrorId::kNotSupported},
      {PtpManagementAction::kGet, 0xC000, PtpManagementErrorId::kNotSupported},
      {PtpManagementAction::kCommand, 0x0005,
       PtpManagementErrorId::kNotSupported},
  };
  for (const Case& c : cases) {
    // Padded enough for the 12-octet error TLV.
    Bytes storage;
    const PtpManagementMessage r =
        AnswerAndParse(Request(c.action, c.id, 6), GmConfig(),
                       PtpManagementResult::kErrorStatus, &storage);
    EXPECT_TRUE(r.is_error_status);
    EXPECT_EQ(r.management_id, c.id);
    EXPECT_EQ(r.management_error_id, static_cast<uint16_t>(c.error));
    EXPECT_EQ(r.fields.action, c.action == PtpManagementAction::kCommand
                                   ? PtpManagementAction::kAcknowledge
                                   : PtpManagementAction::kResponse);
  }
}

TEST(PtpManagementTest, NeverAmplifiesUnlessAllowed) {
  // pmc -z: an empty GET of DEFAULT_DATA_SET (54 octets) would get 74.
  const Bytes req = Request(PtpManagementAction::kGet, 0x2000, 0);
  Bytes out(300, 0xEE);
  PtpManagementAnswer a =
      AnswerPtpManagement(req, GmConfig(), GmDataSets(), out);
  EXPECT_EQ(a.result, PtpManagementResult::kReplyTooLarge);
  EXPECT_EQ(a.length, 0u);
  EXPECT_EQ(out[0], 0xEE);
  // The same for an unsupported id answered with a 60-octet error.
  a = AnswerPtpManagement(Request(PtpManagementAction::kGet, 0x2005, 2),
                          GmConfig(), GmDataSets(), out);
  EXPECT_EQ(a.result, PtpManagementResult::kReplyTooLarge);
  PtpManagementConfig allow = GmConfig();
  allow.allow_reply_larger_than_request = true;
  a = AnswerPtpManagement(req, allow, GmDataSets(), out);
  EXPECT_EQ(a.result, PtpManagementResult::kResponse);
  EXPECT_EQ(a.length, kPtpManagementLength + 6 + kPtpDefaultDataSetLength);
}

TEST(PtpManagementTest, IgnoresWhatIsNotForUs) {
  const PtpManagementConfig config = GmConfig();
  Bytes out(300);
  auto result = [&](const Bytes& req, const PtpManagementConfig& c) {
    const PtpManagementAnswer a =
        AnswerPtpManagement(req, c, GmDataSets(), out);
    EXPECT_EQ(a.length, 0u);
    return a.result;
  };
  Bytes req = Request(PtpManagementAction::kGet, 0x2000, 20);
  req[4] = 25;  // domain
  EXPECT_EQ(result(req, config), PtpManagementResult::kNotForUs);
  req = Request(PtpManagementAction::kGet, 0x2000, 20);
  req[0] = 0x1D;  // majorSdoId 1
  EXPECT_EQ(result(req, config), PtpManagementResult::kNotForUs);
  req = Request(PtpManagementAction::kGet, 0x2000, 20);
  req[34] = 0x00;  // targetPortIdentity.clockIdentity not ours, not all ones
  EXPECT_EQ(result(req, config), PtpManagementResult::kNotForUs);
  // Our clockIdentity with another port: clock data sets are answered,
  // PORT_DATA_SET is not.
  for (uint16_t id : {0x2000, 0x2004}) {
    req = Request(PtpManagementAction::kGet, id, 26);
    std::copy(kGmClock.octets.begin(), kGmClock.octets.end(), req.begin() + 34);
    req[42] = 0x00, req[43] = 0x02;
    const PtpManagementAnswer a =
        AnswerPtpManagement(req, config, GmDataSets(), out);
    EXPECT_EQ(a.result, id == 0x2000 ? PtpManagementResult::kResponse
                                     : PtpManagementResult::kNotForUs);
    req[43] = 0x01;
    EXPECT_EQ(AnswerPtpManagement(req, config, GmDataSets(), out).result,
              PtpManagementResult::kResponse);
  }
  // Responses, acknowledgements and error statuses are not requests.
  for (auto action :
       {PtpManagementAction::kResponse, PtpManagementAction::kAcknowledge}) {
    EXPECT_EQ(result(Request(action, 0x2000, 20), config),
              PtpManagementResult::kNotARequest);
  }
  PtpHeader h;
  h.message_type = PtpMessageType::kManagement;
  h.domain_number = 24;
  Bytes err(100);
  err.resize(WritePtpManagementErrorMessage(
      h, {PtpPortIdentity::All(), 0, 0, PtpManagementAction::kGet},
      PtpManagementErrorId::kGeneralError, 0x2000, err));
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(result(err, config), PtpManagementResult::kNotARequest);
}

TEST(PtpManagementTest, MalformedRequests) {
  Bytes out(300);
  auto answer = [&](const Bytes& req) {
    return AnswerPtpManagement(req, GmConfig(), GmDataSets(), out);
  };
  // Not a management message.
  Bytes sync(44, 0);
  sync[1] = 0x12, sync[3] = 44, sync[4] = 24;
  PtpManagementAnswer a = answer(sync);
  EXPECT_EQ(a.result, PtpManagementResult::kMalformed);
  EXPECT_EQ(a.drop, PtpDrop::kWrongType);
  // No TLV at all.
  Bytes req = Request(PtpManagementAction::kGet, 0x2000, 0);
  req.resize(kPtpManagementLength);
  req[3] = kPtpManagementLength;
  a = answer(req);
  EXPECT_EQ(a.drop, PtpDrop::kBadTlv);
  // A first TLV that is not MANAGEMENT.
  req = Request(PtpManagementAction::kGet, 0x2000, 0);
  req[kPtpManagementLength + 1] = 0x08;
  EXPECT_EQ(answer(req).drop, PtpDrop::kBadTlv);
  // MANAGEMENT with no managementId.
  req = Request(PtpManagementAction::kGet, 0x2000, 0);
  req[kPtpManagementLength + 3] = 0;
  req.resize(kPtpManagementLength + 4);
  req[3] = kPtpManagementLength + 4;
  EXPECT_EQ(answer(req).drop, PtpDrop::kBadTlv);
  // Truncated, bad action.
  req = Request(PtpManagementAction::kGet, 0x2000, 0);
  EXPECT_EQ(answer(Bytes(req.begin(), req.begin() + 50)).drop,
            PtpDrop::kLengthBeyondBuffer);
  req[46] = 0x07;
  EXPECT_EQ(answer(req).drop, PtpDrop::kBadAction);
  // A later TLV after the management TLV is allowed.
  req = Request(PtpManagementAction::kGet, 0x2000, 24);
  req.insert(req.end(), {0x80, 0x08, 0x00, 0x00});
  req[3] = uint8_t(req.size());
  EXPECT_EQ(answer(req).result, PtpManagementResult::kResponse);
}

TEST(PtpManagementTest, NoRoom) {
  const Bytes req = Request(PtpManagementAction::kGet, 0x2002, 32);
  const size_t want = kPtpManagementLength + 6 + kPtpParentDataSetLength;
  for (size_t cap = 0; cap < want; ++cap) {
    Bytes out(cap);
    const PtpManagementAnswer a =
        AnswerPtpManagement(req, GmConfig(), GmDataSets(), out);
    EXPECT_EQ(a.result, PtpManagementResult::kNoRoom);
    EXPECT_EQ(a.length, 0u);
  }
  Bytes out(want);
  EXPECT_EQ(AnswerPtpManagement(req, GmConfig(), GmDataSets(), out).length,
            want);
  for (size_t i = 0; i < static_cast<size_t>(PtpManagementResult::kCount);
       ++i) {
    EXPECT_STRNE(PtpManagementResultName(static_cast<PtpManagementResult>(i)),
                 "unknown");
  }
}

// ---- Real pmc and ptp4l traffic ---------------------------------------------

// Given the data sets ptp4l reported, our answers to pmc's requests are byte
// for byte ptp4l's answers: RESPONSEs for the data sets and NULL_MANAGEMENT,
// MANAGEMENT_ERROR_STATUS NOT_SUPPORTED for SET PRIORITY1. (ptp4l also
// supports GET PRIORITY1, which we do not.)
TEST(PtpManagementTest, AnswersPmcExactlyAsPtp4lDoes) {
  // The management messages (the capture also has ptp4l's Announce etc.).
  absl::StatusOr<std::vector<Bytes>> all =
      testutil::Ptp4lFixtureMessages("pmc.pcap");
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<Bytes> msgs;
  for (Bytes& b : *all) {
    PtpHeader h;
    ASSERT_EQ(ParsePtpHeader(b, &h), PtpDrop::kOk);
    if (h.message_type == PtpMessageType::kManagement) msgs.push_back(b);
  }
  ASSERT_EQ(msgs.size(), 32u);
  // Collect ptp4l's data sets and identity from its responses.
  PtpDataSets ds;
  PtpManagementConfig config;
  int found = 0;
  for (const Bytes& b : msgs) {
    PtpManagementMessage m;
    ASSERT_EQ(ParsePtpManagementMessage(b, &m), PtpDrop::kOk);
    if (m.fields.action != PtpManagementAction::kResponse ||
        m.is_error_status) {
      continue;
    }
    config.port_identity = m.header.source_port_identity;
    config.domain_number = m.header.domain_number;
    config.minor_version = m.header.minor_version;
    switch (static_cast<PtpManagementId>(m.management_id)) {
      case PtpManagementId::kDefaultDataSet:
        found += ParsePtpDataSet(m.data, &ds.default_ds);
        break;
      case PtpManagementId::kCurrentDataSet:
        found += ParsePtpDataSet(m.data, &ds.current_ds);
        break;
      case PtpManagementId::kParentDataSet:
        found += ParsePtpDataSet(m.data, &ds.parent_ds);
        break;
      case PtpManagementId::kTimePropertiesDataSet:
        found += ParsePtpDataSet(m.data, &ds.time_properties_ds);
        break;
      case PtpManagementId::kPortDataSet:
        found += ParsePtpDataSet(m.data, &ds.port_ds);
        break;
      default:
        break;
    }
  }
  ASSERT_EQ(found, 10);  // five data sets, padded and -z runs
  EXPECT_EQ(ds.default_ds.clock_identity, config.port_identity.clock_identity);
  EXPECT_EQ(ds.default_ds.priority1, 1);  // --priority1=1
  EXPECT_EQ(ds.port_ds.port_state, PtpPortState::kMaster);

  std::vector<bool> used(msgs.size());
  int compared = 0, refused = 0;
  for (size_t i = 0; i < msgs.size(); ++i) {
    PtpManagementMessage req;
    ASSERT_EQ(ParsePtpManagementMessage(msgs[i], &req), PtpDrop::kOk);
    if (req.fields.action != PtpManagementAction::kGet &&
        req.fields.action != PtpManagementAction::kSet) {
      continue;
    }
    size_t j = i + 1;
    PtpManagementMessage resp;
    for (; j < msgs.size(); ++j) {
      ASSERT_EQ(ParsePtpManagementMessage(msgs[j], &resp), PtpDrop::kOk);
      if (!used[j] && resp.header.sequence_id == req.header.sequence_id &&
          resp.fields.action == PtpManagementAction::kResponse) {
        break;
      }
    }
    ASSERT_LT(j, msgs.size());
    used[j] = true;
    const bool priority1 = req.management_id == 0x2005;
    if (priority1 && req.fields.action == PtpManagementAction::kGet) continue;
    // As ptp4l answers: whatever the size.
    PtpManagementConfig allow = config;
    allow.allow_reply_larger_than_request = true;
    Bytes out(300);
    const PtpManagementAnswer a = AnswerPtpManagement(msgs[i], allow, ds, out);
    ASSERT_GT(a.length, 0u) << PtpManagementResultName(a.result);
    out.resize(a.length);
    // One known difference: ptp4l decrements the request's boundaryHops when
    // it tries to forward it and does not undo that when there is no other
    // port, so its reply has startingBoundaryHops = boundaryHops = 1 for
    // pmc -b 1 (1 - 0). 1588 15.3.3 says startingBoundaryHops - boundaryHops
    // of the request: 1 - 1 = 0, which is what we send.
    Bytes want = msgs[j];
    ASSERT_EQ(want[44], 1);
    ASSERT_EQ(want[45], 1);
    want[44] = want[45] = 0;
    EXPECT_EQ(out, want) << "managementId " << req.management_id << ": "
                         << Diff(out, want);
    ++compared;
    // By default, only answers no larger than the request go out.
    Bytes out2(300);
    const PtpManagementAnswer d =
        AnswerPtpManagement(msgs[i], config, ds, out2);
    if (msgs[j].size() > msgs[i].size()) {
      EXPECT_EQ(d.result, PtpManagementResult::kReplyTooLarge);
      ++refused;
    } else {
      EXPECT_EQ(d.length, a.length);
    }
  }
  EXPECT_EQ(compared, 14);  // 7 requests, padded and -z
  EXPECT_EQ(refused, 7);    // 5 empty data-set GETs, 2 SETs (error is 60 > 56)
}

}  // namespace
}  // namespace ptp_management_test
}  // namespace zg::core::testing
