// SPDX-License-Identifier: Apache-2.0
#include "core/net/l2l3_responder.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core {
namespace l2l3_responder_test {
namespace {

using Frame = std::vector<uint8_t>;
using testing::FromHex;
using testing::kOur4;
using testing::kOur6;
using testing::kOurMac;
using testing::kPeer4;
using testing::kPeer6;
using testing::kPeerMac;
using testing::OurAddresses;
using testing::PeerAddresses;

FrameInfo Classify(const Frame& f, const LocalAddresses& l) {
  return ClassifyFrame(f.data(), static_cast<uint32_t>(f.size()), l);
}

// Answers `f` in place (buffer capacity `cap` >= f.size()); returns the reply.
Frame Answer(Frame f, uint32_t cap, FrameDrop* drop,
             std::optional<uint16_t> vlan = {}) {
  const LocalAddresses local = OurAddresses(vlan);
  const FrameInfo req = Classify(f, local);
  EXPECT_NE(req.kind, FrameKind::kDrop) << FrameDropName(req.drop);
  f.resize(cap);
  const uint32_t n = AnswerL2L3(f.data(), cap, req, local, drop);
  f.resize(n);
  return f;
}

TEST(ArpResponderTest, RepliesFromOurMac) {
  FrameDrop drop = FrameDrop::kNone;
  const Frame req = FromHex(testing::kArpRequestHex);
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), 60u);  // 42 + zero padding, as the request was
  EXPECT_TRUE(kPeerMac.Equals(&r[0]));
  EXPECT_TRUE(kOurMac.Equals(&r[6]));
  EXPECT_EQ(LoadBe16(&r[12]), kEtherTypeArp);
  EXPECT_EQ(LoadBe16(&r[14 + arp::kOperation]), arp::kOpReply);
  EXPECT_TRUE(kOurMac.Equals(&r[14 + arp::kSenderMac]));
  EXPECT_EQ(Ipv4Addr::Load(&r[14 + arp::kSenderIp]), kOur4);
  EXPECT_TRUE(kPeerMac.Equals(&r[14 + arp::kTargetMac]));
  EXPECT_EQ(Ipv4Addr::Load(&r[14 + arp::kTargetIp]), kPeer4);
  for (size_t i = 42; i < 60; ++i) EXPECT_EQ(r[i], 0) << i;
  // The peer sees an ARP reply for its address.
  const FrameInfo seen = Classify(r, PeerAddresses());
  EXPECT_EQ(seen.kind, FrameKind::kOther) << FrameDropName(seen.drop);
  EXPECT_EQ(seen.local_index, 0);
}

TEST(ArpResponderTest, UnpaddedRequestGetsUnpaddedReply) {
  Frame req = FromHex(testing::kArpRequestHex);
  req.resize(42);
  FrameDrop drop = FrameDrop::kNone;
  EXPECT_EQ(Answer(req, req.size(), &drop).size(), 42u);
  // With a VLAN tag.
  Frame tagged(req.begin(), req.begin() + 12);
  const uint8_t tag[] = {0x81, 0x00, 0x00, 0x64};
  tagged.insert(tagged.end(), tag, tag + 4);
  tagged.insert(tagged.end(), req.begin() + 12, req.end());
  const Frame r = Answer(tagged, tagged.size(), &drop, 100);
  ASSERT_EQ(r.size(), 46u);
  EXPECT_EQ(LoadBe16(&r[16]), kEtherTypeArp);
  EXPECT_EQ(LoadBe16(&r[18 + arp::kOperation]), arp::kOpReply);
}

TEST(IcmpResponderTest, EchoReply) {
  FrameDrop drop = FrameDrop::kNone;
  const Frame req = FromHex(testing::kIcmpEchoHex);
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), req.size());
  EXPECT_TRUE(kPeerMac.Equals(&r[0]));
  EXPECT_TRUE(kOurMac.Equals(&r[6]));
  EXPECT_EQ(Ipv4Addr::Load(&r[26]), kOur4);
  EXPECT_EQ(Ipv4Addr::Load(&r[30]), kPeer4);
  EXPECT_EQ(r[34], icmp::kEchoReply);
  EXPECT_EQ(0,
            std::memcmp(&r[38], &req[38], req.size() - 38));  // id, seq, data
  EXPECT_TRUE(testing::RefIpv4HeaderValid(r.data(), 14));
  EXPECT_TRUE(testing::RefL4Valid(r.data(), 14, 34, 64, kIpProtoIcmp));
  EXPECT_EQ(Classify(r, PeerAddresses()).kind, FrameKind::kOther);
}

TEST(IcmpResponderTest, EchoReplyDropsIpv4Options) {
  // The echo vector with a 4-byte router-alert option inserted.
  Frame req = FromHex(testing::kIcmpEchoHex);
  const uint8_t opt[] = {0x94, 0x04, 0x00, 0x00};
  req.insert(req.begin() + 34, opt, opt + 4);
  req[14] = 0x46;
  req[17] += 4;
  testing::RefSealIpv4Header(req.data(), 14);
  FrameDrop drop = FrameDrop::kNone;
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), req.size() - 4);
  EXPECT_EQ(r[14], 0x45);
  EXPECT_EQ(0, std::memcmp(&r[38], &req[42], 60));
  EXPECT_TRUE(testing::RefIpv4HeaderValid(r.data(), 14));
  EXPECT_TRUE(testing::RefL4Valid(r.data(), 14, 34, 64, kIpProtoIcmp));
}

TEST(Icmp6ResponderTest, EchoReply) {
  FrameDrop drop = FrameDrop::kNone;
  const Frame req = FromHex(testing::kIcmp6EchoHex);
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), req.size());
  EXPECT_EQ(Ipv6Addr::Load(&r[22]), kOur6);
  EXPECT_EQ(Ipv6Addr::Load(&r[38]), kPeer6);
  EXPECT_EQ(r[21], 64);
  EXPECT_EQ(r[54], icmp6::kEchoReply);
  EXPECT_EQ(0, std::memcmp(&r[58], &req[58], req.size() - 58));
  EXPECT_TRUE(testing::RefL4Valid(r.data(), 14, 54, 64, kIpProtoIcmp6));
  EXPECT_EQ(Classify(r, PeerAddresses()).kind, FrameKind::kOther);
}

TEST(Icmp6ResponderTest, EchoReplyDropsExtensionHeaders) {
  Frame req = FromHex(testing::kIcmp6EchoHex);
  const uint8_t dstopts[] = {kIpProtoIcmp6, 0, 1, 4, 0, 0, 0, 0};
  req.insert(req.begin() + 54, dstopts, dstopts + 8);
  req[20] = kIpProtoDstOpts;
  req[19] += 8;
  FrameDrop drop = FrameDrop::kNone;
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), req.size() - 8);
  EXPECT_EQ(r[20], kIpProtoIcmp6);
  EXPECT_EQ(LoadBe16(&r[18]), 64);
  EXPECT_TRUE(testing::RefL4Valid(r.data(), 14, 54, 64, kIpProtoIcmp6));
}

void ExpectAdvertisement(const Frame& r, const Ipv6Addr& dst, bool solicited) {
  ASSERT_EQ(r.size(), 86u);
  EXPECT_TRUE(kOurMac.Equals(&r[6]));
  EXPECT_EQ(r[21], 255);  // hop limit
  EXPECT_EQ(Ipv6Addr::Load(&r[22]), kOur6);
  EXPECT_EQ(Ipv6Addr::Load(&r[38]), dst);
  EXPECT_EQ(LoadBe16(&r[18]), 32);
  EXPECT_EQ(r[54], icmp6::kNeighborAdvertisement);
  EXPECT_EQ(r[55], 0);
  EXPECT_EQ(LoadBe32(&r[58]),
            icmp6::kNaFlagOverride | (solicited ? icmp6::kNaFlagSolicited : 0));
  EXPECT_EQ(Ipv6Addr::Load(&r[62]), kOur6);
  EXPECT_EQ(r[78], icmp6::kOptTargetLinkAddr);
  EXPECT_EQ(r[79], 1);
  EXPECT_TRUE(kOurMac.Equals(&r[80]));
  EXPECT_TRUE(testing::RefL4Valid(r.data(), 14, 54, 32, kIpProtoIcmp6));
}

TEST(NdResponderTest, AdvertisementFitsInASolicitationWithSllao) {
  const Frame req = FromHex(testing::kNsHex);
  ASSERT_EQ(req.size(), 86u);
  FrameDrop drop = FrameDrop::kNone;
  // Capacity exactly the request's size is enough.
  const Frame r = Answer(req, req.size(), &drop);
  ExpectAdvertisement(r, kPeer6, true);
  EXPECT_TRUE(kPeerMac.Equals(&r[0]));  // from the SLLAO
  EXPECT_EQ(Classify(r, PeerAddresses()).kind, FrameKind::kOther);
}

TEST(NdResponderTest, DestinationMacFromSllaoNotFrameSource) {
  Frame req = FromHex(testing::kNsHex);
  const MacAddr other{{0x02, 0, 0, 0, 0, 0x77}};
  other.Store(&req[80]);
  testing::RefSealL4(req.data(), 14, 54, 32, kIpProtoIcmp6, 2);
  FrameDrop drop = FrameDrop::kNone;
  const Frame r = Answer(req, req.size(), &drop);
  ASSERT_EQ(r.size(), 86u);
  EXPECT_TRUE(other.Equals(&r[0]));
}

TEST(NdResponderTest, DadIsAnsweredToAllNodes) {
  const Frame req = FromHex(testing::kNsDadHex);
  ASSERT_EQ(req.size(), 78u);
  FrameDrop drop = FrameDrop::kNone;
  // The advertisement is 8 bytes longer than an NS without options.
  EXPECT_EQ(Answer(req, req.size(), &drop).size(), 0u);
  EXPECT_EQ(drop, FrameDrop::kReplyTooLong);
  const Frame r = Answer(req, 128, &drop);
  ExpectAdvertisement(r, kAllNodesIpv6, false);
  EXPECT_EQ(MacAddr::Load(&r[0]).ToString(), "33:33:00:00:00:01");
}

TEST(NdResponderTest, UnicastSolicitationWithoutSllaoAnswersFrameSource) {
  Frame req = FromHex(testing::kNsHex);
  req.resize(78);  // drop the SLLAO
  req[19] = 24;
  kOur6.Store(&req[38]);
  kOurMac.Store(&req[0]);
  testing::RefSealL4(req.data(), 14, 54, 24, kIpProtoIcmp6, 2);
  FrameDrop drop = FrameDrop::kNone;
  const Frame r = Answer(req, 86, &drop);
  ExpectAdvertisement(r, kPeer6, true);
  EXPECT_TRUE(kPeerMac.Equals(&r[0]));
}

// Addresses of a range (a load generator's clients) are answered for with
// the requested address itself.
TEST(ArpResponderTest, AnswersForRangeAddresses) {
  LocalAddresses local = OurAddresses();
  const Ipv4Addr first = Ipv4Addr::FromOctets(10, 99, 4, 0);
  ASSERT_TRUE(local.AddIpv4Range(first, 1024).ok());
  const Ipv4Addr asked{first.value + 777};
  Frame f = FromHex(testing::kArpRequestHex);
  asked.Store(&f[14 + arp::kTargetIp]);
  const FrameInfo req = Classify(f, local);
  ASSERT_EQ(req.kind, FrameKind::kArpRequest) << FrameDropName(req.drop);
  EXPECT_EQ(req.local_index, LocalAddresses::kRangeIndex);
  FrameDrop drop = FrameDrop::kNone;
  ASSERT_EQ(AnswerL2L3(f.data(), f.size(), req, local, &drop), 60u);
  EXPECT_EQ(Ipv4Addr::Load(&f[14 + arp::kSenderIp]), asked);
  EXPECT_TRUE(kOurMac.Equals(&f[14 + arp::kSenderMac]));
  EXPECT_EQ(Ipv4Addr::Load(&f[14 + arp::kTargetIp]), kPeer4);
  // Outside the range: not ours.
  Frame g = FromHex(testing::kArpRequestHex);
  Ipv4Addr{first.value + 1024}.Store(&g[14 + arp::kTargetIp]);
  EXPECT_EQ(Classify(g, local).drop, FrameDrop::kArpNotOurs);
}

TEST(NdResponderTest, AnswersForRangeAddresses) {
  LocalAddresses local = OurAddresses();
  Ipv6Addr first = kOur6;
  StoreBe32(first.b.data() + 12, 0x00010000);
  ASSERT_TRUE(local.AddIpv6Range(first, 4096).ok());
  Ipv6Addr asked = first;
  StoreBe32(asked.b.data() + 12, 0x00010ABC);
  // The captured NS, re-aimed at `asked`'s solicited-node group.
  Frame f = FromHex(testing::kNsHex);
  const Ipv6Addr group = asked.SolicitedNode();
  group.Store(&f[38]);
  group.MulticastMac().Store(&f[0]);
  asked.Store(&f[62]);
  testing::RefSealL4(f.data(), 14, 54, 32, kIpProtoIcmp6, 2);
  const FrameInfo req = Classify(f, local);
  ASSERT_EQ(req.kind, FrameKind::kNeighborSolicitation)
      << FrameDropName(req.drop);
  EXPECT_EQ(req.local_index, LocalAddresses::kRangeIndex);
  FrameDrop drop = FrameDrop::kNone;
  ASSERT_EQ(AnswerL2L3(f.data(), f.size(), req, local, &drop), 86u);
  EXPECT_EQ(Ipv6Addr::Load(&f[22]), asked);  // source
  EXPECT_EQ(Ipv6Addr::Load(&f[62]), asked);  // target
  EXPECT_EQ(f[54], icmp6::kNeighborAdvertisement);
  EXPECT_TRUE(testing::RefL4Valid(f.data(), 14, 54, 32, kIpProtoIcmp6));
}

// The asking side: a request the responder answers, and the answer read
// back by the asker.
TEST(ArpRequesterTest, ResolvesThroughTheResponder) {
  for (std::optional<uint16_t> vlan :
       {std::optional<uint16_t>(), std::optional<uint16_t>(100)}) {
    uint8_t buf[128];
    const uint32_t n =
        BuildArpRequest(buf, sizeof(buf), kPeerMac, kPeer4, kOur4, vlan);
    ASSERT_EQ(n, 60u);
    EXPECT_TRUE(kBroadcastMac.Equals(buf));
    Frame f(buf, buf + n);
    const LocalAddresses ours = OurAddresses(vlan);
    const FrameInfo req = Classify(f, ours);
    ASSERT_EQ(req.kind, FrameKind::kArpRequest) << FrameDropName(req.drop);
    EXPECT_EQ(req.src_ipv4, kPeer4);
    // The asker does not take its own request for an answer.
    MacAddr mac;
    EXPECT_FALSE(
        ReadArpReply(f.data(), Classify(f, PeerAddresses(vlan)), kOur4, &mac));
    FrameDrop drop = FrameDrop::kNone;
    ASSERT_NE(AnswerArpRequest(f.data(), req, ours, &drop), 0u);
    const FrameInfo reply = Classify(f, PeerAddresses(vlan));
    ASSERT_EQ(reply.kind, FrameKind::kOther) << FrameDropName(reply.drop);
    ASSERT_TRUE(ReadArpReply(f.data(), reply, kOur4, &mac));
    EXPECT_EQ(mac, kOurMac);
    EXPECT_FALSE(ReadArpReply(f.data(), reply, kPeer4, &mac));  // not who
  }
}

TEST(ArpRequesterTest, RefusesWhatCannotBeSent) {
  uint8_t buf[128];
  EXPECT_EQ(BuildArpRequest(buf, 59, kPeerMac, kPeer4, kOur4, {}), 0u);
  // 18 + 28 bytes with a tag, padded to 60 too.
  EXPECT_EQ(BuildArpRequest(buf, 59, kPeerMac, kPeer4, kOur4, 7), 0u);
  EXPECT_EQ(BuildArpRequest(buf, 60, kPeerMac, kPeer4, kOur4, 7), 60u);
  EXPECT_EQ(BuildArpRequest(buf, sizeof(buf), kBroadcastMac, kPeer4, kOur4, {}),
            0u);
  EXPECT_EQ(BuildArpRequest(buf, sizeof(buf), kPeerMac, kPeer4, kOur4, 4095),
            0u);
  // An NTP frame is no ARP reply.
  const Frame ntp = FromHex(testing::kNtp4Hex);
  MacAddr mac;
  EXPECT_FALSE(
      ReadArpReply(ntp.data(), Classify(ntp, OurAddresses()), kPeer4, &mac));
}

TEST(ResponderTest, WrongKindIsRefused) {
  const LocalAddresses local = OurAddresses();
  Frame f = FromHex(testing::kNtp4Hex);
  const Frame orig = f;
  const FrameInfo ntp = Classify(f, local);
  FrameDrop drop = FrameDrop::kNone;
  EXPECT_EQ(AnswerL2L3(f.data(), f.size(), ntp, local, &drop), 0u);
  EXPECT_EQ(drop, FrameDrop::kReplyWrongKind);
  EXPECT_EQ(AnswerArpRequest(f.data(), ntp, local, &drop), 0u);
  EXPECT_EQ(AnswerIcmpEcho(f.data(), ntp, local, &drop), 0u);
  EXPECT_EQ(AnswerIcmp6Echo(f.data(), ntp, local, &drop), 0u);
  EXPECT_EQ(AnswerNeighborSolicitation(f.data(), f.size(), ntp, local, &drop),
            0u);
  EXPECT_EQ(drop, FrameDrop::kReplyWrongKind);
  EXPECT_EQ(f, orig);
  // A request classified against other addresses than the responder's.
  Frame arp = FromHex(testing::kArpRequestHex);
  const FrameInfo req = Classify(arp, local);
  LocalAddresses empty = LocalAddresses::Create(kOurMac).value();
  EXPECT_EQ(AnswerArpRequest(arp.data(), req, empty, &drop), 0u);
}

}  // namespace
}  // namespace l2l3_responder_test
}  // namespace zg::core
