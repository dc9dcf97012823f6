// SPDX-License-Identifier: Apache-2.0
// Port set-up on ring ports: resolution by id and name, queue-count errors an
// operator can act on, capability detection and link polling.
#include "dataplane/port/port.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"

namespace zg::dataplane {
namespace port_test {
namespace {

using ::testing::HasSubstr;

TEST(PortTest, ResolvesByIdAndNameAndListsPortsOtherwise) {
  testing::RingPort ring = testing::MakeRingPort("resolve", 1);
  auto by_name = ResolvePort(ring.name);
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_EQ(*by_name, ring.port_id);
  auto by_id = ResolvePort(std::to_string(ring.port_id));
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(*by_id, ring.port_id);
  auto missing = ResolvePort("net_nope0");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(ring.name));
  EXPECT_THAT(ResolvePort("99").status().message(),
              HasSubstr("no DPDK port 99"));
}

TEST(PortTest, TooManyWorkersForTheQueuesIsExplained) {
  testing::RingPort ring = testing::MakeRingPort("toomany", 1);
  MbufPools pools(1023);
  PortOptions o;
  o.name = ring.name;
  o.num_queues = 2;  // a ring port offers as many queues as it has rings
  auto port = Port::Open(o, &pools);
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(port.status().message(),
              HasSubstr("(" + ring.name +
                        ") supports 1 queue but 2 workers were requested"));
}

TEST(PortTest, TwoQueuePairsAndDetectedCapabilities) {
  testing::RingPort ring = testing::MakeRingPort("caps", 2);
  MbufPools pools(2047);
  PortOptions o;
  o.name = ring.name;
  o.num_queues = 2;
  auto port = Port::Open(o, &pools);
  ASSERT_TRUE(port.ok()) << port.status();
  ASSERT_TRUE((*port)->Start().ok());
  const PortCapabilities& caps = (*port)->caps();
  EXPECT_EQ(caps.driver, "net_ring");
  EXPECT_FALSE(caps.rx_timestamp_offload);
  EXPECT_FALSE(caps.read_clock);
  EXPECT_FALSE(caps.hardware_rx_stamps());
  EXPECT_FALSE(caps.dedicated_pools);
  EXPECT_EQ(caps.rss_hf, 0u) << "net_ring offers no RSS";
  EXPECT_EQ((*port)->num_queues(), 2);
  EXPECT_EQ((*port)->queue(1).queue_id, 1);
  const std::string d = (*port)->Describe();
  EXPECT_THAT(d, HasSubstr("driver net_ring, 2 queue pair(s)"));
  EXPECT_THAT(d, HasSubstr("software (TSC) RX stamps"));
  EXPECT_TRUE((*port)->link().up);
  EXPECT_FALSE((*port)->PollLink()) << "no change since Start";
}

TEST(PortTest, RssHashesAddressesNotPorts) {
  const uint64_t offered = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
  const uint64_t hf = RssHashFunctions(offered);
  EXPECT_EQ(hf & (RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP), 0u)
      << "a client changing its source port must keep its worker";
  EXPECT_NE(hf & RTE_ETH_RSS_IPV4, 0u);
  EXPECT_NE(hf & RTE_ETH_RSS_IPV6, 0u);
  EXPECT_EQ(RssHashFunctions(RTE_ETH_RSS_NONFRAG_IPV4_UDP), 0u);
  // PTP grants are enforced where a client's 319 and 320 share a queue.
  EXPECT_TRUE(RssSteersByAddress(1, 0));
  EXPECT_TRUE(RssSteersByAddress(4, RssHashFunctions(RTE_ETH_RSS_IP)));
  EXPECT_FALSE(RssSteersByAddress(4, 0));  // e.g. AF_XDP: the kernel's hash
  EXPECT_FALSE(RssSteersByAddress(4, RTE_ETH_RSS_NONFRAG_IPV4_UDP));
}

TEST(PortTest, RssMaskNames) {
  EXPECT_EQ(DescribeRssHf(0), "none");
  EXPECT_EQ(DescribeRssHf(RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_IPV6),
            "ipv4-udp,ipv6");
}

}  // namespace
}  // namespace port_test
}  // namespace zg::dataplane
