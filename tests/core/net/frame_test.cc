#include "core/net/frame.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/net/checksum.h"
#include "core/net/frame_build.h"
#include "core/net/local_addresses.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core {
namespace {

using Frame = std::vector<uint8_t>;
using testing::FromHex;
using testing::kOur4;
using testing::kOur6;
using testing::kOurLinkLocal;
using testing::kOurMac;
using testing::kPeer4;
using testing::kPeer6;
using testing::kPeerLinkLocal;
using testing::kPeerMac;
using testing::OurAddresses;
using testing::PeerAddresses;

// Every offset ClassifyFrame reports lies within the first `n` bytes.
void ExpectWithinFrame(const FrameInfo& i, uint32_t n) {
  if (i.kind == FrameKind::kDrop) return;
  EXPECT_EQ(i.frame_len, n);
  EXPECT_LE(uint32_t{i.l3_offset} + i.l3_len, n);
  EXPECT_LE(uint32_t{i.l4_offset} + i.l4_len, n);
  EXPECT_LE(uint32_t{i.payload_offset} + i.payload_len, n);
  if (i.l4_offset != 0) {
    EXPECT_GE(i.l4_offset, i.l3_offset);
  }
  if (i.nd_lladdr_offset != 0) {
    EXPECT_LE(i.nd_lladdr_offset + 6u, n);
  }
}

FrameInfo Classify(const Frame& f, const LocalAddresses& local,
                   uint32_t flags = 0) {
  FrameInfo i =
      ClassifyFrame(f.data(), static_cast<uint32_t>(f.size()), local, flags);
  ExpectWithinFrame(i, static_cast<uint32_t>(f.size()));
  return i;
}

// Re-seals the IPv4 header and UDP/ICMP/ICMPv6 checksums of an untagged or
// tagged frame without IPv4 options or IPv6 extension headers, after a test
// changed a field. Lengths are taken from the headers, clamped to the frame.
void Reseal(Frame& f) {
  uint32_t l3 = 14;
  uint16_t type = static_cast<uint16_t>(f[12] << 8 | f[13]);
  while (type == 0x8100 || type == 0x88A8) {
    type = static_cast<uint16_t>(f[l3 + 2] << 8 | f[l3 + 3]);
    l3 += 4;
  }
  const auto be16 = [&](uint32_t o) {
    return static_cast<uint32_t>(f[o] << 8 | f[o + 1]);
  };
  const auto clamp = [&](uint32_t start, uint32_t len) {
    return std::min<uint32_t>(len, static_cast<uint32_t>(f.size()) - start);
  };
  if (type == 0x0800) {
    testing::RefSealIpv4Header(f.data(), l3);
    const uint32_t l4 = l3 + (f[l3] & 0xF) * 4u;
    const uint8_t proto = f[l3 + 9];
    if (proto == 17) {
      testing::RefSealL4(f.data(), l3, l4, clamp(l4, be16(l4 + 4)), 17, 6);
    } else if (proto == 1) {
      testing::RefSealL4(f.data(), l3, l4, clamp(l4, be16(l3 + 2) - 20), 1, 2);
    }
  } else if (type == 0x86DD) {
    const uint32_t l4 = l3 + 40;
    const uint8_t nh = f[l3 + 6];
    if (nh == 17) {
      testing::RefSealL4(f.data(), l3, l4, clamp(l4, be16(l4 + 4)), 17, 6);
    } else if (nh == 58) {
      testing::RefSealL4(f.data(), l3, l4, clamp(l4, be16(l3 + 4)), 58, 2);
    }
  }
}

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

// ---- Every drop reason ---------------------------------------------------

struct DropCase {
  std::string name;
  const char* hex;
  std::function<void(Frame&)> mutate;
  FrameDrop want;
  std::optional<uint16_t> vlan = std::nullopt;
  int truncate_to = -1;
};

// IPv6 UDP to port 123 with the given extension headers (each a full header
// whose first byte, the next header, is patched to chain correctly).
Frame Ntp6With(std::vector<std::pair<uint8_t, Frame>> ext) {
  Frame f = FromHex(testing::kNtp6Hex);
  Frame udp(f.begin() + 54, f.end());
  f.resize(54);
  size_t nh_pos = 20;
  for (auto& [type, h] : ext) {
    f[nh_pos] = type;
    nh_pos = f.size();
    f.insert(f.end(), h.begin(), h.end());
  }
  f[nh_pos] = kIpProtoUdp;
  f.insert(f.end(), udp.begin(), udp.end());
  const uint32_t plen = static_cast<uint32_t>(f.size() - 54);
  f[18] = static_cast<uint8_t>(plen >> 8);
  f[19] = static_cast<uint8_t>(plen);
  return f;
}

const Frame kPadN = {0, 0, 1, 4, 0, 0, 0, 0};  // 8-byte options header

std::vector<DropCase> DropCases() {
  const char* ntp4 = testing::kNtp4Hex;
  const char* ntp6 = testing::kNtp6Hex;
  const char* arp = testing::kArpRequestHex;
  const char* echo4 = testing::kIcmpEchoHex;
  const char* echo6 = testing::kIcmp6EchoHex;
  const char* ns = testing::kNsHex;
  const auto none = [](Frame&) {};
  std::vector<DropCase> c = {
      {"eth_truncated", ntp4, none, FrameDrop::kEthTruncated, {}, 13},
      {"vlan_tag_truncated", testing::kNtp4Vlan100Hex, none,
       FrameDrop::kEthTruncated, 100, 17},
      {"qinq_truncated", testing::kNtp4QinqHex, none, FrameDrop::kEthTruncated,
       100, 21},
      {"group_source_mac", ntp4, [](Frame& f) { f[6] |= 1; },
       FrameDrop::kEthBadSourceMac},
      {"other_unicast_mac", ntp4, [](Frame& f) { f[5] = 0x99; },
       FrameDrop::kEthDstNotOurs},
      {"unicast_ip_on_broadcast_mac", ntp4,
       [](Frame& f) { kBroadcastMac.Store(&f[0]); }, FrameDrop::kEthDstNotOurs},
      {"unicast_ip6_on_group_mac", ntp6,
       [](Frame& f) { kOur6.SolicitedNode().MulticastMac().Store(&f[0]); },
       FrameDrop::kEthDstNotOurs},
      {"arp_to_other_group", arp, [](Frame& f) { kPtpPrimaryMac.Store(&f[0]); },
       FrameDrop::kEthDstNotOurs},
      {"vlan_other_id", testing::kNtp4Vlan100Hex, none,
       FrameDrop::kVlanMismatch, 200},
      {"vlan_missing", ntp4, none, FrameDrop::kVlanMismatch, 100},
      {"vlan_unexpected", testing::kNtp4Vlan100Hex, none,
       FrameDrop::kVlanMismatch},
      {"qinq_without_ctag", testing::kNtp4QinqHex,
       [](Frame& f) { f[18] = 0x08, f[19] = 0x00; }, FrameDrop::kVlanMismatch,
       100},
      {"lldp", ntp4, [](Frame& f) { f[12] = 0x88, f[13] = 0xcc; },
       FrameDrop::kUnknownEthertype},
      {"arp_truncated", arp, none, FrameDrop::kArpTruncated, {}, 41},
      {"arp_not_ethernet", arp, [](Frame& f) { f[15] = 6; },
       FrameDrop::kArpBadHeader},
      {"arp_bad_opcode", arp, [](Frame& f) { f[21] = 3; },
       FrameDrop::kArpBadHeader},
      {"arp_group_sender", arp, [](Frame& f) { f[22] |= 1; },
       FrameDrop::kArpBadHeader},
      {"arp_other_target", arp, [](Frame& f) { f[41] = 9; },
       FrameDrop::kArpNotOurs},
      {"ipv4_truncated", ntp4, none, FrameDrop::kIpv4Truncated, {}, 33},
      {"ipv4_version", ntp4, [](Frame& f) { f[14] = 0x55, Reseal(f); },
       FrameDrop::kIpv4BadHeader},
      {"ipv4_ihl_4", ntp4, [](Frame& f) { f[14] = 0x44; },
       FrameDrop::kIpv4BadHeader},
      {"ipv4_ihl_beyond_frame",
       ntp4,
       [](Frame& f) { f[14] = 0x4f; },
       FrameDrop::kIpv4BadHeader,
       {},
       50},
      {"ipv4_total_beyond_frame", ntp4,
       [](Frame& f) { f[16] = 0, f[17] = 77, Reseal(f); },
       FrameDrop::kIpv4BadTotalLength},
      {"ipv4_total_below_header", ntp4,
       [](Frame& f) { f[16] = 0, f[17] = 19, Reseal(f); },
       FrameDrop::kIpv4BadTotalLength},
      {"ipv4_checksum", ntp4, [](Frame& f) { f[24] ^= 0x80; },
       FrameDrop::kIpv4BadChecksum},
      {"ipv4_more_fragments", ntp4, [](Frame& f) { f[20] = 0x20, Reseal(f); },
       FrameDrop::kIpv4Fragment},
      {"ipv4_fragment_offset", ntp4,
       [](Frame& f) { f[20] = 0x00, f[21] = 0x10, Reseal(f); },
       FrameDrop::kIpv4Fragment},
      {"ipv4_loopback_source", ntp4,
       [](Frame& f) {
         Ipv4Addr::FromOctets(127, 0, 0, 1).Store(&f[26]);
         Reseal(f);
       },
       FrameDrop::kIpv4BadSource},
      {"ipv4_broadcast_source", ntp4,
       [](Frame& f) {
         Ipv4Addr::FromOctets(255, 255, 255, 255).Store(&f[26]);
         Reseal(f);
       },
       FrameDrop::kIpv4BadSource},
      {"ipv4_other_destination", ntp4, [](Frame& f) { f[33] = 9, Reseal(f); },
       FrameDrop::kIpv4NotOurs},
      {"ntp_to_ptp_group", testing::kPtp4EventMcastHex,
       [](Frame& f) { f[36] = 0, f[37] = 123, Reseal(f); },
       FrameDrop::kIpv4NotOurs},
      {"icmp_to_ptp_group", testing::kPtp4EventMcastHex,
       [](Frame& f) { f[23] = kIpProtoIcmp, Reseal(f); },
       FrameDrop::kIpv4NotOurs},
      {"tcp_to_ptp_group", testing::kPtp4EventMcastHex,
       [](Frame& f) { f[23] = kIpProtoTcp, Reseal(f); },
       FrameDrop::kIpv4NotOurs},
      {"ipv6_truncated", ntp6, none, FrameDrop::kIpv6Truncated, {}, 53},
      {"ipv6_version", ntp6, [](Frame& f) { f[14] = 0x40; },
       FrameDrop::kIpv6BadHeader},
      {"ipv6_payload_beyond_frame", ntp6, [](Frame& f) { f[19] = 57; },
       FrameDrop::kIpv6BadPayloadLength},
      {"ipv6_ext_truncated", testing::kNtp6ExtHex,
       [](Frame& f) { f[55] = 200; }, FrameDrop::kIpv6BadExtHeader},
      {"ipv6_hop_by_hop_not_first", testing::kNtp6ExtHex,
       [](Frame& f) { f[54] = kIpProtoHopByHop; },
       FrameDrop::kIpv6BadExtHeader},
      {"ipv6_routing_segments_left", testing::kNtp6ExtHex,
       [](Frame& f) { f[54] = kIpProtoRouting, f[65] = 2; },
       FrameDrop::kIpv6BadExtHeader},
      {"ipv6_too_many_ext", ntp6,
       [](Frame& f) {
         std::vector<std::pair<uint8_t, Frame>> e;
         for (int i = 0; i < 9; ++i) e.push_back({kIpProtoDstOpts, kPadN});
         f = Ntp6With(e);
       },
       FrameDrop::kIpv6BadExtHeader},
      {"ipv6_fragment", ntp6,
       [](Frame& f) {
         f = Ntp6With({{kIpProtoFragment, Frame{0, 0, 0, 0, 0, 0, 0, 1}}});
       },
       FrameDrop::kIpv6Fragment},
      {"ipv6_fragment_after_dstopts", ntp6,
       [](Frame& f) {
         f = Ntp6With({{kIpProtoDstOpts, kPadN},
                       {kIpProtoFragment, Frame{0, 0, 0, 0, 0, 0, 0, 1}}});
       },
       FrameDrop::kIpv6Fragment},
      {"ipv6_multicast_source", ntp6,
       [](Frame& f) { kPtpPrimaryIpv6.Store(&f[22]), Reseal(f); },
       FrameDrop::kIpv6BadSource},
      {"ipv6_loopback_source", ntp6,
       [](Frame& f) {
         ParseIpv6Addr("::1").value().Store(&f[22]);
         Reseal(f);
       },
       FrameDrop::kIpv6BadSource},
      {"ipv6_unspecified_source_udp", ntp6,
       [](Frame& f) { Ipv6Addr{}.Store(&f[22]), Reseal(f); },
       FrameDrop::kIpv6BadSource},
      {"ipv6_unspecified_source_echo", echo6,
       [](Frame& f) { Ipv6Addr{}.Store(&f[22]), Reseal(f); },
       FrameDrop::kIpv6BadSource},
      {"ipv6_other_destination", ntp6, [](Frame& f) { f[53] = 9, Reseal(f); },
       FrameDrop::kIpv6NotOurs},
      {"ntp_to_ptp6_group", testing::kPtp6GeneralMcastHex,
       [](Frame& f) { f[56] = 0, f[57] = 123, Reseal(f); },
       FrameDrop::kIpv6NotOurs},
      {"udp_to_solicited_node", ntp6,
       [](Frame& f) {
         kOur6.SolicitedNode().Store(&f[38]);
         kOur6.SolicitedNode().MulticastMac().Store(&f[0]);
         Reseal(f);
       },
       FrameDrop::kIpv6NotOurs},
      {"echo6_to_solicited_node", echo6,
       [](Frame& f) {
         kOur6.SolicitedNode().Store(&f[38]);
         kOur6.SolicitedNode().MulticastMac().Store(&f[0]);
         Reseal(f);
       },
       FrameDrop::kIpv6NotOurs},
      {"ns_to_ptp_group", ns,
       [](Frame& f) { kPtpPdelayIpv6.Store(&f[38]), Reseal(f); },
       FrameDrop::kIpv6NotOurs},
      {"udp_length_short", ntp4, [](Frame& f) { f[39] = 7, Reseal(f); },
       FrameDrop::kUdpBadLength},
      {"udp_length_beyond_ip", ntp4, [](Frame& f) { f[39] = 57, Reseal(f); },
       FrameDrop::kUdpBadLength},
      {"udp_header_beyond_ip", ntp4, [](Frame& f) { f[17] = 24, Reseal(f); },
       FrameDrop::kUdpBadLength},
      {"udp6_length_beyond_ip", ntp6, [](Frame& f) { f[59] = 57; },
       FrameDrop::kUdpBadLength},
      {"udp_checksum", ntp4, [](Frame& f) { f[89] ^= 1; },
       FrameDrop::kUdpBadChecksum},
      {"udp6_checksum", ntp6, [](Frame& f) { f[109] ^= 1; },
       FrameDrop::kUdpBadChecksum},
      {"udp6_zero_checksum", ntp6, [](Frame& f) { f[60] = f[61] = 0; },
       FrameDrop::kUdpZeroChecksumV6},
      {"udp_source_port_zero", ntp4,
       [](Frame& f) { f[34] = f[35] = 0, Reseal(f); },
       FrameDrop::kUdpSourcePortZero},
      {"icmp_short", echo4, [](Frame& f) { f[17] = 24, Reseal(f); },
       FrameDrop::kIcmpBadLength},
      {"icmp_checksum", echo4, [](Frame& f) { f[97] ^= 1; },
       FrameDrop::kIcmpBadChecksum},
      {"icmp6_short", echo6, [](Frame& f) { f[19] = 4; },
       FrameDrop::kIcmp6BadLength},
      {"icmp6_checksum", echo6, [](Frame& f) { f[117] ^= 1; },
       FrameDrop::kIcmp6BadChecksum},
      {"ns_hop_limit", ns, [](Frame& f) { f[21] = 254; },
       FrameDrop::kNdBadHopLimit},
      {"ns_code", ns, [](Frame& f) { f[55] = 1, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_short", ns,
       [](Frame& f) { f.resize(54 + 16), f[19] = 16, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_multicast_target", ns, [](Frame& f) { f[62] = 0xff, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_zero_length_option", ns, [](Frame& f) { f[79] = 0, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_option_beyond_message", ns, [](Frame& f) { f[79] = 2, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_dad_with_sllao", ns,
       [](Frame& f) { Ipv6Addr{}.Store(&f[22]), Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_dad_to_unicast", testing::kNsDadHex,
       [](Frame& f) {
         kOur6.Store(&f[38]);
         kOurMac.Store(&f[0]);
         Reseal(f);
       },
       FrameDrop::kNdBadMessage},
      {"ns_group_lladdr", ns, [](Frame& f) { f[80] |= 1, Reseal(f); },
       FrameDrop::kNdBadMessage},
      {"ns_other_target", ns, [](Frame& f) { f[77] = 9, Reseal(f); },
       FrameDrop::kNdTargetNotOurs},
  };
  return c;
}

TEST(ClassifyFrameTest, EveryDropCase) {
  for (const DropCase& dc : DropCases()) {
    Frame f = FromHex(dc.hex);
    dc.mutate(f);
    if (dc.truncate_to >= 0) f.resize(dc.truncate_to);
    const FrameInfo i = Classify(f, OurAddresses(dc.vlan));
    EXPECT_EQ(i.kind, FrameKind::kDrop) << dc.name;
    EXPECT_EQ(FrameDropName(i.drop), std::string(FrameDropName(dc.want)))
        << dc.name;
  }
}

TEST(ClassifyFrameTest, FrameTooLong) {
  Frame f = FromHex(testing::kNtp4Hex);
  f.resize(70000);
  EXPECT_EQ(Classify(f, OurAddresses()).drop, FrameDrop::kEthTooLong);
}

// Every classification drop reason has a case above (the reply reasons are
// covered by the reply and responder tests).
TEST(ClassifyFrameTest, DropCasesCoverEveryReason) {
  std::set<FrameDrop> covered = {FrameDrop::kNone, FrameDrop::kEthTooLong,
                                 FrameDrop::kReplyTooLong,
                                 FrameDrop::kReplyWrongKind};
  for (const DropCase& dc : DropCases()) covered.insert(dc.want);
  for (size_t d = 0; d < kFrameDropCount; ++d) {
    EXPECT_TRUE(covered.count(static_cast<FrameDrop>(d)))
        << FrameDropName(static_cast<FrameDrop>(d));
  }
}

TEST(ClassifyFrameTest, NamesAreDistinctMetricLabels) {
  std::set<std::string> names;
  for (size_t d = 0; d < kFrameDropCount; ++d) {
    const std::string n = FrameDropName(static_cast<FrameDrop>(d));
    EXPECT_NE(n, "unknown");
    EXPECT_EQ(n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"),
              std::string::npos)
        << n;
    EXPECT_TRUE(names.insert(n).second) << n;
  }
  names.clear();
  for (size_t k = 0; k < kFrameKindCount; ++k) {
    const std::string n = FrameKindName(static_cast<FrameKind>(k));
    EXPECT_NE(n, "unknown");
    EXPECT_TRUE(names.insert(n).second) << n;
  }
  EXPECT_STREQ(FrameDropName(FrameDrop::kCount), "unknown");
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
    FinalizeUdpChecksum(buf, info);
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
    FinalizeUdpChecksum(r.data(), reply);
    const FrameInfo back = Classify(r, OurAddresses());
    ASSERT_EQ(back.kind, FrameKind::kNtp) << FrameDropName(back.drop);
    EXPECT_EQ(back.src_ipv4.value, first.value + offset);
  }
}

// ---- UDP replies
// --------------------------------------------------------------

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
    FinalizeUdpChecksum(f.data(), reply);
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
TEST(UpdateUdpChecksumTest, EqualsFinalizeOnRandomRewrites) {
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
    FinalizeUdpChecksum(f.data(), reply);
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
    FinalizeUdpChecksum(full.data(), reply);
    ASSERT_EQ(f, full) << "trial " << trial << " off " << off;
    ASSERT_TRUE(testing::RefL4Valid(f.data(), reply.l3_offset, reply.l4_offset,
                                    reply.l4_len, 17));
  }
}

// A rewrite that makes the computed checksum 0: sent as 0xFFFF, equal to
// FinalizeUdpChecksum.
TEST(UpdateUdpChecksumTest, ComputedZeroIsSentAsAllOnes) {
  const LocalAddresses local = OurAddresses();
  for (const char* hex : {testing::kNtp4Hex, testing::kNtp6Hex}) {
    Frame f = FromHex(hex);
    FrameInfo reply;
    ASSERT_NE(PrepareUdpReply(f.data(), Classify(f, local), local, 48, &reply),
              0u);
    FinalizeUdpChecksum(f.data(), reply);
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
    FinalizeUdpChecksum(full.data(), reply);
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
    FinalizeUdpChecksum(f.data(), reply);
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
    FinalizeUdpChecksum(buf, info);
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
  FinalizeUdpChecksum(buf, info);
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
}  // namespace zg::core
