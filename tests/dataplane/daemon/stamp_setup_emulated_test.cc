// SPDX-License-Identifier: Apache-2.0
// The stamp plan on the emulated timestamping NIC (testing/emulated_nic.h)
// standing in for each NIC family: ProbePortStampCaps reads what it offers
// through DPDK's API, PortStamps picks and attaches the plan's clock, and
// zeitgeberd --nic_check (RunNicCheck) reports the caps, the plan and, on
// an Intel-style timesync port, the TX-stamp latency it measures.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "dataplane/daemon/nic_check.h"
#include "dataplane/daemon/stamp_setup.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/emulated_nic.h"

namespace zg::dataplane {
namespace stamp_setup_emulated_test {
namespace {

using testing::EmulatedNic;
using testing::EmulatedNicConfig;
using ::testing::HasSubstr;

class StampSetupEmulatedTest : public ::testing::Test {
 protected:
  // An emulated NIC opened and started as zeitgeberd's Port does.
  void Start(const std::string& tag, const EmulatedNicConfig& c,
             bool timesync) {
    nic_ = EmulatedNic::Create(tag, c);
    PortOptions o;
    o.name = absl::StrCat("net_zg_emu_", tag);
    o.timesync = timesync;
    o.tx_schedule = true;  // --tx_schedule=auto: enabled where offered
    auto port = Port::Open(o, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *std::move(port);
    ASSERT_TRUE(port_->Start().ok());
  }
  void TearDown() override {
    stamps_.reset();  // detaches RX callbacks before the port goes
    port_.reset();
    nic_.reset();
  }
  void SetUpStamps(const StampFlags& flags) {
    auto s = PortStamps::SetUp(*port_, {.flags = flags});
    ASSERT_TRUE(s.ok()) << s.status();
    stamps_ = *std::move(s);
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  std::unique_ptr<PortStamps> stamps_;
};

TEST_F(StampSetupEmulatedTest, Mlx5StyleGetsDynfieldAndScheduledTx) {
  EmulatedNicConfig c;
  c.send_on_timestamp = true;
  ASSERT_NO_FATAL_FAILURE(Start("mlx", c, false));
  absl::StatusOr<PortStampCaps> caps = ProbePortStampCaps(port_->id());
  ASSERT_TRUE(caps.ok()) << caps.status();
  EXPECT_TRUE(caps->rx_dynfield);
  EXPECT_TRUE(caps->read_clock);
  EXPECT_TRUE(caps->send_on_timestamp);
  EXPECT_FALSE(caps->timesync);
  EXPECT_FALSE(caps->af_xdp);

  ASSERT_NO_FATAL_FAILURE(SetUpStamps(
      {.tx_schedule = TxScheduleMode::kAuto, .tx_schedule_lead_ns = 5'000}));
  const StampPlan& p = stamps_->plan();
  EXPECT_EQ(p.ntp_rx, RxStampSource::kDynfield);
  EXPECT_EQ(p.ntp_tx, TxStampSource::kScheduled);
  EXPECT_EQ(p.ptp_tx, TxStampSource::kScheduled);
  EXPECT_TRUE(p.ntp_one_clock);
  EXPECT_EQ(p.tx_schedule_lead_ns, 5'000);
  ASSERT_NE(stamps_->nic(), nullptr);
  EXPECT_EQ(stamps_->nic()->name(), absl::StrCat("port", port_->id()));
  EXPECT_EQ(stamps_->field().offset, port_->stamp_field().offset);
  absl::StatusOr<NicTscSample> s = stamps_->nic()->Sample();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NEAR(static_cast<double>(s->nic_ticks),
              static_cast<double>(nic_->NicNsAtTsc(s->tsc_mid())), 1e6);
}

TEST_F(StampSetupEmulatedTest, IntelStyleGetsTimesyncOnlyWithTheFlag) {
  EmulatedNicConfig c;
  c.rx_dynfield = false;
  c.timesync = true;
  c.tx_stamp_latency_ns = 3'000;
  ASSERT_NO_FATAL_FAILURE(Start("intel", c, true));
  absl::StatusOr<PortStampCaps> caps = ProbePortStampCaps(port_->id());
  ASSERT_TRUE(caps.ok()) << caps.status();
  EXPECT_FALSE(caps->rx_dynfield);
  EXPECT_FALSE(caps->read_clock);
  EXPECT_TRUE(caps->timesync);
  EXPECT_TRUE(caps->timesync_one_latch);

  ASSERT_NO_FATAL_FAILURE(SetUpStamps({.timesync = true}));
  EXPECT_EQ(stamps_->plan().ptp_tx, TxStampSource::kTimesync);
  EXPECT_EQ(stamps_->plan().ptp_rx, RxStampSource::kTimesync);
  EXPECT_EQ(stamps_->plan().ntp_rx, RxStampSource::kSoftwareBurst);
  EXPECT_EQ(stamps_->nic(), nullptr);

  ::testing::internal::CaptureStdout();
  EXPECT_EQ(RunNicCheck(*port_, *stamps_, &pools_), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("nic_check timesync: yes\n"));
  EXPECT_THAT(out, HasSubstr("nic_check ptp_tx: timesync\n"));
  EXPECT_THAT(out, HasSubstr("nic_check tx_stamp_timeouts: 0 of 8"));
  EXPECT_THAT(out, HasSubstr("us over 8\n")) << out;
  std::printf("%s", out.c_str());  // the measured latency, for the log
  EXPECT_EQ(nic_->counters().tx_stamps_read, 8u);
  EXPECT_EQ(nic_->counters().tx_stamps_overwritten, 0u) << "one at a time";
  for (const EmulatedNic::WireFrame& f : nic_->TakeTransmitted()) {
    EXPECT_TRUE(f.tx_stamped);
    EXPECT_EQ(f.bytes.size(), 58u);
    EXPECT_EQ(f.bytes[14 + 4], 127) << "domain 127";
  }
}

TEST_F(StampSetupEmulatedTest, TimesyncNotRequestedIsSoftware) {
  EmulatedNicConfig c;
  c.rx_dynfield = false;
  c.timesync = true;
  ASSERT_NO_FATAL_FAILURE(Start("nots", c, false));
  ASSERT_NO_FATAL_FAILURE(SetUpStamps({}));
  EXPECT_FALSE(stamps_->caps().timesync) << "the port did not enable it";
  EXPECT_EQ(stamps_->plan().ptp_tx, kPtpSoftwareTxDefault);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(RunNicCheck(*port_, *stamps_, &pools_), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("nic_check tx_stamp_latency: n/a"));
  EXPECT_TRUE(nic_->TakeTransmitted().empty()) << "nothing sent";
}

}  // namespace
}  // namespace stamp_setup_emulated_test
}  // namespace zg::dataplane
