// SPDX-License-Identifier: Apache-2.0
// The frames we send: PrepareUdpReply's in-place replies as the peer's
// classifier and a reference checksum see them, FinaliseUdpChecksum,
// UpdateUdpChecksum and the NIC offload sum, and BuildUdpFrame /
// BuildL2Frame frames classified by the peer.
#include "core/net/frame_build.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "core/net/checksum.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core::testing {
namespace frame_build_test {
namespace {

using Frame = std::vector<uint8_t>;

// ---- UDP replies ------------------------------------------------------------

struct ReplyCase {
  const char* hex;
  std::optional<uint16_t> vlan;
};

TEST(PrepareUdpReplyTest, RoundTripsSeenByThePeer) {
  const ReplyCase cases[] = {
      {testing::kNtp4Hex, {}},         {testing::kNtp6Hex, {}},
      {testing::kNtp4Vlan100Hex, 100}, {testing::kNtp4QinqHex, 100},
      {testing::kNtp4OptionsHex, {}},  {testing::kNtp6ExtHex, {}},
      {testing::kPtp4GeneralHex, {}},
  };
  for (const ReplyCase& rc : cases) {
    SCOPED_TRACE(rc.hex);
    Frame f = FromHex(rc.hex);
    const Frame orig = f;
    const LocalAddresses local = OurAddresses(rc.vlan);
    const FrameInfo req = Classify(f, local);
    ASSERT_NE(req.kind, FrameKind::kDrop) << FrameDropName(req.drop);
    FrameInfo reply;
    const uint32_t n =
        PrepareUdpReply(f.data(), req, local, req.payload_len, &reply);
    ASSERT_NE(n, 0u);
    EXPECT_LE(n, f.size());
    EXPECT_EQ(reply.frame_len, n);
    // The payload moved intact to the reply's offset.
    EXPECT_EQ(0, std::memcmp(&f[reply.payload_offset],
                             &orig[req.payload_offset], req.payload_len));
    FinaliseUdpChecksum(f.data(), reply);
    f.resize(n);
    // Reference checks, independent of core/net/checksum.cc.
    const bool v6 = req.ip_version == 6;
    if (!v6) {
      EXPECT_TRUE(testing::RefIpv4HeaderValid(f.data(), reply.l3_offset));
    }
    EXPECT_TRUE(testing::RefL4Valid(f.data(), reply.l3_offset, reply.l4_offset,
                                    reply.l4_len, 17));
    // L2: to the requester, from us, tags as received.
    EXPECT_TRUE(kPeerMac.Equals(&f[0]));
    EXPECT_TRUE(kOurMac.Equals(&f[6]));
    EXPECT_EQ(0, std::memcmp(&f[12], &orig[12], req.l3_offset - 12));
    // What the peer's stack sees.
    const FrameInfo seen = Classify(f, PeerAddresses(rc.vlan));
    ASSERT_NE(seen.kind, FrameKind::kDrop) << FrameDropName(seen.drop);
    EXPECT_EQ(seen.src_port, req.dst_port);
    EXPECT_EQ(seen.dst_port, req.src_port);
    EXPECT_EQ(seen.hop_limit, 64);
    EXPECT_EQ(seen.vlan_tags, req.vlan_tags);
    EXPECT_EQ(seen.payload_len, req.payload_len);
    EXPECT_EQ(seen.l4_offset, req.l3_offset + (v6 ? 40 : 20));
    if (v6) {
      EXPECT_EQ(seen.src_ipv6, req.dst_ipv6);
      EXPECT_EQ(seen.dst_ipv6, req.src_ipv6);
      EXPECT_EQ(seen.l4_protocol, kIpProtoUdp);
    } else {
      EXPECT_EQ(seen.src_ipv4, req.dst_ipv4);
      EXPECT_EQ(seen.dst_ipv4, req.src_ipv4);
      EXPECT_EQ(f[reply.l3_offset + ipv4::kFlagsFragment], 0x40);  // DF
    }
    // The reply description matches what the peer parsed.
    EXPECT_EQ(seen.l4_offset, reply.l4_offset);
    EXPECT_EQ(seen.payload_offset, reply.payload_offset);
  }
}

TEST(PrepareUdpReplyTest, MulticastRequestsAnswerFromThePrimaryAddress) {
  Frame f = FromHex(testing::kPtp4EventMcastHex);
  const LocalAddresses local = OurAddresses();
  FrameInfo req = Classify(f, local);
  ASSERT_EQ(req.kind, FrameKind::kPtpEvent);
  FrameInfo reply;
  uint32_t n = PrepareUdpReply(f.data(), req, local, 44, &reply);
  ASSERT_EQ(n, 86u);
  EXPECT_EQ(reply.src_ipv4, kOur4);
  EXPECT_EQ(Ipv4Addr::Load(&f[26]), kOur4);
  EXPECT_EQ(Ipv4Addr::Load(&f[30]), kPeer4);
  EXPECT_FALSE(reply.dst_multicast);
  // IPv6 from a link-local peer: answered from our link-local address.
  f = FromHex(testing::kPtp6GeneralMcastHex);
  req = Classify(f, local);
  ASSERT_EQ(req.kind, FrameKind::kPtpGeneral);
  n = PrepareUdpReply(f.data(), req, local, 64, &req);  // reply may alias req
  ASSERT_EQ(n, 126u);
  EXPECT_EQ(req.src_ipv6, kOurLinkLocal);
  EXPECT_EQ(Ipv6Addr::Load(&f[22]), kOurLinkLocal);
  EXPECT_EQ(Ipv6Addr::Load(&f[38]), kPeerLinkLocal);
  // No address of the family: no reply.
  LocalAddresses v6_only = LocalAddresses::Create(kOurMac).value();
  ASSERT_TRUE(v6_only.AddIpv6(kOur6).ok());
  f = FromHex(testing::kPtp4EventMcastHex);
  req = Classify(f, v6_only);
  ASSERT_EQ(req.kind, FrameKind::kPtpEvent);
  EXPECT_EQ(PrepareUdpReply(f.data(), req, v6_only, 44, &reply), 0u);
}

TEST(PrepareUdpReplyTest, NeverLongerThanTheRequest) {
  Frame f = FromHex(testing::kNtp4Hex);
  const Frame orig = f;
  const LocalAddresses local = OurAddresses();
  const FrameInfo req = Classify(f, local);
  FrameInfo reply;
  EXPECT_EQ(PrepareUdpReply(f.data(), req, local, 49, &reply), 0u);
  EXPECT_EQ(f, orig);  // untouched
  EXPECT_EQ(PrepareUdpReply(f.data(), req, local, 48, &reply), 90u);
  // Shorter payloads are fine.
  f = orig;
  EXPECT_EQ(PrepareUdpReply(f.data(), req, local, 0, &reply), 42u);
  EXPECT_EQ(reply.l4_len, 8);
  // Stripping 4 bytes of IPv4 options leaves room for 4 more payload bytes.
  f = FromHex(testing::kNtp4OptionsHex);
  const FrameInfo opt = Classify(f, local);
  EXPECT_EQ(PrepareUdpReply(f.data(), opt, local, 53, &reply), 0u);
  EXPECT_EQ(PrepareUdpReply(f.data(), opt, local, 52, &reply), 94u);
}

TEST(PrepareUdpReplyTest, RefusesNonUdp) {
  Frame f = FromHex(testing::kIcmpEchoHex);
  const LocalAddresses local = OurAddresses();
  FrameInfo reply;
  EXPECT_EQ(PrepareUdpReply(f.data(), Classify(f, local), local, 8, &reply),
            0u);
  FrameInfo dropped;
  EXPECT_EQ(PrepareUdpReply(f.data(), dropped, local, 8, &reply), 0u);
}

TEST(PrepareUdpReplyTest, EcnClearedDscpKept) {
  Frame f = FromHex(testing::kNtp4Hex);
  f[15] = 0xb8 | 0x03;  // EF, CE
  Reseal(f);
  const LocalAddresses local = OurAddresses();
  FrameInfo reply;
  ASSERT_NE(PrepareUdpReply(f.data(), Classify(f, local), local, 48, &reply),
            0u);
  EXPECT_EQ(f[15], 0xb8);
}

// The late rewrite of a payload range (the NTP transmit timestamp) with an
// incremental update equals a full recomputation, for IPv4 and IPv6, any
// offset and contents, including checksums that come out as 0 (sent 0xFFFF).
TEST(UpdateUdpChecksumTest, EqualsFinaliseOnRandomRewrites) {
  std::mt19937 rng(5905);
  const LocalAddresses local = OurAddresses();
  for (int trial = 0; trial < 20000; ++trial) {
    Frame f = FromHex(trial % 2 ? testing::kNtp6Hex : testing::kNtp4Hex);
    FrameInfo reply;
    ASSERT_NE(PrepareUdpReply(f.data(), Classify(f, local), local, 48, &reply),
              0u);
    for (int i = 0; i < 48; ++i) {
      f[reply.payload_offset + i] = static_cast<uint8_t>(rng());
    }
    FinaliseUdpChecksum(f.data(), reply);
    const uint32_t off = rng() % 48;
    const uint32_t len = 1 + rng() % (48 - off);
    Frame old_bytes(f.begin() + reply.payload_offset + off,
                    f.begin() + reply.payload_offset + off + len);
    Frame new_bytes(len);
    for (uint8_t& b : new_bytes) b = static_cast<uint8_t>(rng());
    std::copy(new_bytes.begin(), new_bytes.end(),
              f.begin() + reply.payload_offset + off);
    UpdateUdpChecksum(f.data(), reply, off, old_bytes.data(), new_bytes.data(),
                      len);
    Frame full = f;
    FinaliseUdpChecksum(full.data(), reply);
    ASSERT_EQ(f, full) << "trial " << trial << " off " << off;
    ASSERT_TRUE(testing::RefL4Valid(f.data(), reply.l3_offset, reply.l4_offset,
                                    reply.l4_len, 17));
  }
}

// A rewrite that makes the computed checksum 0: sent as 0xFFFF, equal to
// FinaliseUdpChecksum.
TEST(UpdateUdpChecksumTest, ComputedZeroIsSentAsAllOnes) {
  const LocalAddresses local = OurAddresses();
  for (const char* hex : {testing::kNtp4Hex, testing::kNtp6Hex}) {
    Frame f = FromHex(hex);
    FrameInfo reply;
    ASSERT_NE(PrepareUdpReply(f.data(), Classify(f, local), local, 48, &reply),
              0u);
    FinaliseUdpChecksum(f.data(), reply);
    // Choose the new value of payload word 40 so that the datagram's sum
    // becomes 0xFFFF.
    uint8_t* w = &f[reply.payload_offset + 40];
    const uint16_t c = LoadBe16(&f[reply.l4_offset + 6]);
    const uint16_t old_word = LoadBe16(w);
    // Current sum S = ~c; want S - old + new == 0xFFFF -> new = old + c.
    const uint16_t new_word = OnesComplementAdd(old_word, c);
    uint8_t old_bytes[2], new_bytes[2];
    StoreBe16(old_bytes, old_word);
    StoreBe16(new_bytes, new_word);
    StoreBe16(w, new_word);
    UpdateUdpChecksum(f.data(), reply, 40, old_bytes, new_bytes, 2);
    EXPECT_EQ(LoadBe16(&f[reply.l4_offset + 6]), 0xFFFF);
    Frame full = f;
    FinaliseUdpChecksum(full.data(), reply);
    EXPECT_EQ(f, full);
    EXPECT_TRUE(testing::RefL4Valid(f.data(), reply.l3_offset, reply.l4_offset,
                                    reply.l4_len, 17));
  }
}

TEST(PrepareUdpChecksumOffloadTest, NicCompletesTheChecksum) {
  const LocalAddresses local = OurAddresses();
  for (const char* hex : {testing::kNtp4Hex, testing::kNtp6Hex}) {
    Frame f = FromHex(hex);
    FrameInfo reply;
    ASSERT_NE(PrepareUdpReply(f.data(), Classify(f, local), local, 48, &reply),
              0u);
    Frame offload = f;
    FinaliseUdpChecksum(f.data(), reply);
    PrepareUdpChecksumOffload(offload.data(), reply);
    // The NIC sums the datagram with the pseudo-header sum in the field.
    uint16_t nic =
        testing::RefChecksum(&offload[reply.l4_offset], reply.l4_len);
    if (nic == 0) nic = 0xFFFF;
    EXPECT_EQ(nic, LoadBe16(&f[reply.l4_offset + 6]));
  }
}

// ---- Originated frames ------------------------------------------------------

TEST(BuildUdpFrameTest, PeerClassifiesIt) {
  uint8_t buf[256];
  for (bool v6 : {false, true}) {
    UdpFrameSpec spec;
    spec.src_mac = kOurMac;
    spec.dst_mac = kPeerMac;
    spec.vlan_id = 100;
    spec.vlan_pcp = 5;
    spec.src_ip = v6 ? IpAddress::V6(kOur6) : IpAddress::V4(kOur4);
    spec.dst_ip = v6 ? IpAddress::V6(kPeer6) : IpAddress::V4(kPeer4);
    spec.src_port = 40000;
    spec.dst_port = 123;
    spec.dscp = 46;
    FrameInfo info;
    const uint32_t n = BuildUdpFrame(buf, sizeof(buf), spec, 48, &info);
    ASSERT_EQ(n, v6 ? 18u + 40 + 8 + 48 : 18u + 20 + 8 + 48);
    for (int i = 0; i < 48; ++i) buf[info.payload_offset + i] = uint8_t(i);
    FinaliseUdpChecksum(buf, info);
    const Frame f(buf, buf + n);
    const FrameInfo seen = Classify(f, PeerAddresses(100));
    ASSERT_EQ(seen.kind, FrameKind::kNtp) << FrameDropName(seen.drop);
    EXPECT_EQ(seen.vlan_tci, (5 << 13) | 100);
    EXPECT_EQ(seen.payload_offset, info.payload_offset);
    EXPECT_EQ(seen.l4_offset, info.l4_offset);
    EXPECT_EQ(seen.hop_limit, 64);
    EXPECT_EQ(seen.src_port, 40000);
    EXPECT_EQ(info.frame_len, n);
    const uint8_t tos =
        v6 ? static_cast<uint8_t>(LoadBe16(&f[18]) >> 4) : f[19];
    EXPECT_EQ(tos, 46 << 2);
    EXPECT_EQ(BuildUdpFrame(buf, n - 1, spec, 48, &info), 0u);
  }
}

TEST(BuildUdpFrameTest, MulticastPtp) {
  uint8_t buf[128];
  UdpFrameSpec spec;
  spec.src_mac = kOurMac;
  spec.dst_mac = Ipv4MulticastMac(kPtpPrimaryIpv4);
  spec.src_ip = IpAddress::V4(kOur4);
  spec.dst_ip = IpAddress::V4(kPtpPrimaryIpv4);
  spec.src_port = spec.dst_port = kPtpEventPort;
  spec.ttl = 1;
  FrameInfo info;
  const uint32_t n = BuildUdpFrame(buf, sizeof(buf), spec, 44, &info);
  ASSERT_EQ(n, 86u);
  EXPECT_TRUE(info.dst_multicast);
  std::memset(buf + info.payload_offset, 0, 44);
  FinaliseUdpChecksum(buf, info);
  const FrameInfo seen = Classify(Frame(buf, buf + n), PeerAddresses());
  EXPECT_EQ(seen.kind, FrameKind::kPtpEvent) << FrameDropName(seen.drop);
  EXPECT_EQ(seen.hop_limit, 1);
}

TEST(BuildUdpFrameTest, RejectsInconsistentSpecs) {
  uint8_t buf[256];
  FrameInfo info;
  UdpFrameSpec spec;
  spec.src_mac = kOurMac;
  spec.dst_mac = kPeerMac;
  spec.src_ip = IpAddress::V4(kOur4);
  spec.dst_ip = IpAddress::V6(kPeer6);
  EXPECT_EQ(BuildUdpFrame(buf, sizeof(buf), spec, 48, &info), 0u);
  spec.dst_ip = IpAddress::V4(kPeer4);
  ASSERT_NE(BuildUdpFrame(buf, sizeof(buf), spec, 48, &info), 0u);
  spec.vlan_id = 4095;
  EXPECT_EQ(BuildUdpFrame(buf, sizeof(buf), spec, 48, &info), 0u);
  spec.vlan_id = 1;
  spec.vlan_pcp = 8;
  EXPECT_EQ(BuildUdpFrame(buf, sizeof(buf), spec, 48, &info), 0u);
  spec.vlan_pcp = 7;
  spec.dscp = 64;
  EXPECT_EQ(BuildUdpFrame(buf, sizeof(buf), spec, 48, &info), 0u);
}

TEST(BuildL2FrameTest, PtpOverEthernet) {
  uint8_t buf[128];
  FrameInfo info;
  const uint32_t n = BuildL2Frame(buf, sizeof(buf), kOurMac, kPtpPrimaryMac,
                                  std::nullopt, 0, kEtherTypePtp, 44, &info);
  ASSERT_EQ(n, 58u);
  EXPECT_EQ(info.payload_offset, 14);
  std::memset(buf + 14, 0, 44);
  const FrameInfo seen = Classify(Frame(buf, buf + n), PeerAddresses());
  EXPECT_EQ(seen.kind, FrameKind::kPtpL2);
  EXPECT_EQ(BuildL2Frame(buf, 61, kOurMac, kPtpPrimaryMac, 7, 0, kEtherTypePtp,
                         44, &info),
            0u);
  EXPECT_EQ(BuildL2Frame(buf, 62, kOurMac, kPtpPrimaryMac, 7, 0, kEtherTypePtp,
                         44, &info),
            62u);
  EXPECT_EQ(info.l3_offset, 18);
}

}  // namespace
}  // namespace frame_build_test
}  // namespace zg::core::testing
