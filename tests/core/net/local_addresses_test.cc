// SPDX-License-Identifier: Apache-2.0
// LocalAddresses: validation of the MAC, VLAN, listed addresses and ranges,
// the solicited-node and reply-source lookups, and a load generator's range
// addresses classified and answered as ours.
#include "core/net/local_addresses.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core::testing {
namespace local_addresses_test {
namespace {

using Frame = std::vector<uint8_t>;

// ---- LocalAddresses ---------------------------------------------------------

TEST(LocalAddressesTest, Validation) {
  EXPECT_FALSE(LocalAddresses::Create(kPtpPrimaryMac).ok());
  EXPECT_FALSE(LocalAddresses::Create(MacAddr{}).ok());
  EXPECT_FALSE(LocalAddresses::Create(kOurMac, 0).ok());
  EXPECT_FALSE(LocalAddresses::Create(kOurMac, 4095).ok());
  LocalAddresses l = LocalAddresses::Create(kOurMac, 4094).value();
  EXPECT_TRUE(l.has_vlan());
  EXPECT_EQ(l.vlan_id(), 4094);
  EXPECT_FALSE(l.AddIpv4(Ipv4Addr::FromOctets(224, 0, 1, 129)).ok());
  EXPECT_FALSE(l.AddIpv4(Ipv4Addr::FromOctets(127, 0, 0, 1)).ok());
  EXPECT_FALSE(l.AddIpv6(kPtpPrimaryIpv6).ok());
  EXPECT_FALSE(l.AddIpv6(Ipv6Addr{}).ok());
  for (int i = 0; i < LocalAddresses::kMaxIpv4; ++i) {
    ASSERT_TRUE(l.AddIpv4(Ipv4Addr::FromOctets(10, 0, 0, 1 + i)).ok());
  }
  EXPECT_EQ(l.AddIpv4(Ipv4Addr::FromOctets(10, 0, 0, 1)).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(l.AddIpv4(Ipv4Addr::FromOctets(10, 0, 0, 100)).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(l.num_ipv4(), LocalAddresses::kMaxIpv4);
  EXPECT_EQ(l.FindIpv4(Ipv4Addr::FromOctets(10, 0, 0, 8)), 7);
  EXPECT_EQ(l.FindIpv4(Ipv4Addr::FromOctets(10, 0, 0, 9)), -1);
  EXPECT_TRUE(l.Add(IpAddress::V6(kOur6)).ok());
  EXPECT_EQ(l.Add(IpAddress::V6(kOur6)).code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(LocalAddressesTest, SolicitedNodeAndSourceSelection) {
  const LocalAddresses l = OurAddresses();
  EXPECT_TRUE(l.IsOurSolicitedNode(kOur6.SolicitedNode().b.data()));
  EXPECT_FALSE(l.IsOurSolicitedNode(kPeer6.SolicitedNode().b.data()));
  EXPECT_FALSE(l.IsOurSolicitedNode(kOur6.b.data()));
  EXPECT_EQ(l.ipv6(l.Ipv6SourceIndexFor(kPeerLinkLocal)), kOurLinkLocal);
  EXPECT_EQ(l.ipv6(l.Ipv6SourceIndexFor(kPeer6)), kOur6);
  EXPECT_EQ(LocalAddresses().Ipv6SourceIndexFor(kPeer6), -1);
}

TEST(LocalAddressesTest, Ranges) {
  LocalAddresses l = OurAddresses();  // kOur4 = 10.99.0.1, kOur6, link-local
  const Ipv4Addr first = Ipv4Addr::FromOctets(10, 99, 1, 0);
  // Validation: empty, wrapping, reserved space, overlap with a listed one.
  EXPECT_FALSE(l.AddIpv4Range(first, 0).ok());
  EXPECT_FALSE(l.AddIpv4Range(Ipv4Addr{0xDFFFFFFF}, 2).ok());  // into 224/4
  EXPECT_FALSE(l.AddIpv4Range(Ipv4Addr::FromOctets(126, 255, 255, 0), 512)
                   .ok());  // into 127/8
  EXPECT_FALSE(l.AddIpv4Range(Ipv4Addr::FromOctets(0, 0, 0, 1), 1).ok());
  EXPECT_EQ(l.AddIpv4Range(Ipv4Addr::FromOctets(10, 98, 255, 255), 3).code(),
            absl::StatusCode::kAlreadyExists);  // holds 10.99.0.1
  ASSERT_TRUE(l.AddIpv4Range(first, 1000).ok());
  EXPECT_EQ(l.AddIpv4Range(Ipv4Addr::FromOctets(10, 1, 0, 0), 1).code(),
            absl::StatusCode::kAlreadyExists);  // one range per family
  EXPECT_EQ(l.num_ipv4(), 1);
  EXPECT_EQ(l.FindIpv4(kOur4), 0);
  EXPECT_EQ(l.FindIpv4(first), LocalAddresses::kRangeIndex);
  EXPECT_EQ(l.FindIpv4(Ipv4Addr{first.value + 999}),
            LocalAddresses::kRangeIndex);
  EXPECT_EQ(l.FindIpv4(Ipv4Addr{first.value + 1000}), -1);
  EXPECT_EQ(l.FindIpv4(Ipv4Addr{first.value - 1}), -1);
  EXPECT_TRUE(l.HasIpv4Index(LocalAddresses::kRangeIndex));
  EXPECT_FALSE(l.HasIpv6Index(LocalAddresses::kRangeIndex));

  Ipv6Addr f6 = kOur6;
  StoreBe32(f6.b.data() + 12, 0xFFFFFF00);
  EXPECT_FALSE(l.AddIpv6Range(f6, 257).ok());  // wraps the low 32 bits
  EXPECT_FALSE(l.AddIpv6Range(kPtpPrimaryIpv6, 1).ok());
  EXPECT_FALSE(l.AddIpv6Range(Ipv6Addr{}, 4).ok());  // holds :: and ::1
  Ipv6Addr holds_ours = kOur6;
  StoreBe32(holds_ours.b.data() + 12, LoadBe32(kOur6.b.data() + 12) - 1);
  EXPECT_EQ(l.AddIpv6Range(holds_ours, 2).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(l.AddIpv6Range(f6, 256).ok());
  Ipv6Addr last = f6;
  last.b[15] = 0xFF;
  EXPECT_EQ(l.FindIpv6(last.b.data()), LocalAddresses::kRangeIndex);
  Ipv6Addr other_prefix = last;
  other_prefix.b[3] ^= 1;
  EXPECT_EQ(l.FindIpv6(other_prefix.b.data()), -1);
  EXPECT_EQ(l.FindIpv6(kOur6.b.data()), 0);
  // Solicited-node groups of range addresses are ours, others not.
  EXPECT_TRUE(l.IsOurSolicitedNode(last.SolicitedNode().b.data()));
  Ipv6Addr outside = f6;
  StoreBe32(outside.b.data() + 12, 0xFFFFFE00);
  EXPECT_FALSE(l.IsOurSolicitedNode(outside.SolicitedNode().b.data()));
}

// A load generator (the range) receives a server's replies to its clients
// and answers for them from the right address.
TEST(ClassifyFrameTest, RangeAddressesAreOurs) {
  LocalAddresses gen = LocalAddresses::Create(kPeerMac).value();
  const Ipv4Addr first = Ipv4Addr::FromOctets(10, 99, 2, 0);
  ASSERT_TRUE(gen.AddIpv4Range(first, 300).ok());
  uint8_t buf[128];
  for (uint32_t offset : {0u, 150u, 299u, 300u}) {
    UdpFrameSpec spec;
    spec.src_mac = kOurMac;
    spec.dst_mac = kPeerMac;
    spec.src_ip = IpAddress::V4(kOur4);
    spec.dst_ip = IpAddress::V4(Ipv4Addr{first.value + offset});
    spec.src_port = 123;
    spec.dst_port = 20000;
    FrameInfo info;
    const uint32_t n = BuildUdpFrame(buf, sizeof(buf), spec, 48, &info);
    ASSERT_NE(n, 0u);
    std::memset(buf + info.payload_offset, 0x5a, 48);
    FinaliseUdpChecksum(buf, info);
    const Frame f(buf, buf + n);
    FrameInfo seen = Classify(f, gen);
    if (offset >= 300) {
      EXPECT_EQ(seen.drop, FrameDrop::kIpv4NotOurs);
      continue;
    }
    ASSERT_EQ(seen.kind, FrameKind::kOther) << FrameDropName(seen.drop);
    EXPECT_EQ(seen.local_index, LocalAddresses::kRangeIndex);
    EXPECT_EQ(seen.dst_ipv4.value - first.value, offset);
    EXPECT_EQ(seen.src_port, 123);
    // Answered from the address it was sent to.
    Frame r = f;
    FrameInfo reply;
    ASSERT_EQ(PrepareUdpReply(r.data(), seen, gen, 48, &reply), n);
    FinaliseUdpChecksum(r.data(), reply);
    const FrameInfo back = Classify(r, OurAddresses());
    ASSERT_EQ(back.kind, FrameKind::kNtp) << FrameDropName(back.drop);
    EXPECT_EQ(back.src_ipv4.value, first.value + offset);
  }
}

}  // namespace
}  // namespace local_addresses_test
}  // namespace zg::core::testing
