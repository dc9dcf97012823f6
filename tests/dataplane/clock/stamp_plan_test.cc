// SPDX-License-Identifier: Apache-2.0
// SelectStampPlan for every NIC family doc/deployment.md lists, with the
// capabilities their DPDK 22.11 PMDs report (doc/guides/nics/features/*.ini
// and the drivers' dev_ops), and the names the logs and metrics use.
#include "dataplane/clock/stamp_plan.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace stamp_plan_test {
namespace {

using ::testing::HasSubstr;

constexpr TxStampSource kNtpSw = kNtpSoftwareTxDefault;
constexpr TxStampSource kPtpSw = kPtpSoftwareTxDefault;
constexpr StampFlags kOff{};
constexpr StampFlags kTimesync{.timesync = true};
constexpr StampFlags kSchedule{.tx_schedule = TxScheduleMode::kAuto,
                               .tx_schedule_lead_ns = 15'000};

// ConnectX-5: RX timestamp offload and read_clock; no tx_pp scheduling.
PortStampCaps ConnectX5() {
  return {.driver = "net_mlx5", .read_clock = true, .rx_dynfield = true};
}
// ConnectX-6 Dx with tx_pp=500, or ConnectX-7 (wait-on-time, no devarg).
PortStampCaps ConnectX6DxTxPp() {
  PortStampCaps c = ConnectX5();
  c.send_on_timestamp = true;
  return c;
}
// E810: RX timestamp offload and timesync, but no read_clock in 22.11.
PortStampCaps E810() {
  return {.driver = "net_ice", .rx_dynfield = true, .timesync = true};
}
PortStampCaps IntelTimesyncOnly(const char* driver) {  // X710, X550, I210
  return {.driver = driver, .timesync = true};
}

void ExpectPlan(const StampPlan& p, RxStampSource ntp_rx, TxStampSource ntp_tx,
                RxStampSource ptp_rx, TxStampSource ptp_tx, bool one_clock) {
  EXPECT_EQ(p.ntp_rx, ntp_rx) << StampPlanString(p);
  EXPECT_EQ(p.ntp_tx, ntp_tx) << StampPlanString(p);
  EXPECT_EQ(p.ptp_rx, ptp_rx) << StampPlanString(p);
  EXPECT_EQ(p.ptp_tx, ptp_tx) << StampPlanString(p);
  EXPECT_EQ(p.ntp_one_clock, one_clock) << StampPlanString(p);
}

// The measured software placements (stamp_plan.h): PTP's t1/t3 before
// tx_burst, NTP interleaved's T3 after it.
TEST(StampPlanTest, SoftwareTxDefaultsArePerProtocol) {
  EXPECT_EQ(kPtpSoftwareTxDefault, TxStampSource::kSoftwareBefore);
  EXPECT_EQ(kNtpSoftwareTxDefault, TxStampSource::kSoftwareAfter);
  const StampPlan p = SelectStampPlan({.driver = "net_af_xdp"}, kOff);
  EXPECT_EQ(p.ptp_tx, TxStampSource::kSoftwareBefore);
  EXPECT_EQ(p.ntp_tx, TxStampSource::kSoftwareAfter);
}

TEST(StampPlanTest, ConnectX5StampsRxInHardwareAndTxInSoftware) {
  for (const StampFlags& f : {kOff, kTimesync, kSchedule}) {
    const StampPlan p = SelectStampPlan(ConnectX5(), f);
    ExpectPlan(p, RxStampSource::kDynfield, kNtpSw, RxStampSource::kDynfield,
               kPtpSw,
               /*one_clock=*/false);
    EXPECT_EQ(p.tx_schedule_lead_ns, 0);
  }
}

TEST(StampPlanTest, ConnectXWithSendOnTimestampSchedulesOnlyWhenAsked) {
  ExpectPlan(SelectStampPlan(ConnectX6DxTxPp(), kOff), RxStampSource::kDynfield,
             kNtpSw, RxStampSource::kDynfield, kPtpSw, false);
  const StampPlan p = SelectStampPlan(ConnectX6DxTxPp(), kSchedule);
  ExpectPlan(p, RxStampSource::kDynfield, TxStampSource::kScheduled,
             RxStampSource::kDynfield, TxStampSource::kScheduled,
             /*one_clock=*/true);
  EXPECT_EQ(p.tx_schedule_lead_ns, 15'000);
}

TEST(StampPlanTest, SendOnTimestampWithoutAReadableClockIsNotUsed) {
  PortStampCaps c = ConnectX6DxTxPp();
  c.read_clock = false;  // a launch time needs the NIC's time now
  const StampPlan p = SelectStampPlan(c, kSchedule);
  EXPECT_EQ(p.ntp_tx, kNtpSw);
  EXPECT_EQ(p.ptp_tx, kPtpSw);
  EXPECT_EQ(p.ntp_rx, RxStampSource::kSoftwareBurst) << "dynfield unmappable";
}

TEST(StampPlanTest, E810UsesTimesyncForPtpAndSoftwareForNtp) {
  ExpectPlan(SelectStampPlan(E810(), kTimesync), RxStampSource::kSoftwareBurst,
             kNtpSw, RxStampSource::kTimesync, TxStampSource::kTimesync, true);
  ExpectPlan(SelectStampPlan(E810(), kOff), RxStampSource::kSoftwareBurst,
             kNtpSw, RxStampSource::kSoftwareBurst, kPtpSw, true);
}

TEST(StampPlanTest, IntelTimesyncPortsNeedTheFlag) {
  for (const char* d : {"net_i40e", "net_ixgbe", "net_e1000_igb"}) {
    SCOPED_TRACE(d);
    ExpectPlan(SelectStampPlan(IntelTimesyncOnly(d), kTimesync),
               RxStampSource::kSoftwareBurst, kNtpSw, RxStampSource::kTimesync,
               TxStampSource::kTimesync, true);
    ExpectPlan(SelectStampPlan(IntelTimesyncOnly(d), kOff),
               RxStampSource::kSoftwareBurst, kNtpSw,
               RxStampSource::kSoftwareBurst, kPtpSw, true);
  }
}

TEST(StampPlanTest, I225AndVirtualPortsAreSoftware) {
  for (const char* d : {"net_igc", "net_ring", "net_memif", "net_tap"}) {
    SCOPED_TRACE(d);
    ExpectPlan(SelectStampPlan({.driver = d}, kTimesync),
               RxStampSource::kSoftwareBurst, kNtpSw,
               RxStampSource::kSoftwareBurst, kPtpSw, true);
  }
}

TEST(StampPlanTest, AfXdpUsesTheXdpProgramsStampsOrTheDriversMetadata) {
  PortStampCaps c{.driver = "net_af_xdp", .af_xdp = true};
  ExpectPlan(SelectStampPlan(c, kOff), RxStampSource::kXdpKernel, kNtpSw,
             RxStampSource::kXdpKernel, kPtpSw, /*one_clock=*/false);
  StampFlags no_prog;
  no_prog.xdp_rx_stamps = false;  // no xdp_prog= or --xdp_rx_timestamps=false
  ExpectPlan(SelectStampPlan(c, no_prog), RxStampSource::kSoftwareBurst, kNtpSw,
             RxStampSource::kSoftwareBurst, kPtpSw, true);
  c.xdp_rx_metadata = true;
  EXPECT_EQ(SelectStampPlan(c, kOff).ntp_rx, RxStampSource::kXdpMetadata);
}

// --ntp_tx_stamp: the software T3's placement, where T3 is a TSC stamp.
TEST(StampPlanTest, SoftwareT3PlacementFollowsTheFlag) {
  PortStampCaps c{.driver = "net_af_xdp", .af_xdp = true};
  StampFlags f;
  EXPECT_EQ(f.ntp_tx_placement, core::TxStampPlacement::kMidpoint);
  EXPECT_EQ(SelectStampPlan(c, f).ntp_tx_placement,
            core::TxStampPlacement::kMidpoint);
  f.ntp_tx_placement = core::TxStampPlacement::kAfter;
  const StampPlan p = SelectStampPlan(c, f);
  EXPECT_EQ(p.ntp_tx_placement, core::TxStampPlacement::kAfter);
  EXPECT_THAT(StampPlanString(p), HasSubstr(" ntp_t3=after"));
  // A scheduled T3 is exact: no placement.
  StampFlags sched = kSchedule;
  sched.ntp_tx_placement = core::TxStampPlacement::kAfter;
  EXPECT_EQ(SelectStampPlan(ConnectX6DxTxPp(), sched).ntp_tx_placement,
            core::TxStampPlacement::kBefore);
}

TEST(StampPlanTest, NamesAndPlanString) {
  EXPECT_STREQ(RxStampSourceName(RxStampSource::kDynfield), "dynfield");
  EXPECT_STREQ(RxStampSourceName(RxStampSource::kXdpKernel), "xdp_kernel");
  EXPECT_STREQ(RxStampSourceName(RxStampSource::kSoftwareBurst),
               "software_burst");
  EXPECT_STREQ(TxStampSourceName(TxStampSource::kSoftwareAfter),
               "software_after");
  EXPECT_STREQ(TxStampSourceName(TxStampSource::kScheduled), "scheduled");
  const std::string s =
      StampPlanString(SelectStampPlan(ConnectX6DxTxPp(), kSchedule));
  EXPECT_EQ(s,
            "ntp_rx=dynfield ntp_tx=scheduled ptp_rx=dynfield "
            "ptp_tx=scheduled ntp_one_clock=yes tx_schedule_lead=15000ns");
  EXPECT_THAT(PortStampCapsString(E810()),
              HasSubstr("driver net_ice: rx_dynfield yes, read_clock no, "
                        "timesync yes (one TX latch)"));
}

}  // namespace
}  // namespace stamp_plan_test
}  // namespace zg::dataplane
