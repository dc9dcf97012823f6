// SPDX-License-Identifier: Apache-2.0
// The emulated NIC as a vdev (emulated_nic_vdev.h): rte_vdev_init with
// devargs (emulated_nic_args.h) makes a port named as the vdev that
// zeitgeber's Port opens, with the features the args asked for; the test
// reaches the NIC by name; rte_vdev_uninit removes both. Bad devargs fail
// the probe with a message naming the key.
#include "tests/dataplane/testing/emulated_nic_vdev.h"

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>

#include <memory>
#include <string>
#include <vector>

#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/emulated_nic_args.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {
namespace emulated_nic_vdev_test {
namespace {

TEST(EmulatedNicArgsTest, ParsesEveryKeyAndRoundTrips) {
  absl::StatusOr<EmulatedNicConfig> c = ParseEmulatedNicArgs(
      "queues=3,offset_ns=-5,drift_ppb=12.5,resolution_ns=8,rx_dynfield=0,"
      "timesync=1,send_on_timestamp=1,tx_stamp_latency_ns=2000,"
      "tx_stamp_loss=0.125,loss_seed=7,wire_latency_ns=300,ring_size=256");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->queues, 3);
  EXPECT_EQ(c->offset_ns, -5);
  EXPECT_EQ(c->drift_ppb, 12.5);
  EXPECT_EQ(c->resolution_ns, 8u);
  EXPECT_FALSE(c->rx_dynfield);
  EXPECT_TRUE(c->timesync);
  EXPECT_TRUE(c->send_on_timestamp);
  EXPECT_EQ(c->tx_stamp_latency_ns, 2000u);
  EXPECT_EQ(c->tx_stamp_loss, 0.125);
  EXPECT_EQ(c->loss_seed, 7u);
  EXPECT_EQ(c->wire_latency_ns, 300u);
  EXPECT_EQ(c->ring_size, 256u);
  absl::StatusOr<EmulatedNicConfig> again =
      ParseEmulatedNicArgs(EmulatedNicArgs(*c));
  ASSERT_TRUE(again.ok()) << again.status() << " " << EmulatedNicArgs(*c);
  EXPECT_EQ(EmulatedNicArgs(*again), EmulatedNicArgs(*c));
  EXPECT_TRUE(ParseEmulatedNicArgs("").ok());  // the defaults
}

TEST(EmulatedNicArgsTest, ErrorsNameTheKey) {
  for (const char* bad :
       {"queues=0", "queues=x", "timesync=2", "tx_stamp_loss=1.5",
        "drift_ppb=nan", "bogus=1", "queues", "queues=2,queues=3"}) {
    absl::StatusOr<EmulatedNicConfig> c = ParseEmulatedNicArgs(bad);
    ASSERT_FALSE(c.ok()) << bad;
    const std::string key =
        std::string(bad).substr(0, std::string(bad).find_first_of("=,"));
    EXPECT_NE(c.status().message().find(key), std::string::npos) << c.status();
  }
}

TEST(EmulatedNicVdevTest, VdevInitMakesTheNicItsArgsAskFor) {
  RegisterEmulatedNicVdev();
  RegisterEmulatedNicVdev();  // idempotent
  const std::string name = "net_zg_emu_v0";
  const std::string args = "queues=2,timesync=1,rx_dynfield=0";
  ASSERT_EQ(rte_vdev_init(name.c_str(), args.c_str()), 0);
  EmulatedNic* nic = FindEmulatedNic(name);
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->config().queues, 2);
  {
    MbufPools pools(2047);
    PortOptions opts;
    opts.name = name;
    opts.num_queues = 2;
    opts.timesync = true;
    auto port = Port::Open(opts, &pools);
    ASSERT_TRUE(port.ok()) << port.status();
    EXPECT_EQ((*port)->id(), nic->port_id());
    ASSERT_TRUE((*port)->Start().ok());
    EXPECT_EQ((*port)->caps().driver, "net_zg_emu");
    EXPECT_TRUE((*port)->caps().timesync);
    EXPECT_FALSE((*port)->caps().rx_timestamp_offload);
    EXPECT_EQ((*port)->devargs(), args);
    const std::vector<uint8_t> frame(60, 0xab);
    ASSERT_TRUE(nic->Inject(frame, 1).has_value());
    rte_mbuf* m[4];
    ASSERT_EQ(rte_eth_rx_burst((*port)->id(), 1, m, 4), 1);
    EXPECT_EQ(Bytes(m[0]), frame);
    rte_pktmbuf_free(m[0]);
  }  // the Port closes the ethdev; the vdev and its NIC stay
  EXPECT_NE(FindEmulatedNic(name), nullptr);
  EXPECT_EQ(rte_vdev_uninit(name.c_str()), 0);
  EXPECT_EQ(FindEmulatedNic(name), nullptr);
  uint16_t id;
  EXPECT_NE(rte_eth_dev_get_port_by_name(name.c_str(), &id), 0);
}

TEST(EmulatedNicVdevTest, UninitWhileThePortIsOpenClosesIt) {
  RegisterEmulatedNicVdev();
  ASSERT_EQ(rte_vdev_init("net_zg_emu_v1", ""), 0);
  EmulatedNic* nic = FindEmulatedNic("net_zg_emu_v1");
  ASSERT_NE(nic, nullptr);
  const uint16_t id = nic->port_id();
  EXPECT_TRUE(rte_eth_dev_is_valid_port(id));
  EXPECT_EQ(rte_vdev_uninit("net_zg_emu_v1"), 0);
  EXPECT_FALSE(rte_eth_dev_is_valid_port(id));
}

TEST(EmulatedNicVdevTest, BadArgsOrNameFailTheProbe) {
  RegisterEmulatedNicVdev();
  EXPECT_NE(rte_vdev_init("net_zg_emu_v2", "bogus=1"), 0);
  EXPECT_EQ(FindEmulatedNic("net_zg_emu_v2"), nullptr);
  EXPECT_NE(rte_vdev_init("net_zg_emu", ""), 0);  // no tag
}

// Left for rte_eal_cleanup (dpdk_test_main's Eal at exit): its vdev bus
// cleanup removes it, and the binary still exits cleanly.
TEST(EmulatedNicVdevTest, LeftForEalCleanup) {
  RegisterEmulatedNicVdev();
  ASSERT_EQ(rte_vdev_init("net_zg_emu_v3", "queues=1"), 0);
  ASSERT_NE(FindEmulatedNic("net_zg_emu_v3"), nullptr);
}

}  // namespace
}  // namespace emulated_nic_vdev_test
}  // namespace zg::dataplane::testing
