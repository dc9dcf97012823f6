// SPDX-License-Identifier: Apache-2.0
// ClassifyFrame's drop reasons: one mutated known-answer frame per FrameDrop
// a classification can give (each must give exactly that reason), and the
// FrameDrop/FrameKind names used as metric labels.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/net/frame.h"
#include "core/net/net_headers.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"

namespace zg::core::testing {
namespace frame_drop_test {
namespace {

using Frame = std::vector<uint8_t>;

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

}  // namespace
}  // namespace frame_drop_test
}  // namespace zg::core::testing
