// SPDX-License-Identifier: Apache-2.0
// Our network layer dissected by tshark (an implementation none of us wrote,
// with IPv4/UDP checksum validation on): the known-answer requests of
// testdata/frame_vectors.inc, our replies to them (PrepareUdpReply +
// FinaliseUdpChecksum + the late UpdateUdpChecksum of an NTP transmit
// timestamp; the ARP/ICMP/ICMPv6/ND responders) and frames built from
// scratch (BuildUdpFrame, BuildL2Frame). Every frame must be clean (no
// malformed marker, no expert warning, every checksum verified good) and
// show the addressing we set. One tshark run for all of them.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/l2l3_responder.h"
#include "core/net/local_addresses.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/util/tshark.h"

namespace zg::core::testing {
namespace frame_tshark_test {
namespace {

using testutil::FieldValues;
using testutil::FrameCheck;

FieldValues Plus(FieldValues a, const FieldValues& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const FieldValues kUdp4Good = {{"ip.checksum.status", "1"},
                               {"udp.checksum.status", "1"}};
const FieldValues kUdp6Good = {{"udp.checksum.status", "1"}};

// The request as received, then our UDP reply to it (an NTP server reply for
// port 123, the payload echoed otherwise).
void AddUdpReply(std::vector<FrameCheck>& out, const char* hex,
                 std::optional<uint16_t> vlan, const std::string& name,
                 const FieldValues& want) {
  std::vector<uint8_t> f = FromHex(hex);
  out.push_back({name + " request", f, {}});
  const LocalAddresses local = OurAddresses(vlan);
  const FrameInfo req = ClassifyFrame(f.data(), f.size(), local);
  FrameInfo reply;
  const uint32_t n =
      PrepareUdpReply(f.data(), req, local, req.payload_len, &reply);
  ASSERT_NE(n, 0u) << name << ": " << FrameDropName(req.drop);
  if (req.dst_port == kNtpPort) {
    // Mode 4, stratum 1, origin = the client's transmit timestamp.
    uint8_t* p = f.data() + reply.payload_offset;
    uint8_t client_tx[8];
    std::memcpy(client_tx, p + 40, 8);
    std::memset(p, 0, 48);
    p[0] = 0x24;
    p[1] = 1;
    std::memcpy(p + 24, client_tx, 8);
    FinaliseUdpChecksum(f.data(), reply);
    // The late transmit-timestamp rewrite.
    const uint8_t t3[8] = {0xe8, 0xf5, 0xa1, 0xb3, 0x11, 0x22, 0x33, 0x44};
    uint8_t old_t3[8];
    std::memcpy(old_t3, p + 40, 8);
    std::memcpy(p + 40, t3, 8);
    UpdateUdpChecksum(f.data(), reply, 40, old_t3, t3, 8);
  } else {
    FinaliseUdpChecksum(f.data(), reply);
  }
  f.resize(n);
  out.push_back({name + " reply", f, want});
}

// The request, then the ARP/ICMP/ND responder's answer in a `cap`-byte
// buffer.
void AddL2L3Reply(std::vector<FrameCheck>& out, const char* hex, uint32_t cap,
                  const std::string& name, const FieldValues& want) {
  std::vector<uint8_t> f = FromHex(hex);
  out.push_back({name + " request", f, {}});
  const LocalAddresses local = OurAddresses();
  const FrameInfo req = ClassifyFrame(f.data(), f.size(), local);
  f.resize(cap);
  FrameDrop drop = FrameDrop::kNone;
  const uint32_t n = AnswerL2L3(f.data(), cap, req, local, &drop);
  ASSERT_NE(n, 0u) << name << ": " << FrameDropName(drop);
  f.resize(n);
  out.push_back({name + " reply", f, want});
}

// A 44-byte PTPv2 Sync in a frame built by BuildUdpFrame/BuildL2Frame.
std::vector<uint8_t> BuiltSync(const UdpFrameSpec* spec, FrameInfo* info) {
  std::vector<uint8_t> buf(256);
  const uint32_t n =
      spec != nullptr
          ? BuildUdpFrame(buf.data(), buf.size(), *spec, 44, info)
          : BuildL2Frame(buf.data(), buf.size(), kOurMac, kPtpPrimaryMac,
                         std::nullopt, 0, kEtherTypePtp, 44, info);
  EXPECT_NE(n, 0u);
  uint8_t* p = buf.data() + info->payload_offset;
  std::memset(p, 0, 44);
  p[1] = 0x02;  // PTPv2, Sync
  p[3] = 44;
  if (spec != nullptr) FinaliseUdpChecksum(buf.data(), *info);
  buf.resize(n);
  return buf;
}

void AddBuilt(std::vector<FrameCheck>& out) {
  // PTP Sync over UDP/IPv4 to the primary group, VLAN 100 PCP 7.
  UdpFrameSpec spec;
  spec.src_mac = kOurMac;
  spec.dst_mac = Ipv4MulticastMac(kPtpPrimaryIpv4);
  spec.vlan_id = 100;
  spec.vlan_pcp = 7;
  spec.src_ip = IpAddress::V4(kOur4);
  spec.dst_ip = IpAddress::V4(kPtpPrimaryIpv4);
  spec.src_port = spec.dst_port = kPtpEventPort;
  spec.dscp = 46;
  spec.ttl = 1;
  FrameInfo info;
  out.push_back({"built PTP/UDPv4 Sync", BuiltSync(&spec, &info),
                 Plus(kUdp4Good, {{"eth.dst", "01:00:5e:00:01:81"},
                                  {"vlan.id", "100"},
                                  {"vlan.priority", "7"},
                                  {"ip.dst", "224.0.1.129"},
                                  {"ip.ttl", "1"},
                                  {"ip.dsfield.dscp", "46"},
                                  {"udp.dstport", "319"},
                                  {"ptp.v2.messagetype", "0x00"}})});
  // Over IPv6 to ff0e::181.
  spec.vlan_id.reset();
  spec.src_ip = IpAddress::V6(kOur6);
  spec.dst_ip = IpAddress::V6(kPtpPrimaryIpv6);
  spec.dst_mac = kPtpPrimaryIpv6.MulticastMac();
  out.push_back({"built PTP/UDPv6 Sync", BuiltSync(&spec, &info),
                 Plus(kUdp6Good, {{"eth.dst", "33:33:00:00:01:81"},
                                  {"ipv6.src", "2001:db8::1"},
                                  {"ipv6.dst", "ff0e::181"},
                                  {"ipv6.hlim", "1"},
                                  {"ptp.v2.messagetype", "0x00"}})});
  // PTP over Ethernet.
  out.push_back({"built PTP/L2 Sync",
                 BuiltSync(nullptr, &info),
                 {{"eth.dst", "01:1b:19:00:00:00"},
                  {"eth.type", "0x88f7"},
                  {"ptp.v2.messagetype", "0x00"}}});
}

std::vector<FrameCheck> AllChecks() {
  std::vector<FrameCheck> c;
  const FieldValues ntp4 = Plus(kUdp4Good, {{"ip.src", "10.99.0.1"},
                                            {"ip.dst", "10.99.0.2"},
                                            {"ip.ttl", "64"},
                                            {"ip.flags.df", "1"},
                                            {"ip.hdr_len", "20"},
                                            {"udp.srcport", "123"},
                                            {"udp.dstport", "40000"},
                                            {"ntp.flags.mode", "4"},
                                            {"ntp.stratum", "1"}});
  AddUdpReply(c, kNtp4Hex, {}, "ntp4", ntp4);
  AddUdpReply(c, kNtp4Vlan100Hex, 100, "ntp4 vlan",
              Plus(ntp4, {{"vlan.id", "100"}, {"vlan.priority", "5"}}));
  AddUdpReply(c, kNtp4QinqHex, 100, "ntp4 qinq",
              Plus(ntp4, {{"ieee8021ad.id", "7"}, {"vlan.id", "100"}}));
  AddUdpReply(c, kNtp4OptionsHex, {}, "ntp4 options", ntp4);
  const FieldValues ntp6 = Plus(kUdp6Good, {{"ipv6.src", "2001:db8::1"},
                                            {"ipv6.dst", "2001:db8::2"},
                                            {"ipv6.hlim", "64"},
                                            {"ipv6.nxt", "17"},
                                            {"udp.srcport", "123"},
                                            {"ntp.flags.mode", "4"}});
  AddUdpReply(c, kNtp6Hex, {}, "ntp6", ntp6);
  AddUdpReply(c, kNtp6ExtHex, {}, "ntp6 ext", ntp6);
  AddUdpReply(c, kPtp4EventMcastHex, {}, "ptp4 event mcast",
              Plus(kUdp4Good, {{"ip.src", "10.99.0.1"},
                               {"ip.dst", "10.99.0.2"},
                               {"udp.srcport", "319"},
                               {"ptp.v2.messagetype", "0x01"}}));
  AddUdpReply(c, kPtp6GeneralMcastHex, {}, "ptp6 general mcast",
              Plus(kUdp6Good, {{"ipv6.src", "fe80::1"},
                               {"ipv6.dst", "fe80::2"},
                               {"udp.srcport", "320"}}));
  AddL2L3Reply(c, kArpRequestHex, 60, "arp",
               {{"arp.opcode", "2"},
                {"arp.src.hw_mac", "02:00:00:00:00:01"},
                {"arp.src.proto_ipv4", "10.99.0.1"},
                {"arp.dst.proto_ipv4", "10.99.0.2"},
                {"eth.dst", "02:00:00:00:00:02"},
                {"frame.len", "60"}});
  AddL2L3Reply(c, kIcmpEchoHex, 98, "icmp echo",
               {{"ip.checksum.status", "1"},
                {"icmp.checksum.status", "1"},
                {"icmp.type", "0"},
                {"icmp.ident", "16962"},  // 0x4242
                {"icmp.seq", "7"},
                {"ip.src", "10.99.0.1"},
                {"data.len", "56"}});
  AddL2L3Reply(c, kIcmp6EchoHex, 118, "icmp6 echo",
               {{"icmpv6.checksum.status", "1"},
                {"icmpv6.type", "129"},
                {"icmpv6.echo.identifier", "0x4242"},
                {"ipv6.src", "2001:db8::1"},
                {"ipv6.dst", "2001:db8::2"}});
  const FieldValues na = {{"icmpv6.checksum.status", "1"},
                          {"icmpv6.type", "136"},
                          {"icmpv6.code", "0"},
                          {"ipv6.hlim", "255"},
                          {"ipv6.src", "2001:db8::1"},
                          {"icmpv6.nd.na.target_address", "2001:db8::1"},
                          {"icmpv6.nd.na.flag.o", "1"},
                          {"icmpv6.nd.na.flag.r", "0"},
                          {"icmpv6.opt.type", "2"},
                          {"icmpv6.opt.linkaddr", "02:00:00:00:00:01"}};
  AddL2L3Reply(c, kNsHex, 86, "ns",
               Plus(na, {{"icmpv6.nd.na.flag.s", "1"},
                         {"ipv6.dst", "2001:db8::2"},
                         {"eth.dst", "02:00:00:00:00:02"}}));
  AddL2L3Reply(c, kNsDadHex, 128, "ns dad",
               Plus(na, {{"icmpv6.nd.na.flag.s", "0"},
                         {"ipv6.dst", "ff02::1"},
                         {"eth.dst", "33:33:00:00:00:01"}}));
  AddBuilt(c);
  return c;
}

TEST(FrameTsharkTest, RequestsRepliesAndBuiltFramesDissectCleanAsSet) {
  if (!testutil::TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  const std::vector<FrameCheck> checks = AllChecks();
  ASSERT_EQ(checks.size(), 29u);
  const absl::Status s = testutil::DissectAndCheck(checks);
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace frame_tshark_test
}  // namespace zg::core::testing
