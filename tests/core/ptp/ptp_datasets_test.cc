// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_datasets.h"

#include <array>
#include <vector>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_datasets_test {
namespace {

constexpr std::array<uint8_t, 6> kMac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
constexpr TaiNs kAnchor{1'700'000'000LL * kNanosPerSecond};

ClockModel LockedModel() {
  ClockModel m;
  m.tai_anchor = kAnchor;
  m.ns_per_tick_q32 = NsPerTickQ32FromHz(1e9);
  m.max_extrapolation_ns = 10 * kNanosPerSecond;
  m.state = SyncState::kLocked;
  m.utc_offset_s = 37;
  m.ptp_quality = {6, 0x21, 0x4E5D};
  m.ptp_time_source = PtpTimeSource::kGnss;
  m.time_traceable = true;
  m.frequency_traceable = true;
  return m;
}

TEST(PtpDatasets, IdentityIsEui64OfTheMac) {
  const PtpClockIdentity id = PtpClockIdentity::FromMac(kMac);
  const std::array<uint8_t, 8> want = {0x02, 0x11, 0x22, 0xFF,
                                       0xFE, 0x33, 0x44, 0x55};
  EXPECT_EQ(id.octets, want);
}

TEST(PtpDatasets, SynchronisedModelIsServedAsIs) {
  const ClockModel m = LockedModel();
  const PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  const PtpGrandmasterView gm = MakePtpGrandmasterView(
      config, PtpClockIdentity::FromMac(kMac), m, kAnchor + 1000);
  EXPECT_TRUE(gm.synchronized);
  EXPECT_FALSE(gm.uncertain);
  EXPECT_EQ(gm.quality, (PtpClockQuality{6, 0x21, 0x4E5D}));
  EXPECT_EQ(gm.time_properties.current_utc_offset, 37);
  EXPECT_TRUE(gm.time_properties.current_utc_offset_valid);
  EXPECT_TRUE(gm.time_properties.ptp_timescale);
  EXPECT_TRUE(gm.time_properties.time_traceable);
  EXPECT_TRUE(gm.time_properties.frequency_traceable);
  EXPECT_EQ(gm.time_properties.time_source, PtpTimeSource::kGnss);
  EXPECT_FALSE(gm.time_properties.leap61);
  EXPECT_FALSE(gm.time_properties.leap59);

  const PtpFlags f = PtpAnnounceFlags(gm);
  EXPECT_EQ(f.bits, 0x0004 | 0x0008 | 0x0010 | 0x0020);
}

TEST(PtpDatasets, StaleModelIsFreeRunning) {
  const ClockModel m = LockedModel();
  const PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  const PtpGrandmasterView gm =
      MakePtpGrandmasterView(config, PtpClockIdentity::FromMac(kMac), m,
                             kAnchor + 11 * kNanosPerSecond);
  EXPECT_FALSE(gm.synchronized);
  EXPECT_EQ(gm.quality, (PtpClockQuality{248, 0xFE, 0xFFFF}));
  EXPECT_FALSE(gm.time_properties.time_traceable);
  EXPECT_FALSE(gm.time_properties.frequency_traceable);
  // The offset is still known (the model locked once).
  EXPECT_TRUE(gm.time_properties.current_utc_offset_valid);
  EXPECT_EQ(gm.time_properties.time_source, PtpTimeSource::kGnss);
}

// Out of holdover spec: not synchronised (no traceability, NTP LI=3), but
// the control plane's degradation class is served, not 248; once the model
// is stale, or free running, the profile's free-run class.
TEST(PtpDatasets, OutOfSpecHoldoverServesItsDegradationClass) {
  ClockModel m = LockedModel();
  m.state = SyncState::kHoldoverOutOfSpec;
  m.ptp_quality = {187, 0x2F, 0xFFFF};
  const PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  const PtpClockIdentity id = PtpClockIdentity::FromMac(kMac);
  PtpGrandmasterView gm = MakePtpGrandmasterView(config, id, m, kAnchor);
  EXPECT_FALSE(gm.synchronized);
  EXPECT_EQ(gm.quality, (PtpClockQuality{187, 0x2F, 0xFFFF}));
  EXPECT_FALSE(gm.time_properties.time_traceable);
  gm = MakePtpGrandmasterView(config, id, m, kAnchor + 11 * kNanosPerSecond);
  EXPECT_EQ(gm.quality, (PtpClockQuality{248, 0xFE, 0xFFFF})) << "stale";
  m.state = SyncState::kFreerun;
  gm = MakePtpGrandmasterView(config, id, m, kAnchor);
  EXPECT_EQ(gm.quality, (PtpClockQuality{248, 0xFE, 0xFFFF})) << "free run";
}

TEST(PtpDatasets, FreeRunningModelHasNoValidOffset) {
  ClockModel m = LockedModel();
  m.state = SyncState::kFreerun;
  const PtpTimePropertiesDataSet tp = PtpTimePropertiesAt(m, kAnchor);
  EXPECT_FALSE(tp.current_utc_offset_valid);
  EXPECT_FALSE(tp.time_traceable);
  const ClockModel never;  // never published
  EXPECT_FALSE(PtpTimePropertiesAt(never, kAnchor).current_utc_offset_valid);
}

TEST(PtpDatasets, LockingIsUncertain) {
  ClockModel m = LockedModel();
  m.state = SyncState::kLocking;
  const PtpGrandmasterView gm =
      MakePtpGrandmasterView(DefaultPtpPortConfig(PtpProfileId::kDefaultE2E),
                             PtpClockIdentity::FromMac(kMac), m, kAnchor);
  EXPECT_TRUE(gm.uncertain);
  EXPECT_TRUE(PtpAnnounceFlags(gm).Has(PtpFlag::kSynchronizationUncertain));
}

TEST(PtpDatasets, LeapFlagsDuringTheLastDayOnly) {
  ClockModel m = LockedModel();
  m.max_extrapolation_ns = 3 * kSecondsPerDay * kNanosPerSecond;
  m.leap = LeapPending::kInsert;
  m.leap_at = kAnchor + 2 * kSecondsPerDay * kNanosPerSecond;
  // Two days before: not announced.
  EXPECT_FALSE(PtpTimePropertiesAt(m, kAnchor).leap61);
  // Within the last day: leap61, offset still 37.
  const TaiNs before = m.leap_at - kNanosPerSecond;
  PtpTimePropertiesDataSet tp = PtpTimePropertiesAt(m, before);
  EXPECT_TRUE(tp.leap61);
  EXPECT_FALSE(tp.leap59);
  EXPECT_EQ(tp.current_utc_offset, 37);
  // After the leap: flag off, offset 38.
  tp = PtpTimePropertiesAt(m, m.leap_at + kNanosPerSecond);
  EXPECT_FALSE(tp.leap61);
  EXPECT_EQ(tp.current_utc_offset, 38);

  m.leap = LeapPending::kDelete;
  tp = PtpTimePropertiesAt(m, before);
  EXPECT_TRUE(tp.leap59);
  EXPECT_FALSE(tp.leap61);
  EXPECT_EQ(PtpTimePropertiesAt(m, m.leap_at).current_utc_offset, 36);
  EXPECT_EQ(PtpTimePropertiesFlags(tp, false).bits & 0x0003, 0x0002);
}

TEST(PtpDatasets, AnnounceBody) {
  PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  config.priority1 = 7;
  config.priority2 = 9;
  const PtpGrandmasterView gm = MakePtpGrandmasterView(
      config, PtpClockIdentity::FromMac(kMac), LockedModel(), kAnchor);
  const PtpAnnounce a = MakePtpAnnounceBody(gm, {123, 456});
  EXPECT_EQ(a.origin_timestamp, (PtpTimestamp{123, 456}));
  EXPECT_EQ(a.current_utc_offset, 37);
  EXPECT_EQ(a.grandmaster_priority1, 7);
  EXPECT_EQ(a.grandmaster_priority2, 9);
  EXPECT_EQ(a.grandmaster_clock_quality.clock_class, 6);
  EXPECT_EQ(a.grandmaster_identity, PtpClockIdentity::FromMac(kMac));
  EXPECT_EQ(a.steps_removed, 0);
  EXPECT_EQ(a.time_source, PtpTimeSource::kGnss);
}

TEST(PtpDatasets, DataSetsAnsweredThroughTheManagementResponder) {
  PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
  config.domain_number = 3;
  config.log_min_delay_req_interval = 2;
  const PtpClockIdentity id = PtpClockIdentity::FromMac(kMac);
  const PtpGrandmasterView gm =
      MakePtpGrandmasterView(config, id, LockedModel(), kAnchor);
  const PtpDataSets ds = MakePtpDataSets(gm, config, 1, /*number_ports=*/2,
                                         PtpPortState::kPassive);
  EXPECT_TRUE(ds.default_ds.two_step);
  EXPECT_EQ(ds.default_ds.number_ports, 2);
  EXPECT_EQ(ds.default_ds.domain_number, 3);
  EXPECT_EQ(ds.default_ds.clock_identity, id);
  EXPECT_EQ(ds.parent_ds.grandmaster_identity, id);
  EXPECT_EQ(ds.parent_ds.parent_port_identity, (PtpPortIdentity{id, 0}));
  EXPECT_EQ(ds.port_ds.port_identity, (PtpPortIdentity{id, 1}));
  EXPECT_EQ(ds.port_ds.port_state, PtpPortState::kPassive);
  EXPECT_EQ(ds.port_ds.log_min_delay_req_interval, 2);
  EXPECT_EQ(ds.port_ds.log_announce_interval, 1);
  EXPECT_EQ(ds.time_properties_ds, gm.time_properties);

  // A pmc-style GET of PORT_DATA_SET, padded to the answer's size.
  const PtpManagementConfig mc = MakePtpManagementConfig(config, {id, 1});
  EXPECT_EQ(mc.domain_number, 3);
  PtpHeader h;
  h.domain_number = 3;
  h.source_port_identity = {{{1, 2, 3, 4, 5, 6, 7, 8}}, 1};
  h.sequence_id = 9;
  PtpManagement body;
  body.target_port_identity = PtpPortIdentity::All();
  body.starting_boundary_hops = 1;
  body.boundary_hops = 1;
  body.action = PtpManagementAction::kGet;
  std::vector<uint8_t> zeros(kPtpPortDataSetLength, 0);
  std::vector<uint8_t> req(200);
  const size_t n = WritePtpManagementMessage(
      h, body, static_cast<uint16_t>(PtpManagementId::kPortDataSet), zeros,
      req);
  ASSERT_GT(n, 0u);
  req.resize(n);
  std::vector<uint8_t> out(200);
  const PtpManagementAnswer a = AnswerPtpManagement(req, mc, ds, out);
  ASSERT_EQ(a.result, PtpManagementResult::kResponse);
  PtpManagementMessage parsed;
  ASSERT_EQ(ParsePtpManagementMessage(std::span(out).first(a.length), &parsed),
            PtpDrop::kOk);
  PtpPortDataSet port;
  ASSERT_TRUE(ParsePtpDataSet(parsed.data, &port));
  EXPECT_EQ(port, ds.port_ds);
}

TEST(PtpDatasets, ReplyConfig) {
  PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
  config.minor_version = 0;
  const PtpPortIdentity port{PtpClockIdentity::FromMac(kMac), 1};
  const PtpReplyConfig r = MakePtpReplyConfig(config, port);
  EXPECT_EQ(r.port_identity, port);
  EXPECT_EQ(r.domain_number, 44);
  EXPECT_EQ(r.minor_version, 0);
  EXPECT_EQ(r.log_min_delay_req_interval, -4);
}

}  // namespace
}  // namespace ptp_datasets_test
}  // namespace zg::core
