// SPDX-License-Identifier: Apache-2.0
// Management encoding (core/ptp/ptp_management.h): the five data sets
// against hand-assembled known answers, a request's management message, and
// every management message and data set of the fixtures rewritten byte for
// byte by our writers.
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"
#include "tests/core/ptp/ptp_management_test_util.h"
#include "tests/util/pcap_frames.h"

namespace zg::core::testing {
namespace ptp_management_wire_test {
namespace {

template <class DataSet>
void ExpectDataSetKnownAnswer(const DataSet& ds, const Bytes& bytes) {
  Bytes out(bytes.size() + 4, 0xEE);
  ASSERT_EQ(WritePtpDataSet(ds, out), bytes.size());
  EXPECT_EQ(Bytes(out.begin(), out.begin() + bytes.size()), bytes);
  EXPECT_EQ(out[bytes.size()], 0xEE);
  for (size_t cap = 0; cap < bytes.size(); ++cap) {
    Bytes small(cap);
    EXPECT_EQ(WritePtpDataSet(ds, small), 0u);
  }
  DataSet back;
  ASSERT_TRUE(ParsePtpDataSet(bytes, &back));
  EXPECT_EQ(back, ds);
  // Exactly the length, as pmc checks.
  Bytes longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(ParsePtpDataSet(longer, &back));
  EXPECT_FALSE(
      ParsePtpDataSet(std::span(bytes).first(bytes.size() - 1), &back));
}

TEST(PtpManagementTest, DefaultDataSetKnownAnswer) {
  ExpectDataSetKnownAnswer(
      GmDataSets().default_ds,
      {0x01, 0x00, 0x00, 0x01, 0x01, 0x06, 0x21, 0x4E, 0x5D, 0x80,
       0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55, 0x18, 0x00});
  PtpDefaultDataSet so;
  so.slave_only = true;
  Bytes out(20);
  ASSERT_EQ(WritePtpDataSet(so, out), 20u);
  EXPECT_EQ(out[0], 0x02);
}

TEST(PtpManagementTest, CurrentDataSetKnownAnswer) {
  ExpectDataSetKnownAnswer(
      PtpCurrentDataSet{2, PtpCorrection::FromNanos(-1),
                        PtpCorrection{0x18000}},
      {0x00, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
       0x00, 0x00, 0x00, 0x01, 0x80, 0x00});
}

TEST(PtpManagementTest, ParentDataSetKnownAnswer) {
  PtpParentDataSet ds = GmDataSets().parent_ds;
  ds.parent_stats = true;
  ExpectDataSetKnownAnswer(
      ds, {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55, 0x00, 0x01, 0x01,
           0x00, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0x01, 0x06, 0x21, 0x4E,
           0x5D, 0x80, 0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55});
}

TEST(PtpManagementTest, TimePropertiesDataSetKnownAnswer) {
  PtpTimePropertiesDataSet ds = GmDataSets().time_properties_ds;
  ExpectDataSetKnownAnswer(ds, {0x00, 0x25, 0x3C, 0x20});
  ds = {};
  ds.current_utc_offset = -1;
  ds.leap61 = true;
  ds.ptp_timescale = false;
  ExpectDataSetKnownAnswer(ds, {0xFF, 0xFF, 0x01, 0xA0});
  ds.leap61 = false;
  ds.leap59 = true;
  ExpectDataSetKnownAnswer(ds, {0xFF, 0xFF, 0x02, 0xA0});
}

TEST(PtpManagementTest, PortDataSetKnownAnswer) {
  PtpPortDataSet ds = GmDataSets().port_ds;
  ds.peer_mean_path_delay = PtpCorrection::FromNanos(3);
  ds.minor_version_number = 1;
  ExpectDataSetKnownAnswer(
      ds, {0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55, 0x00,
           0x01, 0x06, 0xFD, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
           0x00, 0x00, 0x01, 0x03, 0x00, 0x01, 0x00, 0x12});
  ds.version_number = 16;
  Bytes out(26);
  EXPECT_EQ(WritePtpDataSet(ds, out), 0u);
}

TEST(PtpManagementTest, RequestKnownAnswer) {
  const Bytes want = {0x0D, 0x12, 0x00, 0x4A, 0x18, 0x00, 0x00, 0x00,  // header
                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  //
                      0x00, 0x00, 0x00, 0x00, 0x0A, 0x0B, 0x0C, 0x0D,  //
                      0x0E, 0x0F, 0x10, 0x11, 0x02, 0x03, 0x00, 0x07,  //
                      0x04, 0x7F,  // control 4
                      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // target
                      0xFF, 0xFF, 0x03, 0x01, 0x00, 0x00,   // hops, GET
                      0x00, 0x01, 0x00, 0x16, 0x20, 0x00};  // MANAGEMENT, id
  Bytes req = Request(PtpManagementAction::kGet, 0x2000, 20);
  ASSERT_EQ(req.size(), want.size() + 20);
  EXPECT_EQ(Bytes(req.begin(), req.begin() + want.size()), want);
  PtpManagementMessage m;
  ASSERT_EQ(ParsePtpManagementMessage(req, &m), PtpDrop::kOk);
  EXPECT_FALSE(m.is_error_status);
  EXPECT_EQ(m.management_id, 0x2000);
  EXPECT_EQ(m.data.size(), 20u);
  EXPECT_EQ(m.fields.action, PtpManagementAction::kGet);
  EXPECT_EQ(m.fields.target_port_identity, PtpPortIdentity::All());
}

// ---- Real pmc and ptp4l traffic ---------------------------------------------

// A data set parsed from `data` and written back, or nothing if `id` is not
// a data set we know (or it does not parse).
template <class DataSet>
Bytes RewriteAs(std::span<const uint8_t> data) {
  DataSet ds;
  if (!ParsePtpDataSet(data, &ds)) return {};
  Bytes out(data.size() + 8);
  out.resize(WritePtpDataSet(ds, out));
  return out;
}
Bytes RewriteDataSet(uint16_t id, std::span<const uint8_t> data) {
  switch (static_cast<PtpManagementId>(id)) {
    case PtpManagementId::kDefaultDataSet:
      return RewriteAs<PtpDefaultDataSet>(data);
    case PtpManagementId::kCurrentDataSet:
      return RewriteAs<PtpCurrentDataSet>(data);
    case PtpManagementId::kParentDataSet:
      return RewriteAs<PtpParentDataSet>(data);
    case PtpManagementId::kTimePropertiesDataSet:
      return RewriteAs<PtpTimePropertiesDataSet>(data);
    case PtpManagementId::kPortDataSet:
      return RewriteAs<PtpPortDataSet>(data);
    default:
      return {};
  }
}

// Every management message pmc and ptp4l sent, in both fixture sets, parses
// and is rewritten byte for byte by WritePtpManagementMessage (or
// WritePtpManagementErrorMessage); every data set in a RESPONSE parses and
// is rewritten byte for byte by WritePtpDataSet.
TEST(PtpManagementTest, EveryFixtureManagementMessageIsRewrittenByteForByte) {
  absl::StatusOr<std::map<std::string, std::vector<Bytes>>> fixtures =
      testutil::AllPtpFixtureMessages();
  ASSERT_TRUE(fixtures.ok()) << fixtures.status();
  int messages = 0, errors = 0;
  std::map<uint16_t, int> data_sets;
  for (const auto& [name, msgs] : *fixtures) {
    for (const Bytes& b : msgs) {
      PtpHeader h;
      ASSERT_EQ(ParsePtpHeader(b, &h), PtpDrop::kOk) << name;
      if (h.message_type != PtpMessageType::kManagement) continue;
      PtpManagementMessage m;
      ASSERT_EQ(ParsePtpManagementMessage(b, &m), PtpDrop::kOk) << name;
      ++messages;
      Bytes out(b.size() + 8);
      size_t n;
      if (m.is_error_status) {
        ASSERT_TRUE(m.display_data.empty()) << "pmc sends none";
        n = WritePtpManagementErrorMessage(
            m.header, m.fields,
            static_cast<PtpManagementErrorId>(m.management_error_id),
            m.management_id, out);
        ++errors;
      } else {
        n = WritePtpManagementMessage(m.header, m.fields, m.management_id,
                                      m.data, out);
      }
      out.resize(n);
      EXPECT_EQ(out, Bytes(b.begin(), b.begin() + h.message_length))
          << name << " managementId " << m.management_id << ": "
          << Diff(out, b);
      if (m.fields.action == PtpManagementAction::kResponse &&
          !m.is_error_status) {
        const Bytes ds = RewriteDataSet(m.management_id, m.data);
        if (!ds.empty()) {
          EXPECT_EQ(ds, Bytes(m.data.begin(), m.data.end()))
              << name << " managementId " << m.management_id;
          ++data_sets[m.management_id];
        }
      }
    }
  }
  EXPECT_EQ(messages, 18 + 18 + 32);  // the two pmc fixtures and pmc.pcap
  EXPECT_EQ(errors, 1 + 1 + 2);
  // Each of the five data sets, from all three files (pmc.pcap twice).
  for (uint16_t id = 0x2000; id <= 0x2004; ++id) {
    EXPECT_EQ(data_sets[id], 4) << "managementId " << id;
  }
}

}  // namespace
}  // namespace ptp_management_wire_test
}  // namespace zg::core::testing
