// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_originate.h"

#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_originate_test {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr PtpClockIdentity kUs{
    {0x02, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55}};
constexpr PtpTimestamp kT{1'700'000'037, 123'456'789};

PtpReplyConfig Port() {
  PtpReplyConfig r;
  r.port_identity = {kUs, 1};
  r.domain_number = 24;
  r.minor_version = 1;
  return r;
}

PtpGrandmasterView Gm() {
  PtpGrandmasterView gm;
  gm.identity = kUs;
  gm.priority1 = 10;
  gm.priority2 = 20;
  gm.quality = {6, 0x21, 0x4E5D};
  gm.time_properties.current_utc_offset = 37;
  gm.time_properties.current_utc_offset_valid = true;
  gm.time_properties.ptp_timescale = true;
  gm.time_properties.time_traceable = true;
  gm.time_properties.leap61 = true;
  gm.time_properties.time_source = PtpTimeSource::kGnss;
  return gm;
}

PtpMessage Parse(const Bytes& b) {
  PtpMessage m;
  EXPECT_EQ(ParsePtpMessage(b, &m), PtpDrop::kOk);
  return m;
}

TEST(PtpOriginate, AnnounceMatchesAFullSerialisation) {
  PtpOriginTemplates t;
  ASSERT_TRUE(t.Build(Port(), Gm(), true));
  Bytes out(100);
  ASSERT_EQ(t.WriteAnnounce(out, 0x1234, 1, false, kT), kPtpAnnounceLength);
  out.resize(kPtpAnnounceLength);

  PtpMessage want;
  want.header.minor_version = 1;
  want.header.domain_number = 24;
  want.header.flags = PtpAnnounceFlags(Gm());
  want.header.source_port_identity = {kUs, 1};
  want.header.sequence_id = 0x1234;
  want.header.control_field = 5;
  want.header.log_message_interval = 1;
  want.body = MakePtpAnnounceBody(Gm(), kT);
  Bytes ref(100);
  ref.resize(SerializePtpMessage(want, ref));
  EXPECT_EQ(out, ref);

  const PtpMessage m = Parse(out);
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kLeap61));
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kTimeTraceable));
  EXPECT_FALSE(m.header.flags.Has(PtpFlag::kUnicast));
  const auto& a = std::get<PtpAnnounce>(m.body);
  EXPECT_EQ(a.grandmaster_priority1, 10);
  EXPECT_EQ(a.origin_timestamp, kT);
}

TEST(PtpOriginate, UnicastSyncAndFollowUp) {
  PtpOriginTemplates t;
  ASSERT_TRUE(t.Build(Port(), Gm(), true));
  Bytes sync(64);
  ASSERT_EQ(t.WriteSync(sync, 7, -4, true, kT), kPtpSyncLength);
  sync.resize(kPtpSyncLength);
  PtpMessage m = Parse(sync);
  EXPECT_EQ(m.header.message_type, PtpMessageType::kSync);
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kTwoStep));
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kUnicast));
  EXPECT_FALSE(m.header.flags.Has(PtpFlag::kLeap61));  // Announce only
  EXPECT_EQ(m.header.sequence_id, 7);
  EXPECT_EQ(m.header.log_message_interval, -4);
  EXPECT_EQ(m.header.control_field, 0);
  EXPECT_EQ(m.header.domain_number, 24);
  EXPECT_EQ(std::get<PtpSync>(m.body).origin_timestamp, kT);

  Bytes fu(64);
  const PtpTimestamp t1{kT.seconds, kT.nanoseconds + 100};
  ASSERT_EQ(t.WriteFollowUp(fu, 7, -4, true, t1), kPtpFollowUpLength);
  fu.resize(kPtpFollowUpLength);
  m = Parse(fu);
  EXPECT_EQ(m.header.message_type, PtpMessageType::kFollowUp);
  EXPECT_FALSE(m.header.flags.Has(PtpFlag::kTwoStep));
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kUnicast));
  EXPECT_EQ(m.header.control_field, 2);
  EXPECT_EQ(std::get<PtpFollowUp>(m.body).precise_origin_timestamp, t1);

  // The template is not modified by a unicast write.
  Bytes mc(64);
  t.WriteSync(mc, 8, 0, false, kT);
  EXPECT_FALSE(Parse(Bytes(mc.begin(), mc.begin() + 44))
                   .header.flags.Has(PtpFlag::kUnicast));
}

TEST(PtpOriginate, OneStepAndLimits) {
  PtpOriginTemplates t;
  ASSERT_TRUE(t.Build(Port(), Gm(), false));
  EXPECT_FALSE(t.two_step());
  Bytes sync(44);
  ASSERT_EQ(t.WriteSync(sync, 1, 0, false, kT), kPtpSyncLength);
  EXPECT_FALSE(Parse(sync).header.flags.Has(PtpFlag::kTwoStep));
  Bytes small(43);
  EXPECT_EQ(t.WriteSync(small, 1, 0, false, kT), 0u);
  EXPECT_EQ(t.WriteSync(sync, 1, 0, false, {1, 1'000'000'000}), 0u);
  PtpReplyConfig bad = Port();
  bad.minor_version = 16;
  EXPECT_FALSE(t.Build(bad, Gm(), true));
}

TEST(PtpOriginate, SetBodyTimestamp) {
  PtpOriginTemplates t;
  ASSERT_TRUE(t.Build(Port(), Gm(), true));
  Bytes fu(44);
  t.WriteFollowUp(fu, 1, 0, false, {});
  ASSERT_TRUE(PtpSetBodyTimestamp(fu, kT));
  EXPECT_EQ(std::get<PtpFollowUp>(Parse(fu).body).precise_origin_timestamp, kT);
  Bytes shorter(43);
  EXPECT_FALSE(PtpSetBodyTimestamp(shorter, kT));
  EXPECT_FALSE(PtpSetBodyTimestamp(fu, {uint64_t{1} << 48, 0}));
}

TEST(PtpOriginate, PdelayRespFollowUp) {
  PtpHeader req;
  req.domain_number = 24;
  req.minor_sdo_id = 0;
  req.sequence_id = 0xBEEF;
  req.source_port_identity = {{{9, 9, 9, 9, 9, 9, 9, 9}}, 3};
  req.flags.Set(PtpFlag::kUnicast);
  Bytes out(64);
  const size_t n = WritePtpPdelayRespFollowUp(out, Port(), req, kT,
                                              PtpCorrection::FromNanos(5));
  ASSERT_EQ(n, kPtpPdelayRespFollowUpLength);
  out.resize(n);
  const PtpMessage m = Parse(out);
  EXPECT_EQ(m.header.message_type, PtpMessageType::kPdelayRespFollowUp);
  EXPECT_EQ(m.header.sequence_id, 0xBEEF);
  EXPECT_EQ(m.header.correction, PtpCorrection::FromNanos(5));
  EXPECT_TRUE(m.header.flags.Has(PtpFlag::kUnicast));
  EXPECT_EQ(m.header.log_message_interval, 0x7F);
  EXPECT_EQ(m.header.source_port_identity, (PtpPortIdentity{kUs, 1}));
  const auto& b = std::get<PtpPdelayRespFollowUp>(m.body);
  EXPECT_EQ(b.response_origin_timestamp, kT);
  EXPECT_EQ(b.requesting_port_identity, req.source_port_identity);
  Bytes small(53);
  EXPECT_EQ(WritePtpPdelayRespFollowUp(small, Port(), req, kT, {}), 0u);
}

}  // namespace
}  // namespace ptp_originate_test
}  // namespace zg::core
