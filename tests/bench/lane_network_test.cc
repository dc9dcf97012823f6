// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's addressing: the client address range, what replies to it
// classify as, and the errors an operator gets for bad addresses.
#include "bench/loadgen/lane_network.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/match.h"
#include "core/net/frame_build.h"
#include "gtest/gtest.h"

namespace zg::bench {
namespace lane_network_test {
namespace {

constexpr core::MacAddr kOurMac{{0x02, 0, 0, 0, 0, 0x02}};
constexpr core::MacAddr kServerMac{{0x02, 0, 0, 0, 0, 0x01}};

LoadgenOptions Options(const char* target, const char* source,
                       uint32_t addresses) {
  LoadgenOptions o;
  std::string err;
  EXPECT_TRUE(AbslParseFlag(target, &o.target, &err)) << err;
  o.source_ip = source;
  o.source_addresses = addresses;
  return o;
}

// A reply from the server to client address `offset`, as the lane sees it.
core::FrameInfo ReplyTo(const LaneNetwork& net, uint32_t offset) {
  uint8_t buf[256];
  core::UdpFrameSpec spec;
  spec.src_mac = kServerMac;
  spec.dst_mac = kOurMac;
  spec.src_ip = net.target;
  spec.dst_ip = AddressAt(net.first_source, offset);
  spec.src_port = 123;
  spec.dst_port = 10000;
  core::FrameInfo info;
  const uint32_t n = core::BuildUdpFrame(buf, sizeof(buf), spec, 48, &info);
  EXPECT_NE(n, 0u);
  std::memset(buf + info.payload_offset, 0, 48);
  core::FinaliseUdpChecksum(buf, info);
  return core::ClassifyFrame(buf, n, net.local);
}

TEST(LaneNetworkTest, Ipv4RangeFromTargetPlusOne) {
  auto net = BuildLaneNetwork(Options("10.99.0.1:4123", "", 300), kOurMac, 0);
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ(net->first_source.ToString(), "10.99.0.2");
  EXPECT_EQ(net->ntp_port, 4123);
  EXPECT_FALSE(net->vlan_id.has_value());
  EXPECT_EQ(AddressAt(net->first_source, 299).ToString(), "10.99.1.45");
  for (uint32_t offset : {0u, 1u, 299u}) {
    const core::FrameInfo i = ReplyTo(*net, offset);
    ASSERT_EQ(i.kind, core::FrameKind::kOther) << core::FrameDropName(i.drop);
    EXPECT_EQ(AddressOffsetOf(i, net->first_source), offset);
  }
  EXPECT_EQ(ReplyTo(*net, 300).drop, core::FrameDrop::kIpv4NotOurs);
}

TEST(LaneNetworkTest, Ipv6RangeAndVlan) {
  auto net =
      BuildLaneNetwork(Options("[fd99::1]", "fd99::1:0", 70000), kOurMac, 42);
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ(net->vlan_id, 42);
  EXPECT_EQ(AddressAt(net->first_source, 65536 + 5).ToString(), "fd99::2:5");
  const core::FrameInfo i = ReplyTo(*net, 65541);
  EXPECT_EQ(i.drop, core::FrameDrop::kVlanMismatch);  // untagged reply
  core::FrameInfo tagged;
  tagged.ip_version = 6;
  tagged.dst_ipv6 = AddressAt(net->first_source, 65541).v6;
  EXPECT_EQ(AddressOffsetOf(tagged, net->first_source), 65541u);
  tagged.dst_ipv6.b[0] ^= 1;  // another prefix
  EXPECT_EQ(AddressOffsetOf(tagged, net->first_source), UINT64_MAX);
  tagged.ip_version = 4;  // another family
  EXPECT_EQ(AddressOffsetOf(tagged, net->first_source), UINT64_MAX);
}

TEST(LaneNetworkTest, OperatorErrorsNameTheFlag) {
  auto err = [](const LoadgenOptions& o) {
    return std::string(BuildLaneNetwork(o, kOurMac, 0).status().message());
  };
  EXPECT_TRUE(absl::StrContains(err(Options("10.99.0.1", "fd99::2", 1)),
                                "different address families"));
  EXPECT_TRUE(absl::StrContains(err(Options("10.99.0.1", "10.99.0.0", 4)),
                                "include the target"));
  EXPECT_TRUE(absl::StrContains(err(Options("10.99.0.1", "10.0.0.x", 1)),
                                "--source_ip"));
  EXPECT_TRUE(absl::StrContains(err(Options("10.99.0.1", "223.255.255.0", 512)),
                                "--source_addresses"));
  LoadgenOptions bad_host;
  bad_host.target.host = "not-an-address";
  EXPECT_TRUE(absl::StrContains(err(bad_host), "--target"));
}

}  // namespace
}  // namespace lane_network_test
}  // namespace zg::bench
