// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_tlv.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"
#include "tests/util/pcap_frames.h"

namespace zg::core {
namespace ptp_tlv_test {
namespace {

using Bytes = std::vector<uint8_t>;

std::vector<PtpTlv> Walk(const Bytes& area, bool* malformed) {
  PtpTlvReader reader(area);
  std::vector<PtpTlv> out;
  PtpTlv tlv;
  while (reader.Next(&tlv)) out.push_back(tlv);
  *malformed = reader.malformed();
  EXPECT_FALSE(reader.Next(&tlv)) << "a stopped walk stays stopped";
  return out;
}

// Writes with `write` into exactly-sized, then every shorter, buffer.
template <class Write>
Bytes WriteAll(Write write, size_t expected_length) {
  Bytes out(expected_length + 8, 0xEE);
  EXPECT_EQ(write(std::span(out)), expected_length);
  for (size_t cap = 0; cap < expected_length; ++cap) {
    Bytes small(cap);
    EXPECT_EQ(write(std::span(small)), 0u) << "capacity " << cap;
  }
  out.resize(expected_length);
  return out;
}

PtpTlv AsTlv(const Bytes& bytes) {
  PtpTlv tlv;
  PtpTlvReader reader(bytes);
  EXPECT_TRUE(reader.Next(&tlv));
  EXPECT_FALSE(reader.Next(&tlv));
  EXPECT_FALSE(reader.malformed());
  return tlv;
}

TEST(PtpTlvTest, WalksAChain) {
  const Bytes area = {0x00, 0x08, 0x00, 0x08, 1,    2,    3,    4,
                      5,    6,    7,    8,    0x80, 0x08, 0x00, 0x00,
                      0x12, 0x34, 0x00, 0x02, 0xAB, 0xCD};
  bool malformed;
  const std::vector<PtpTlv> tlvs = Walk(area, &malformed);
  EXPECT_FALSE(malformed);
  ASSERT_EQ(tlvs.size(), 3u);
  EXPECT_EQ(tlvs[0].type, PtpTlvType::kPathTrace);
  EXPECT_EQ(tlvs[0].value.size(), 8u);
  EXPECT_EQ(tlvs[0].value.data(), area.data() + 4);
  EXPECT_EQ(tlvs[1].type, PtpTlvType::kPad);
  EXPECT_TRUE(tlvs[1].value.empty());
  EXPECT_EQ(static_cast<uint16_t>(tlvs[2].type), 0x1234);
  EXPECT_EQ(tlvs[2].value[1], 0xCD);
  EXPECT_TRUE(PtpTlvsWellFormed(area));
  EXPECT_TRUE(PtpTlvsWellFormed({}));
  PtpTlv found;
  ASSERT_TRUE(FindPtpTlv(area, PtpTlvType::kPad, &found));
  EXPECT_EQ(found.value.data(), area.data() + 16);
  EXPECT_FALSE(FindPtpTlv(area, PtpTlvType::kManagement, &found));
}

TEST(PtpTlvTest, MaliciousLengths) {
  const Bytes cases[] = {
      {0x00},                                            // 1 octet
      {0x00, 0x08, 0x00},                                // 3 octets
      {0x00, 0x08, 0x00, 0x01, 0xAA},                    // odd length
      {0x00, 0x08, 0x00, 0x03, 0xAA, 0xBB, 0xCC, 0x00},  // odd, padded
      {0x00, 0x08, 0x00, 0x08, 1, 2, 3, 4},              // past end
      {0x00, 0x08, 0xFF, 0xFE},                          // 65534 past end
      {0x00, 0x08, 0xFF, 0xFF},                          // 65535
      {0x00, 0x08, 0x80, 0x00, 0, 0},        // 32768: no sign mix-ups
      {0x80, 0x08, 0x00, 0x00, 0x00, 0x08},  // good, then 2 octets
  };
  for (const Bytes& area : cases) {
    bool malformed;
    const std::vector<PtpTlv> tlvs = Walk(area, &malformed);
    EXPECT_TRUE(malformed) << area.size();
    EXPECT_FALSE(PtpTlvsWellFormed(area));
    PtpTlv found;
    EXPECT_FALSE(FindPtpTlv(area, PtpTlvType::kManagement, &found));
    for (const PtpTlv& t : tlvs) {
      EXPECT_GE(t.value.data(), area.data());
      EXPECT_LE(t.value.data() + t.value.size(), area.data() + area.size());
    }
  }
  // Exactly filling the area is fine; the TLVs before a bad one are seen.
  bool malformed;
  EXPECT_EQ(
      Walk({0x80, 0x08, 0x00, 0x00, 0x00, 0x08, 0x00, 0x06}, &malformed).size(),
      1u);
  EXPECT_TRUE(malformed);
}

TEST(PtpTlvTest, GenericWriter) {
  const Bytes value = {1, 2, 3, 4};
  const Bytes tlv = WriteAll(
      [&](std::span<uint8_t> out) {
        return WritePtpTlv(PtpTlvType::kPad, value, out);
      },
      8);
  EXPECT_EQ(tlv, (Bytes{0x80, 0x08, 0x00, 0x04, 1, 2, 3, 4}));
  Bytes out(100);
  EXPECT_EQ(WritePtpTlv(PtpTlvType::kPad, Bytes{1, 2, 3}, out), 0u);  // odd
  Bytes big(0x10000);
  Bytes huge_out(0x10010);
  EXPECT_EQ(WritePtpTlv(PtpTlvType::kPad, big, huge_out), 0u);
  big.resize(0xFFFE);
  EXPECT_EQ(WritePtpTlv(PtpTlvType::kPad, big, huge_out), 0x10002u);
}

TEST(PtpTlvTest, UnicastRequestKnownAnswer) {
  // Sync, logInterMessagePeriod -4, 300 s.
  const Bytes bytes = {0x00, 0x04, 0x00, 0x06, 0x00,
                       0xFC, 0x00, 0x00, 0x01, 0x2C};
  PtpUnicastRequest req;
  ASSERT_TRUE(ParsePtpUnicastRequestTlv(AsTlv(bytes), &req));
  EXPECT_EQ(req, (PtpUnicastRequest{PtpMessageType::kSync, -4, 300}));
  EXPECT_EQ(
      WriteAll([&](auto out) { return WritePtpUnicastRequestTlv(req, out); },
               10),
      bytes);
}

TEST(PtpTlvTest, UnicastGrantKnownAnswer) {
  // Announce, logInterMessagePeriod 1, 300 s, renewal invited.
  const Bytes bytes = {0x00, 0x05, 0x00, 0x08, 0xB0, 0x01,
                       0x00, 0x00, 0x01, 0x2C, 0x00, 0x01};
  PtpUnicastGrant grant;
  ASSERT_TRUE(ParsePtpUnicastGrantTlv(AsTlv(bytes), &grant));
  EXPECT_EQ(grant, (PtpUnicastGrant{PtpMessageType::kAnnounce, 1, 300, true}));
  EXPECT_EQ(
      WriteAll([&](auto out) { return WritePtpUnicastGrantTlv(grant, out); },
               12),
      bytes);
  // A denial: duration 0, no renewal.
  const PtpUnicastGrant deny{PtpMessageType::kDelayResp, 0, 0, false};
  Bytes out(12);
  ASSERT_EQ(WritePtpUnicastGrantTlv(deny, out), 12u);
  EXPECT_EQ(out, (Bytes{0x00, 0x05, 0x00, 0x08, 0x90, 0x00, 0, 0, 0, 0, 0, 0}));
}

TEST(PtpTlvTest, UnicastCancelAndAcknowledgeKnownAnswer) {
  const Bytes cancel = {0x00, 0x06, 0x00, 0x02, 0x30, 0x00};  // Pdelay_Resp
  const Bytes ack = {0x00, 0x07, 0x00, 0x02, 0xB3, 0x00};     // Announce, flags
  PtpUnicastCancel c;
  ASSERT_TRUE(ParsePtpUnicastCancelTlv(AsTlv(cancel), &c));
  EXPECT_EQ(c, (PtpUnicastCancel{PtpMessageType::kPdelayResp, 0}));
  EXPECT_EQ(WriteAll(
                [&](auto out) {
                  return WritePtpUnicastCancelTlv(
                      PtpTlvType::kCancelUnicastTransmission, c, out);
                },
                6),
            cancel);
  ASSERT_TRUE(ParsePtpUnicastCancelTlv(AsTlv(ack), &c));
  EXPECT_EQ(c.message_type, PtpMessageType::kAnnounce);
  EXPECT_EQ(c.flags, kPtpCancelMaintainRequest | kPtpCancelMaintainGrant);
  EXPECT_EQ(WriteAll(
                [&](auto out) {
                  return WritePtpUnicastCancelTlv(
                      PtpTlvType::kAcknowledgeCancelUnicastTransmission, c,
                      out);
                },
                6),
            ack);
  Bytes out(6);
  EXPECT_EQ(WritePtpUnicastCancelTlv(PtpTlvType::kPad, c, out), 0u);
  c.flags = 0x10;
  EXPECT_EQ(
      WritePtpUnicastCancelTlv(PtpTlvType::kCancelUnicastTransmission, c, out),
      0u);
}

TEST(PtpTlvTest, UnicastParsersRejectBadInput) {
  PtpUnicastRequest req;
  PtpUnicastGrant grant;
  PtpUnicastCancel cancel;
  // Short values.
  EXPECT_FALSE(ParsePtpUnicastRequestTlv(
      AsTlv({0x00, 0x04, 0x00, 0x04, 0x00, 0xFC, 0x00, 0x00}), &req));
  EXPECT_FALSE(ParsePtpUnicastGrantTlv(
      AsTlv({0x00, 0x05, 0x00, 0x06, 0xB0, 0x01, 0x00, 0x00, 0x01, 0x2C}),
      &grant));
  EXPECT_FALSE(
      ParsePtpUnicastCancelTlv(AsTlv({0x00, 0x06, 0x00, 0x00}), &cancel));
  // Wrong TLV type.
  EXPECT_FALSE(ParsePtpUnicastRequestTlv(
      AsTlv({0x00, 0x05, 0x00, 0x06, 0x00, 0xFC, 0x00, 0x00, 0x01, 0x2C}),
      &req));
  EXPECT_FALSE(ParsePtpUnicastCancelTlv(
      AsTlv({0x00, 0x04, 0x00, 0x02, 0x00, 0x00}), &cancel));
  // Message types that cannot be granted: Delay_Req, Follow_Up, reserved.
  for (uint8_t t : {0x1, 0x2, 0x8, 0xA, 0xC, 0xD, 0x4, 0xF}) {
    const Bytes b = {0x00, 0x04, 0x00, 0x06, uint8_t(t << 4), 0, 0, 0, 0, 1};
    EXPECT_FALSE(ParsePtpUnicastRequestTlv(AsTlv(b), &req)) << int(t);
    Bytes out(10);
    EXPECT_EQ(WritePtpUnicastRequestTlv({PtpMessageType(t), 0, 1}, out), 0u);
  }
  // Longer values are accepted; the extra octets ignored (as linuxptp).
  ASSERT_TRUE(ParsePtpUnicastRequestTlv(
      AsTlv({0x00, 0x04, 0x00, 0x08, 0x90, 0x00, 0, 0, 0, 9, 0xAA, 0xBB}),
      &req));
  EXPECT_EQ(req.duration_s, 9u);
}

TEST(PtpTlvTest, PathTrace) {
  const PtpClockIdentity ids[] = {
      {{1, 2, 3, 4, 5, 6, 7, 8}},
      {{0x36, 0x21, 0xDF, 0xFF, 0xFE, 0x83, 0x9D, 0xA0}},
  };
  const Bytes bytes = {0x00, 0x08, 0x00, 0x10, 1,    2,    3,
                       4,    5,    6,    7,    8,    0x36, 0x21,
                       0xDF, 0xFF, 0xFE, 0x83, 0x9D, 0xA0};
  EXPECT_EQ(
      WriteAll([&](auto out) { return WritePtpPathTraceTlv(ids, out); }, 20),
      bytes);
  PtpPathTrace pt;
  ASSERT_TRUE(ParsePtpPathTraceTlv(AsTlv(bytes), &pt));
  ASSERT_EQ(pt.size(), 2u);
  EXPECT_EQ(pt.at(0), ids[0]);
  EXPECT_EQ(pt.at(1), ids[1]);
  // Empty path is valid; lengths that are not a multiple of 8 are not.
  ASSERT_TRUE(ParsePtpPathTraceTlv(AsTlv({0x00, 0x08, 0x00, 0x00}), &pt));
  EXPECT_EQ(pt.size(), 0u);
  EXPECT_FALSE(ParsePtpPathTraceTlv(
      AsTlv({0x00, 0x08, 0x00, 0x06, 1, 2, 3, 4, 5, 6}), &pt));
  EXPECT_FALSE(ParsePtpPathTraceTlv(AsTlv({0x00, 0x09, 0x00, 0x00}), &pt));
  std::vector<PtpClockIdentity> too_long(8192);  // 65536 octets
  Bytes out(70000);
  EXPECT_EQ(WritePtpPathTraceTlv(too_long, out), 0u);
  too_long.resize(8191);
  EXPECT_EQ(WritePtpPathTraceTlv(too_long, out), 4u + 8191 * 8);
}

TEST(PtpTlvTest, AlternateTimeOffsetKnownAnswer) {
  // key 1, currentOffset +3600 s, jumpSeconds -3600 s, next jump at
  // 1700000000 s, displayName "CET" (odd: one pad octet).
  const Bytes bytes = {0x00, 0x09, 0x00, 0x14, 0x01, 0x00, 0x00, 0x0E,
                       0x10, 0xFF, 0xFF, 0xF1, 0xF0, 0x00, 0x00, 0x65,
                       0x53, 0xF1, 0x00, 0x03, 'C',  'E',  'T',  0x00};
  PtpAlternateTimeOffset ato;
  ASSERT_TRUE(ParsePtpAlternateTimeOffsetTlv(AsTlv(bytes), &ato));
  EXPECT_EQ(ato.key_field, 1);
  EXPECT_EQ(ato.current_offset_s, 3600);
  EXPECT_EQ(ato.jump_seconds_s, -3600);
  EXPECT_EQ(ato.time_of_next_jump_s, 1'700'000'000u);
  EXPECT_EQ(ato.display_name, "CET");
  EXPECT_EQ(
      WriteAll(
          [&](auto out) { return WritePtpAlternateTimeOffsetTlv(ato, out); },
          24),
      bytes);
  // Even name: no pad.
  ato.display_name = "CEST";
  Bytes out(30);
  ASSERT_EQ(WritePtpAlternateTimeOffsetTlv(ato, out), 24u);
  PtpAlternateTimeOffset back;
  const Bytes even(out.begin(), out.begin() + 24);
  ASSERT_TRUE(ParsePtpAlternateTimeOffsetTlv(AsTlv(even), &back));
  EXPECT_EQ(back, ato);
  // Name length past the value, value shorter than the fixed part.
  Bytes bad = bytes;
  bad[19] = 5;
  EXPECT_FALSE(ParsePtpAlternateTimeOffsetTlv(AsTlv(bad), &back));
  EXPECT_FALSE(ParsePtpAlternateTimeOffsetTlv(
      AsTlv({0x00, 0x09, 0x00, 0x0E, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
      &back));
  ato.time_of_next_jump_s = kPtpSecondsMask + 1;
  EXPECT_EQ(WritePtpAlternateTimeOffsetTlv(ato, out), 0u);
}

TEST(PtpTlvTest, OrganizationExtensionPassesThrough) {
  // IEEE 802.1 (00-80-C2) subtype 1 (Follow_Up information), 4 data octets.
  const Bytes bytes = {0x00, 0x03, 0x00, 0x0A, 0x00, 0x80, 0xC2,
                       0x00, 0x00, 0x01, 0xAB, 0xCD, 0xCD, 0xEF};
  PtpOrganizationExtension org;
  ASSERT_TRUE(ParsePtpOrganizationExtensionTlv(AsTlv(bytes), &org));
  EXPECT_EQ(org.type, PtpTlvType::kOrganizationExtension);
  EXPECT_EQ(org.organization_id, (std::array<uint8_t, 3>{0x00, 0x80, 0xC2}));
  EXPECT_EQ(org.organization_sub_type, (std::array<uint8_t, 3>{0, 0, 1}));
  EXPECT_EQ(org.data.size(), 4u);
  EXPECT_EQ(
      WriteAll(
          [&](auto out) { return WritePtpOrganizationExtensionTlv(org, out); },
          14),
      bytes);
  for (uint16_t t : {0x4000, 0x8000}) {
    Bytes b = bytes;
    b[0] = uint8_t(t >> 8);
    b[1] = 0;
    ASSERT_TRUE(ParsePtpOrganizationExtensionTlv(AsTlv(b), &org));
    EXPECT_EQ(static_cast<uint16_t>(org.type), t);
  }
  EXPECT_FALSE(ParsePtpOrganizationExtensionTlv(
      AsTlv({0x00, 0x03, 0x00, 0x04, 0x00, 0x80, 0xC2, 0x00}), &org));
  EXPECT_FALSE(ParsePtpOrganizationExtensionTlv(
      AsTlv(Bytes{0x00, 0x08, 0x00, 0x06, 1, 2, 3, 4, 5, 6}), &org));
  const Bytes odd = {1, 2, 3};
  org.data = odd;
  Bytes out(20);
  EXPECT_EQ(WritePtpOrganizationExtensionTlv(org, out), 0u);
}

TEST(PtpTlvTest, ManagementTlvs) {
  // GET DEFAULT_DATA_SET, empty dataField.
  const Bytes get = {0x00, 0x01, 0x00, 0x02, 0x20, 0x00};
  PtpManagementTlv m;
  ASSERT_TRUE(ParsePtpManagementTlv(AsTlv(get), &m));
  EXPECT_EQ(m.management_id, 0x2000);
  EXPECT_TRUE(m.data.empty());
  EXPECT_EQ(
      WriteAll([&](auto out) { return WritePtpManagementTlv(0x2000, {}, out); },
               6),
      get);
  // An odd dataField is padded.
  const Bytes three = {7, 8, 9};
  Bytes out(20);
  ASSERT_EQ(WritePtpManagementTlv(0x2005, three, out), 10u);
  EXPECT_EQ(Bytes(out.begin(), out.begin() + 10),
            (Bytes{0x00, 0x01, 0x00, 0x06, 0x20, 0x05, 7, 8, 9, 0}));
  EXPECT_FALSE(ParsePtpManagementTlv(AsTlv({0x00, 0x01, 0x00, 0x00}), &m));
  EXPECT_FALSE(
      ParsePtpManagementTlv(AsTlv({0x00, 0x02, 0x00, 0x02, 0, 0}), &m));

  // MANAGEMENT_ERROR_STATUS NOT_SUPPORTED for PRIORITY1, no displayData.
  const Bytes err = {0x00, 0x02, 0x00, 0x08, 0x00, 0x06,
                     0x20, 0x05, 0x00, 0x00, 0x00, 0x00};
  PtpManagementErrorStatusTlv e;
  ASSERT_TRUE(ParsePtpManagementErrorStatusTlv(AsTlv(err), &e));
  EXPECT_EQ(e.management_error_id, 0x0006);
  EXPECT_EQ(e.management_id, 0x2005);
  EXPECT_TRUE(e.display_data.empty());
  EXPECT_EQ(
      WriteAll(
          [&](auto out) { return WritePtpManagementErrorStatusTlv(e, out); },
          12),
      err);
  // With displayData "no" (3 octets of PTPText, padded).
  e.display_data = "no";
  ASSERT_EQ(WritePtpManagementErrorStatusTlv(e, out), 16u);
  const Bytes with_text(out.begin(), out.begin() + 16);
  EXPECT_EQ(with_text, (Bytes{0x00, 0x02, 0x00, 0x0C, 0x00, 0x06, 0x20, 0x05, 0,
                              0, 0, 0, 0x02, 'n', 'o', 0x00}));
  PtpManagementErrorStatusTlv back;
  ASSERT_TRUE(ParsePtpManagementErrorStatusTlv(AsTlv(with_text), &back));
  EXPECT_EQ(back.display_data, "no");
  Bytes bad = with_text;
  bad[12] = 4;  // text runs past the value
  EXPECT_FALSE(ParsePtpManagementErrorStatusTlv(AsTlv(bad), &back));
  EXPECT_FALSE(ParsePtpManagementErrorStatusTlv(
      AsTlv({0x00, 0x02, 0x00, 0x06, 0, 6, 0x20, 5, 0, 0}), &back));
}

TEST(PtpTlvTest, PtpText) {
  std::string_view text;
  EXPECT_FALSE(ReadPtpText({}, &text));
  EXPECT_TRUE(ReadPtpText(Bytes{0}, &text));
  EXPECT_TRUE(text.empty());
  const Bytes abc = {2, 'a', 'b', 'c'};
  EXPECT_TRUE(ReadPtpText(abc, &text));
  EXPECT_EQ(text, "ab");
  EXPECT_FALSE(ReadPtpText(Bytes{3, 'a', 'b'}, &text));
  EXPECT_FALSE(ReadPtpText(Bytes{255}, &text));
}

// ---- Real ptp4l traffic -----------------------------------------------------

// The PTP messages of tests/data/ptp/<name>, through ClassifyFrame.
std::vector<Bytes> Fixture(const char* name) {
  absl::StatusOr<std::vector<Bytes>> msgs =
      testutil::Ptp4lFixtureMessages(name);
  EXPECT_TRUE(msgs.ok()) << msgs.status();
  return msgs.ok() ? *std::move(msgs) : std::vector<Bytes>{};
}

TEST(PtpTlvTest, Ptp4lUnicastNegotiation) {
  int requests = 0, grants = 0;
  bool granted[16] = {};
  for (const Bytes& b : Fixture("ptp4l_unicast.pcap")) {
    PtpMessage m;
    ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
    if (m.header.message_type != PtpMessageType::kSignaling) continue;
    PtpTlvReader reader(m.tlvs);
    PtpTlv tlv;
    while (reader.Next(&tlv)) {
      PtpUnicastRequest req;
      PtpUnicastGrant grant;
      if (ParsePtpUnicastRequestTlv(tlv, &req)) {
        ++requests;
        EXPECT_EQ(req.duration_s, 10u);  // unicast_req_duration in the script
        Bytes out(10);
        ASSERT_EQ(WritePtpUnicastRequestTlv(req, out), 10u);
        EXPECT_EQ(out, Bytes(tlv.value.data() - 4, tlv.value.data() + 6));
      } else if (ParsePtpUnicastGrantTlv(tlv, &grant)) {
        ++grants;
        EXPECT_EQ(grant.duration_s, 10u);
        EXPECT_TRUE(grant.renewal_invited);
        granted[static_cast<size_t>(grant.message_type)] = true;
        Bytes out(12);
        ASSERT_EQ(WritePtpUnicastGrantTlv(grant, out), 12u);
        EXPECT_EQ(out, Bytes(tlv.value.data() - 4, tlv.value.data() + 8));
      } else {
        ADD_FAILURE() << "unexpected TLV " << static_cast<int>(tlv.type);
      }
    }
    EXPECT_FALSE(reader.malformed());
  }
  EXPECT_GE(requests, 3);
  EXPECT_GE(grants, 3);
  EXPECT_TRUE(granted[static_cast<size_t>(PtpMessageType::kAnnounce)]);
  EXPECT_TRUE(granted[static_cast<size_t>(PtpMessageType::kSync)]);
  EXPECT_TRUE(granted[static_cast<size_t>(PtpMessageType::kDelayResp)]);
}

TEST(PtpTlvTest, Ptp4lAnnouncePathTrace) {
  int announces = 0;
  for (const Bytes& b : Fixture("ptp4l_e2e.pcap")) {
    PtpMessage m;
    ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
    if (m.header.message_type != PtpMessageType::kAnnounce) continue;
    PtpTlv tlv;
    ASSERT_TRUE(FindPtpTlv(m.tlvs, PtpTlvType::kPathTrace, &tlv));
    PtpPathTrace pt;
    ASSERT_TRUE(ParsePtpPathTraceTlv(tlv, &pt));
    ASSERT_EQ(pt.size(), 1u);
    // A grandmaster's path is itself.
    EXPECT_EQ(pt.at(0), m.header.source_port_identity.clock_identity);
    EXPECT_EQ(pt.at(0), std::get<PtpAnnounce>(m.body).grandmaster_identity);
    ++announces;
  }
  EXPECT_GE(announces, 3);
}

// Rewrites `tlv` with the writer that matches its type, from what the
// matching parser read; returns the bytes written (empty if it did not
// parse).
Bytes Rewrite(const PtpTlv& tlv) {
  Bytes out(kPtpTlvHeaderLength + tlv.value.size() + 16);
  size_t n = 0;
  PtpUnicastRequest request;
  PtpUnicastGrant grant;
  PtpUnicastCancel cancel;
  PtpPathTrace path;
  PtpAlternateTimeOffset ato;
  PtpOrganizationExtension org;
  PtpManagementTlv management;
  PtpManagementErrorStatusTlv error;
  if (ParsePtpUnicastRequestTlv(tlv, &request)) {
    n = WritePtpUnicastRequestTlv(request, out);
  } else if (ParsePtpUnicastGrantTlv(tlv, &grant)) {
    n = WritePtpUnicastGrantTlv(grant, out);
  } else if (ParsePtpUnicastCancelTlv(tlv, &cancel)) {
    n = WritePtpUnicastCancelTlv(tlv.type, cancel, out);
  } else if (ParsePtpPathTraceTlv(tlv, &path)) {
    std::vector<PtpClockIdentity> ids;
    for (size_t i = 0; i < path.size(); ++i) ids.push_back(path.at(i));
    n = WritePtpPathTraceTlv(ids, out);
  } else if (ParsePtpAlternateTimeOffsetTlv(tlv, &ato)) {
    n = WritePtpAlternateTimeOffsetTlv(ato, out);
  } else if (ParsePtpOrganizationExtensionTlv(tlv, &org)) {
    n = WritePtpOrganizationExtensionTlv(org, out);
  } else if (ParsePtpManagementTlv(tlv, &management)) {
    n = WritePtpManagementTlv(management.management_id, management.data, out);
  } else if (ParsePtpManagementErrorStatusTlv(tlv, &error)) {
    n = WritePtpManagementErrorStatusTlv(error, out);
  }
  out.resize(n);
  return out;
}

// Every TLV that ptp4l and pmc sent in both fixture sets parses with its
// parser and comes back byte for byte from the matching writer.
TEST(PtpTlvTest, EveryFixtureTlvIsRewrittenByteForByte) {
  absl::StatusOr<std::map<std::string, std::vector<Bytes>>> fixtures =
      testutil::AllPtpFixtureMessages();
  ASSERT_TRUE(fixtures.ok()) << fixtures.status();
  std::map<PtpTlvType, int> seen;
  for (const auto& [name, msgs] : *fixtures) {
    for (const Bytes& b : msgs) {
      PtpMessage m;
      ASSERT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk) << name;
      PtpTlvReader reader(m.tlvs);
      PtpTlv tlv;
      while (reader.Next(&tlv)) {
        const Bytes whole(tlv.value.data() - kPtpTlvHeaderLength,
                          tlv.value.data() + tlv.value.size());
        EXPECT_EQ(Rewrite(tlv), whole)
            << name << ": TLV type " << static_cast<int>(tlv.type);
        ++seen[tlv.type];
      }
      EXPECT_FALSE(reader.malformed()) << name;
    }
  }
  // (No fixture holds a CANCEL_UNICAST_TRANSMISSION: ptp4l 3.1 sends none
  // when it stops. Those are checked against tshark in ptp_tshark_test.)
  for (PtpTlvType t :
       {PtpTlvType::kRequestUnicastTransmission,
        PtpTlvType::kGrantUnicastTransmission, PtpTlvType::kPathTrace,
        PtpTlvType::kManagement, PtpTlvType::kManagementErrorStatus}) {
    EXPECT_GT(seen[t], 0) << "no TLV of type " << static_cast<int>(t);
  }
}

}  // namespace
}  // namespace ptp_tlv_test
}  // namespace zg::core
