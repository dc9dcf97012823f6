// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_bmca.h"

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_bmca_test {
namespace {

constexpr PtpClockIdentity Id(uint8_t last) {
  return {{0x00, 0x11, 0x22, 0xFF, 0xFE, 0x00, 0x00, last}};
}

// Two grandmasters that differ only in identity (A's is lower).
PtpBmcaDataset Gm(uint8_t id_last) {
  PtpBmcaDataset d;
  d.gm_identity = Id(id_last);
  d.gm_quality = {6, 0x21, 0x4E5D};
  d.sender = {Id(id_last), 1};
  d.receiver = {Id(0x99), 1};
  return d;
}

TEST(PtpBmca, AttributesInOrder) {
  PtpBmcaDataset a = Gm(2), b = Gm(1);
  // Identity is the last tie-breaker: lower wins.
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kBBetter);
  EXPECT_EQ(ComparePtpDatasets(b, a), PtpBmcaResult::kABetter);
  // priority2 before identity.
  a.gm_priority2 = 127;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  // variance before priority2.
  b.gm_quality.offset_scaled_log_variance = 0x4E00;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kBBetter);
  // accuracy before variance.
  a.gm_quality.clock_accuracy = 0x20;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  // class before accuracy.
  a.gm_quality.clock_class = 7;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kBBetter);
  // priority1 before everything.
  a.gm_priority1 = 127;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  // stepsRemoved does not matter between different grandmasters.
  a.steps_removed = 10;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
}

TEST(PtpBmca, SameGrandmasterComparesTopology) {
  PtpBmcaDataset a = Gm(1), b = Gm(1);
  a.steps_removed = 1;
  b.steps_removed = 3;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  EXPECT_EQ(ComparePtpDatasets(b, a), PtpBmcaResult::kBBetter);

  // One step apart: B's receiver vs B's sender decides how.
  b.steps_removed = 2;
  b.sender = {Id(0x50), 1};
  b.receiver = {Id(0x40), 1};  // receiver < sender
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  b.receiver = {Id(0x60), 1};  // receiver > sender
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetterByTopology);
  EXPECT_EQ(ComparePtpDatasets(b, a), PtpBmcaResult::kBBetterByTopology);
  b.receiver = b.sender;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kError1);

  // Same steps: lower sender identity, then lower receiver port number.
  b = a;
  b.sender = {Id(0x02), 1};
  a.sender = {Id(0x01), 7};
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetterByTopology);
  b.sender = a.sender;
  b.receiver.port_number = 2;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetterByTopology);
  EXPECT_EQ(ComparePtpDatasets(b, a), PtpBmcaResult::kBBetterByTopology);
  b.receiver = a.receiver;
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kError2);
}

TEST(PtpBmca, PortIdentityOrder) {
  EXPECT_LT(ComparePtpPortIdentity({Id(1), 9}, {Id(2), 1}), 0);
  EXPECT_GT(ComparePtpPortIdentity({Id(2), 1}, {Id(1), 9}), 0);
  EXPECT_LT(ComparePtpPortIdentity({Id(1), 1}, {Id(1), 2}), 0);
  EXPECT_EQ(ComparePtpPortIdentity({Id(1), 1}, {Id(1), 1}), 0);
}

TEST(PtpBmca, TelecomIgnoresPriority1AndUsesLocalPriority) {
  PtpBmcaDataset a = Gm(2), b = Gm(1);
  a.gm_priority1 = 0;  // would win under 1588; G.8275 ignores it
  // (class 6: equal grandmasters are then ordered by topology)
  EXPECT_EQ(ComparePtpDatasetsG8275(a, b), PtpBmcaResult::kBBetterByTopology);
  EXPECT_EQ(ComparePtpDatasets(a, b), PtpBmcaResult::kABetter);
  // localPriority after priority2.
  a.local_priority = 10;
  EXPECT_EQ(ComparePtpDatasetsG8275(a, b), PtpBmcaResult::kABetter);
  b.gm_priority2 = 1;
  EXPECT_EQ(ComparePtpDatasetsG8275(a, b), PtpBmcaResult::kBBetter);
}

TEST(PtpBmca, TelecomClass6UsesTopologyBeforeIdentity) {
  // Two PRTC-locked grandmasters (class 6): the nearer one wins, not the
  // lower identity.
  PtpBmcaDataset a = Gm(2), b = Gm(1);
  a.steps_removed = 0;
  b.steps_removed = 2;
  EXPECT_EQ(ComparePtpDatasetsG8275(a, b), PtpBmcaResult::kABetter);
  // Class 248: identity decides.
  a.gm_quality.clock_class = b.gm_quality.clock_class = 248;
  EXPECT_EQ(ComparePtpDatasetsG8275(a, b), PtpBmcaResult::kBBetter);
}

TEST(PtpBmca, ForProfile) {
  PtpBmcaDataset a = Gm(2), b = Gm(1);
  a.gm_priority1 = 0;
  EXPECT_TRUE(PtpABetter(
      ComparePtpDatasetsFor(GetPtpProfile(PtpProfileId::kDefaultE2E), a, b)));
  EXPECT_TRUE(PtpBBetter(
      ComparePtpDatasetsFor(GetPtpProfile(PtpProfileId::kG8275_2), a, b)));
}

TEST(PtpBmca, DatasetsFromLocalClockAndAnnounce) {
  PtpGrandmasterView gm;
  gm.identity = Id(5);
  gm.priority1 = 3;
  gm.priority2 = 4;
  gm.local_priority = 9;
  gm.quality = {7, 0x22, 0x1000};
  const PtpBmcaDataset d0 = PtpBmcaDatasetOfLocalClock(gm);
  EXPECT_EQ(d0.steps_removed, 0);
  EXPECT_EQ(d0.sender, (PtpPortIdentity{Id(5), 0}));
  EXPECT_EQ(d0.receiver, d0.sender);
  EXPECT_EQ(d0.gm_priority1, 3);
  EXPECT_EQ(d0.local_priority, 9);

  PtpHeader h;
  h.source_port_identity = {Id(8), 1};
  PtpAnnounce a;
  a.grandmaster_identity = Id(6);
  a.grandmaster_priority1 = 1;
  a.grandmaster_priority2 = 2;
  a.grandmaster_clock_quality = {6, 0x20, 0x100};
  a.steps_removed = 1;
  const PtpBmcaDataset e = PtpBmcaDatasetFromAnnounce(h, a, {Id(5), 1}, 200);
  EXPECT_EQ(e.gm_identity, Id(6));
  EXPECT_EQ(e.gm_priority1, 1);
  EXPECT_EQ(e.gm_quality.clock_class, 6);
  EXPECT_EQ(e.steps_removed, 1);
  EXPECT_EQ(e.sender, (PtpPortIdentity{Id(8), 1}));
  EXPECT_EQ(e.receiver, (PtpPortIdentity{Id(5), 1}));
  EXPECT_EQ(e.local_priority, 200);
  EXPECT_TRUE(PtpABetter(ComparePtpDatasets(e, d0)));
}

TEST(PtpBmca, Names) {
  EXPECT_STREQ(PtpBmcaResultName(PtpBmcaResult::kABetterByTopology),
               "a_better_by_topology");
  EXPECT_STREQ(PtpBmcaResultName(PtpBmcaResult::kError2), "error2");
}

}  // namespace
}  // namespace ptp_bmca_test
}  // namespace zg::core
