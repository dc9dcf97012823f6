// SPDX-License-Identifier: Apache-2.0
// The stamp plan on ring ports: ProbePortStampCaps reads what net_ring
// offers (nothing: software stamps), PortStamps attaches the synthetic NIC
// clock of --fake_nic_clock as the dynfield source, and the plan is exported
// as zeitgeber_stamp_source{port,stamp,source}.
#include "dataplane/daemon/stamp_setup.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "tests/dataplane/testing/dpdk_env.h"

namespace zg::dataplane {
namespace stamp_setup_test {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Port> StartRingPort(const std::string& tag, MbufPools* pools,
                                    bool timesync = false) {
  testing::RingPort ring = testing::MakeRingPort(tag, 1);
  PortOptions o;
  o.name = ring.name;
  o.timesync = timesync;
  auto port = Port::Open(o, pools);
  EXPECT_TRUE(port.ok()) << port.status();
  if (!port.ok()) return nullptr;
  EXPECT_TRUE((*port)->Start().ok());
  return *std::move(port);
}

TEST(StampSetupTest, RingPortOffersNothingAndGetsSoftwareStamps) {
  MbufPools pools(1023);
  std::unique_ptr<Port> port = StartRingPort("probe", &pools, true);
  ASSERT_NE(port, nullptr);
  absl::StatusOr<PortStampCaps> caps = ProbePortStampCaps(port->id());
  ASSERT_TRUE(caps.ok()) << caps.status();
  EXPECT_EQ(caps->driver, "net_ring");
  EXPECT_FALSE(caps->af_xdp);
  EXPECT_FALSE(caps->read_clock);
  EXPECT_FALSE(caps->rx_dynfield);
  EXPECT_FALSE(caps->timesync) << "net_ring has no IEEE 1588 ops";
  EXPECT_FALSE(caps->send_on_timestamp);

  auto stamps = PortStamps::SetUp(*port, {.flags = {.timesync = true}});
  ASSERT_TRUE(stamps.ok()) << stamps.status();
  const StampPlan& plan = (*stamps)->plan();
  EXPECT_EQ(plan.ntp_rx, RxStampSource::kSoftwareBurst);
  EXPECT_EQ(plan.ptp_tx, kPtpSoftwareTxDefault);
  EXPECT_TRUE(plan.ntp_one_clock);
  EXPECT_EQ((*stamps)->nic(), nullptr);
  EXPECT_THAT((*stamps)->Describe(),
              HasSubstr("driver net_ring: rx_dynfield no, read_clock no"));
  EXPECT_FALSE(ProbePortStampCaps(RTE_MAX_ETHPORTS - 1).ok());
}

TEST(StampSetupTest, FakeNicClockIsTheDynfieldSourceAndIsExported) {
  MbufPools pools(1023);
  std::unique_ptr<Port> port = StartRingPort("fake", &pools);
  ASSERT_NE(port, nullptr);
  auto stamps = PortStamps::SetUp(*port, {.fake_nic_clock = true});
  ASSERT_TRUE(stamps.ok()) << stamps.status();
  EXPECT_EQ((*stamps)->plan().ntp_rx, RxStampSource::kDynfield);
  EXPECT_EQ((*stamps)->plan().ptp_rx, RxStampSource::kDynfield);
  EXPECT_FALSE((*stamps)->plan().ntp_one_clock) << "T2 NIC, T3 TSC";
  ASSERT_NE((*stamps)->nic(), nullptr);
  EXPECT_EQ((*stamps)->nic()->name(), "fake");
  EXPECT_TRUE((*stamps)->field().valid());
  EXPECT_TRUE((*stamps)->nic()->Sample().ok());

  prometheus::Registry registry;
  ASSERT_TRUE((*stamps)->AddMetrics(registry).ok());
  std::map<std::string, std::string> sources;
  for (const auto& family : registry.Collect()) {
    if (family.name != "zeitgeber_stamp_source") continue;
    for (const auto& m : family.metric) {
      std::map<std::string, std::string> l;
      for (const auto& p : m.label) l[p.name] = p.value;
      EXPECT_EQ(l["port"], port->name());
      EXPECT_EQ(m.gauge.value, 1);
      sources[l["stamp"]] = l["source"];
    }
  }
  EXPECT_EQ(sources,
            (std::map<std::string, std::string>{
                {"ntp_rx", "dynfield"},
                {"ntp_tx", TxStampSourceName(kNtpSoftwareTxDefault)},
                {"ptp_rx", "dynfield"},
                {"ptp_tx", TxStampSourceName(kPtpSoftwareTxDefault)}}));
}

TEST(StampSetupTest, EffectiveCapsDropWhatThePortDidNotEnable) {
  const PortStampCaps offered{.driver = "net_ice",
                              .rx_dynfield = true,
                              .timesync = true,
                              .send_on_timestamp = true};
  // --hw_timestamps=false, no --timesync, --tx_schedule=off
  PortCapabilities enabled;
  PortStampCaps c = EffectiveStampCaps(offered, enabled, false);
  EXPECT_FALSE(c.rx_dynfield);
  EXPECT_FALSE(c.timesync);
  EXPECT_FALSE(c.send_on_timestamp);
  enabled.rx_timestamp_offload = true;
  enabled.timesync = true;
  enabled.send_on_timestamp = true;
  c = EffectiveStampCaps(offered, enabled, false);
  EXPECT_TRUE(c.rx_dynfield);
  EXPECT_TRUE(c.timesync);
  EXPECT_TRUE(c.send_on_timestamp);
}

}  // namespace
}  // namespace stamp_setup_test
}  // namespace zg::dataplane
