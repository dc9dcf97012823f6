// SPDX-License-Identifier: Apache-2.0
// ClassifyFrame on the known-answer frames of testdata/frame_vectors.inc:
// every FrameKind with the offsets, addresses and ports it reports, and
// truncation of each vector at every length. Drop reasons are in
// frame_drop_test.cc, replies and originated frames in frame_build_test.cc.
#include "core/net/frame.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core::testing {
namespace frame_test {
namespace {

using Frame = std::vector<uint8_t>;

// ---- Every kind ---------------------------------------------------------

TEST(ClassifyFrameTest, NtpOverIpv4) {
  const Frame f = FromHex(testing::kNtp4Hex);
  const FrameInfo i = Classify(f, OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.drop, FrameDrop::kNone);
  EXPECT_EQ(i.ip_version, 4);
  EXPECT_EQ(i.l4_protocol, kIpProtoUdp);
  EXPECT_EQ(i.vlan_tags, 0);
  EXPECT_EQ(i.ethertype, kEtherTypeIpv4);
  EXPECT_EQ(i.l3_offset, 14);
  EXPECT_EQ(i.l3_len, 76);
  EXPECT_EQ(i.l4_offset, 34);
  EXPECT_EQ(i.l4_len, 56);
  EXPECT_EQ(i.payload_offset, 42);
  EXPECT_EQ(i.payload_len, 48);
  EXPECT_EQ(i.src_port, 40000);
  EXPECT_EQ(i.dst_port, 123);
  EXPECT_EQ(i.src_ipv4, kPeer4);
  EXPECT_EQ(i.dst_ipv4, kOur4);
  EXPECT_EQ(i.local_index, 0);
  EXPECT_EQ(i.hop_limit, 64);
  EXPECT_FALSE(i.dst_multicast);
}

TEST(ClassifyFrameTest, NtpOverIpv6) {
  const FrameInfo i = Classify(FromHex(testing::kNtp6Hex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.ip_version, 6);
  EXPECT_EQ(i.l3_len, 96);
  EXPECT_EQ(i.l4_offset, 54);
  EXPECT_EQ(i.payload_offset, 62);
  EXPECT_EQ(i.payload_len, 48);
  EXPECT_EQ(i.src_ipv6, kPeer6);
  EXPECT_EQ(i.dst_ipv6, kOur6);
  EXPECT_EQ(i.local_index, 0);
}

TEST(ClassifyFrameTest, VlanAndQinQ) {
  FrameInfo i = Classify(FromHex(testing::kNtp4Vlan100Hex), OurAddresses(100));
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.vlan_tags, 1);
  EXPECT_EQ(i.vlan_tci & vlan::kVidMask, 100);
  EXPECT_EQ(i.vlan_tci >> vlan::kPcpShift, 5);
  EXPECT_EQ(i.l3_offset, 18);
  EXPECT_EQ(i.payload_offset, 46);
  i = Classify(FromHex(testing::kNtp4QinqHex), OurAddresses(100));
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.vlan_tags, 2);
  EXPECT_EQ(i.vlan_tci & vlan::kVidMask, 100);  // the inner (C) tag
  EXPECT_EQ(i.l3_offset, 22);
}

TEST(ClassifyFrameTest, PriorityTaggedFrameOnUntaggedPort) {
  Frame f = FromHex(testing::kNtp4Vlan100Hex);
  f[14] = 0xa0;  // PCP 5, VID 0
  f[15] = 0x00;
  const FrameInfo i = Classify(f, OurAddresses());
  EXPECT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.vlan_tags, 1);
}

TEST(ClassifyFrameTest, Ipv4OptionsAreSkipped) {
  const FrameInfo i =
      Classify(FromHex(testing::kNtp4OptionsHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.l4_offset, 38);
  EXPECT_EQ(i.payload_offset, 46);
}

TEST(ClassifyFrameTest, Ipv6ExtensionHeadersAreWalked) {
  const FrameInfo i = Classify(FromHex(testing::kNtp6ExtHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNtp) << FrameDropName(i.drop);
  EXPECT_EQ(i.l4_offset, 70);
  EXPECT_EQ(i.payload_offset, 78);
  EXPECT_EQ(i.l4_protocol, kIpProtoUdp);
}

TEST(ClassifyFrameTest, PtpOverUdp) {
  FrameInfo i = Classify(FromHex(testing::kPtp4EventMcastHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kPtpEvent) << FrameDropName(i.drop);
  EXPECT_TRUE(i.dst_multicast);
  EXPECT_EQ(i.local_index, FrameInfo::kNoLocalIndex);
  EXPECT_EQ(i.payload_len, 44);
  i = Classify(FromHex(testing::kPtp4GeneralHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kPtpGeneral) << FrameDropName(i.drop);
  EXPECT_FALSE(i.dst_multicast);
  EXPECT_EQ(i.local_index, 0);
  i = Classify(FromHex(testing::kPtp6GeneralMcastHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kPtpGeneral) << FrameDropName(i.drop);
  EXPECT_TRUE(i.dst_multicast);
}

// Sets the IPv4 destination (and MAC) of the PTP multicast vector.
Frame PtpV4To(Ipv4Addr group) {
  Frame f = FromHex(testing::kPtp4EventMcastHex);
  group.Store(&f[30]);
  Ipv4MulticastMac(group).Store(&f[0]);
  Reseal(f);
  return f;
}
Frame PtpV6To(const char* group) {
  Frame f = FromHex(testing::kPtp6GeneralMcastHex);
  const Ipv6Addr g = ParseIpv6Addr(group).value();
  g.Store(&f[38]);
  g.MulticastMac().Store(&f[0]);
  Reseal(f);
  return f;
}

TEST(ClassifyFrameTest, PtpMulticastGroups) {
  EXPECT_EQ(Classify(PtpV4To(kPtpPrimaryIpv4), OurAddresses()).kind,
            FrameKind::kPtpEvent);
  EXPECT_EQ(Classify(PtpV4To(kPtpPdelayIpv4), OurAddresses()).kind,
            FrameKind::kPtpEvent);
  EXPECT_EQ(
      Classify(PtpV4To(Ipv4Addr::FromOctets(224, 0, 1, 130)), OurAddresses())
          .drop,
      FrameDrop::kIpv4NotOurs);
  for (const char* g : {"ff0e::181", "ff02::181", "ff05::181", "ff02::6b"}) {
    EXPECT_EQ(Classify(PtpV6To(g), OurAddresses()).kind, FrameKind::kPtpGeneral)
        << g;
  }
  for (const char* g : {"ff0e::6b", "ff12::181", "ff02::1", "ff02::182"}) {
    EXPECT_EQ(Classify(PtpV6To(g), OurAddresses()).drop,
              FrameDrop::kIpv6NotOurs)
        << g;
  }
}

TEST(ClassifyFrameTest, PtpOverEthernet) {
  Frame f = FromHex(testing::kPtpL2Hex);
  FrameInfo i = Classify(f, OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kPtpL2) << FrameDropName(i.drop);
  EXPECT_EQ(i.payload_offset, 14);
  EXPECT_EQ(i.payload_len, 46);  // 44 + Ethernet padding
  kPtpPdelayMac.Store(&f[0]);
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kPtpL2);
  kOurMac.Store(&f[0]);
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kPtpL2);
  kBroadcastMac.Store(&f[0]);
  EXPECT_EQ(Classify(f, OurAddresses()).drop, FrameDrop::kEthDstNotOurs);
}

TEST(ClassifyFrameTest, ArpRequest) {
  const FrameInfo i =
      Classify(FromHex(testing::kArpRequestHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kArpRequest) << FrameDropName(i.drop);
  EXPECT_EQ(i.ethertype, kEtherTypeArp);
  EXPECT_EQ(i.src_ipv4, kPeer4);
  EXPECT_EQ(i.dst_ipv4, kOur4);
  EXPECT_EQ(i.local_index, 0);
  EXPECT_EQ(i.l3_len, 28);
}

TEST(ClassifyFrameTest, ArpRepliesAndAnnouncementsAreOther) {
  Frame f = FromHex(testing::kArpRequestHex);
  f[21] = 2;  // reply
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kOther);
  f = FromHex(testing::kArpRequestHex);
  kPeer4.Store(&f[38]);  // target == sender: gratuitous
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kOther);
  kOurMac.Store(&f[0]);  // unicast ARP to our MAC is fine
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kOther);
}

TEST(ClassifyFrameTest, IcmpEcho) {
  FrameInfo i = Classify(FromHex(testing::kIcmpEchoHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kIcmpEchoRequest) << FrameDropName(i.drop);
  EXPECT_EQ(i.l4_offset, 34);
  EXPECT_EQ(i.l4_len, 64);
  EXPECT_EQ(i.payload_len, 56);
  i = Classify(FromHex(testing::kIcmp6EchoHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kIcmp6EchoRequest) << FrameDropName(i.drop);
  EXPECT_EQ(i.l4_offset, 54);
  EXPECT_EQ(i.l4_len, 64);
}

TEST(ClassifyFrameTest, NeighborSolicitation) {
  FrameInfo i = Classify(FromHex(testing::kNsHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNeighborSolicitation) << FrameDropName(i.drop);
  EXPECT_TRUE(i.dst_multicast);
  EXPECT_EQ(i.local_index, 0);
  EXPECT_EQ(i.nd_lladdr_offset, 54 + 24 + 2);
  EXPECT_EQ(i.hop_limit, 255);
  i = Classify(FromHex(testing::kNsDadHex), OurAddresses());
  ASSERT_EQ(i.kind, FrameKind::kNeighborSolicitation) << FrameDropName(i.drop);
  EXPECT_EQ(i.nd_lladdr_offset, 0);
  EXPECT_TRUE(i.src_ipv6.IsUnspecified());
  // Unicast NS (neighbour unreachability detection) to our address.
  Frame f = FromHex(testing::kNsHex);
  kOur6.Store(&f[38]);
  kOurMac.Store(&f[0]);
  Reseal(f);
  i = Classify(f, OurAddresses());
  EXPECT_EQ(i.kind, FrameKind::kNeighborSolicitation) << FrameDropName(i.drop);
  EXPECT_FALSE(i.dst_multicast);
}

TEST(ClassifyFrameTest, OtherKinds) {
  // UDP to another port of ours.
  Frame f = FromHex(testing::kNtp4Hex);
  f[36] = 0x13;  // dst port 5000
  f[37] = 0x88;
  Reseal(f);
  FrameInfo i = Classify(f, OurAddresses());
  EXPECT_EQ(i.kind, FrameKind::kOther);
  EXPECT_EQ(i.dst_port, 5000);
  // TCP.
  f = FromHex(testing::kNtp4Hex);
  f[23] = kIpProtoTcp;
  Reseal(f);
  i = Classify(f, OurAddresses());
  EXPECT_EQ(i.kind, FrameKind::kOther);
  EXPECT_EQ(i.l4_protocol, kIpProtoTcp);
  // ICMP destination unreachable.
  f = FromHex(testing::kIcmpEchoHex);
  f[34] = 3;
  Reseal(f);
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kOther);
  // ICMPv6 echo reply.
  f = FromHex(testing::kIcmp6EchoHex);
  f[54] = icmp6::kEchoReply;
  Reseal(f);
  EXPECT_EQ(Classify(f, OurAddresses()).kind, FrameKind::kOther);
  // IPv6 ESP, AH and no-next-header are not UDP.
  for (uint8_t nh : {kIpProtoEsp, kIpProtoAh, kIpProtoNoNextHeader}) {
    f = FromHex(testing::kNtp6Hex);
    f[20] = nh;
    i = Classify(f, OurAddresses());
    EXPECT_EQ(i.kind, FrameKind::kOther) << int{nh};
    EXPECT_EQ(i.l4_protocol, nh);
  }
}

TEST(ClassifyFrameTest, NicChecksumHintsSkipChecks) {
  Frame f = FromHex(testing::kNtp4Hex);
  f[60] ^= 0x01;  // payload: UDP checksum now wrong
  EXPECT_EQ(Classify(f, OurAddresses()).drop, FrameDrop::kUdpBadChecksum);
  EXPECT_EQ(Classify(f, OurAddresses(), kRxL4ChecksumGood).kind,
            FrameKind::kNtp);
  f = FromHex(testing::kNtp4Hex);
  f[22] ^= 0x01;  // TTL: IPv4 header checksum now wrong
  EXPECT_EQ(Classify(f, OurAddresses()).drop, FrameDrop::kIpv4BadChecksum);
  EXPECT_EQ(Classify(f, OurAddresses(), kRxIpv4ChecksumGood).kind,
            FrameKind::kNtp);
}

TEST(ClassifyFrameTest, SecondaryAddresses) {
  LocalAddresses l = OurAddresses();
  const Ipv4Addr second = Ipv4Addr::FromOctets(10, 99, 0, 7);
  ASSERT_TRUE(l.AddIpv4(second).ok());
  Frame f = FromHex(testing::kNtp4Hex);
  second.Store(&f[30]);
  Reseal(f);
  const FrameInfo i = Classify(f, l);
  EXPECT_EQ(i.kind, FrameKind::kNtp);
  EXPECT_EQ(i.local_index, 1);
}

// ---- Truncation at every length ------------------------------------------

TEST(ClassifyFrameTest, TruncationAtEveryLength) {
  struct V {
    const char* hex;
    std::optional<uint16_t> vlan;
    bool padded;  // Ethernet padding: a shorter frame may stay valid
  };
  const V vectors[] = {
      {testing::kNtp4Hex, {}, false},
      {testing::kNtp6Hex, {}, false},
      {testing::kNtp4Vlan100Hex, 100, false},
      {testing::kNtp4QinqHex, 100, false},
      {testing::kNtp4OptionsHex, {}, false},
      {testing::kNtp6ExtHex, {}, false},
      {testing::kPtp4EventMcastHex, {}, false},
      {testing::kPtp4GeneralHex, {}, false},
      {testing::kPtp6GeneralMcastHex, {}, false},
      {testing::kPtpL2Hex, {}, true},
      {testing::kArpRequestHex, {}, true},
      {testing::kIcmpEchoHex, {}, false},
      {testing::kIcmp6EchoHex, {}, false},
      {testing::kNsHex, {}, false},
      {testing::kNsDadHex, {}, false},
  };
  for (const V& v : vectors) {
    const Frame full = FromHex(v.hex);
    const LocalAddresses local = OurAddresses(v.vlan);
    ASSERT_NE(Classify(full, local).kind, FrameKind::kDrop) << v.hex;
    for (size_t n = 0; n < full.size(); ++n) {
      // An exact-size heap copy, so ASan sees any read past the end.
      std::vector<uint8_t> part(full.begin(), full.begin() + n);
      const FrameInfo i =
          ClassifyFrame(part.data(), static_cast<uint32_t>(n), local);
      ExpectWithinFrame(i, static_cast<uint32_t>(n));
      if (!v.padded) {
        EXPECT_EQ(i.kind, FrameKind::kDrop) << v.hex << " at " << n;
      }
    }
  }
}

}  // namespace
}  // namespace frame_test
}  // namespace zg::core::testing
