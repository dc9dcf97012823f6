// SPDX-License-Identifier: Apache-2.0
// The protocol pipeline below NTP (ntp_pipeline_fixture.h): ARP, ICMP echo,
// ICMPv6 echo and neighbour solicitation answered field by field, and a
// VLAN port answering tagged requests on their VLAN and dropping untagged
// ones.
#include <cstdint>
#include <vector>

#include "core/net/frame.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace {

namespace ct = ::zg::core::testing;
using testing::ClientFlow;
using testing::ClientView;
using testing::NtpPipelineTest;

TEST_F(NtpPipelineTest, ArpIcmpIcmpv6AndNeighbourSolicitationAreAnswered) {
  SetUpServer();
  const std::vector<std::vector<uint8_t>> frames = {
      ct::FromHex(ct::kArpRequestHex), ct::FromHex(ct::kIcmpEchoHex),
      ct::FromHex(ct::kIcmp6EchoHex), ct::FromHex(ct::kNsHex)};
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), 4u);
  const ClientFlow f4 = Flow4(), f6 = Flow6();
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<ClientView> v =
        testing::ReceiveAtClient(i < 2 ? f4 : f6, e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    const uint8_t* b = v->bytes.data();
    EXPECT_TRUE(ct::kPeerMac.Equals(b)) << "to the requester";
    EXPECT_TRUE(ct::kOurMac.Equals(b + 6)) << "from our MAC";
    switch (i) {
      case 0:  // ARP reply: 10.99.0.1 is at our MAC
        EXPECT_EQ(core::LoadBe16(b + 20), 2);
        EXPECT_TRUE(ct::kOurMac.Equals(b + 22));
        EXPECT_EQ(core::Ipv4Addr::Load(b + 28), ct::kOur4);
        EXPECT_TRUE(ct::kPeerMac.Equals(b + 32));
        EXPECT_EQ(core::Ipv4Addr::Load(b + 38), ct::kPeer4);
        break;
      case 1:  // ICMP echo reply with the request's id, sequence, data
        EXPECT_EQ(v->info.src_ipv4, ct::kOur4);
        EXPECT_EQ(b[34], 0);
        EXPECT_EQ(
            std::vector<uint8_t>(b + 38, b + e.out[i]->data_len),
            std::vector<uint8_t>(frames[i].begin() + 38, frames[i].end()));
        break;
      case 2:  // ICMPv6 echo reply
        EXPECT_EQ(v->info.src_ipv6, ct::kOur6);
        EXPECT_EQ(b[54], 129);
        EXPECT_EQ(
            std::vector<uint8_t>(b + 58, b + e.out[i]->data_len),
            std::vector<uint8_t>(frames[i].begin() + 58, frames[i].end()));
        break;
      case 3:  // solicited neighbour advertisement with our MAC
        EXPECT_EQ(b[54], 136);
        EXPECT_EQ(b[58] & 0x60, 0x60) << "S and O flags";
        EXPECT_TRUE(ct::kOur6.Equals(b + 62)) << "target";
        EXPECT_EQ(b[78], 2) << "target link-layer address option";
        EXPECT_TRUE(ct::kOurMac.Equals(b + 80));
        EXPECT_EQ(b[21], 255) << "hop limit";
        break;
    }
  }
  const auto kind = [](core::FrameKind k) { return static_cast<size_t>(k); };
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kArpRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kIcmpEchoRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kIcmp6EchoRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kNeighborSolicitation)], 1u);
  Free(e);
}

TEST_F(NtpPipelineTest, VlanTaggedRequestsAreAnsweredOnTheirVlan) {
  SetUpServer(/*vlan=*/100);
  ClientFlow flow = Flow4();
  flow.vlan = 100;
  const std::vector<uint8_t> tagged = ct::FromHex(ct::kNtp4Vlan100Hex);
  std::vector<uint8_t> req(tagged.end() - 48, tagged.end());
  Exchange e = Run({tagged, testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u) << "the untagged request is dropped";
  ExpectNtpReply(e.out[0], flow, req, e);
  EXPECT_EQ(names_.DropReasonName([&] {
    for (size_t r = 0; r < kMaxDropReasons; ++r)
      if (e.delta.dropped[r] != 0) return r;
    return kMaxDropReasons;
  }()),
            "frame_vlan_mismatch");
  Free(e);
}

}  // namespace
}  // namespace zg::dataplane
