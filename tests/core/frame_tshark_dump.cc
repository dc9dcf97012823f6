// Writes the known-answer requests and zeitgeber's replies to them (and
// frames built from scratch) to a pcap file, with a manifest of the Wireshark
// display filter each frame must match. frame_tshark_test.py has tshark
// dissect them with checksum validation on: an independent implementation
// checking our checksums, lengths and protocol fields.
//   frame_tshark_dump OUT.pcap OUT.manifest
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/frame.h"
#include "core/l2l3_responder.h"
#include "tests/core/frame_test_util.h"

namespace zg::core::testing {
namespace {

struct Out {
  FILE* pcap;
  FILE* manifest;
  int n = 0;
  void Add(const uint8_t* f, uint32_t len, const std::string& name,
           const std::string& filter) {
    const uint32_t rec[4] = {static_cast<uint32_t>(1700000000 + n), 0, len,
                             len};
    fwrite(rec, sizeof(rec), 1, pcap);
    fwrite(f, 1, len, pcap);
    fprintf(manifest, "%d\t%s\t%s\n", ++n, name.c_str(), filter.c_str());
  }
};

std::vector<uint8_t> Hex(const char* h) { return FromHex(h); }

void UdpReply(Out& out, const char* hex, std::optional<uint16_t> vlan,
              const std::string& name, const std::string& filter) {
  std::vector<uint8_t> f = Hex(hex);
  out.Add(f.data(), f.size(), name + "_request", "udp");
  const LocalAddresses local = OurAddresses(vlan);
  const FrameInfo req = ClassifyFrame(f.data(), f.size(), local);
  FrameInfo reply;
  const uint32_t n =
      PrepareUdpReply(f.data(), req, local, req.payload_len, &reply);
  if (n == 0) {
    fprintf(stderr, "%s: no reply (%s)\n", name.c_str(),
            FrameDropName(req.drop));
    return;
  }
  if (req.dst_port == kNtpPort) {
    // An NTP server reply: mode 4, stratum 1, origin = client's transmit.
    uint8_t* p = f.data() + reply.payload_offset;
    uint8_t client_tx[8];
    std::memcpy(client_tx, p + 40, 8);
    std::memset(p, 0, 48);
    p[0] = 0x24;
    p[1] = 1;
    std::memcpy(p + 24, client_tx, 8);
    FinalizeUdpChecksum(f.data(), reply);
    // The late transmit-timestamp rewrite.
    const uint8_t t3[8] = {0xe8, 0xf5, 0xa1, 0xb3, 0x11, 0x22, 0x33, 0x44};
    uint8_t old_t3[8];
    std::memcpy(old_t3, p + 40, 8);
    std::memcpy(p + 40, t3, 8);
    UpdateUdpChecksum(f.data(), reply, 40, old_t3, t3, 8);
  } else {
    FinalizeUdpChecksum(f.data(), reply);
  }
  out.Add(f.data(), n, name + "_reply", filter);
}

void L2L3Reply(Out& out, const char* hex, uint32_t cap, const std::string& name,
               const std::string& filter) {
  std::vector<uint8_t> f = Hex(hex);
  out.Add(f.data(), f.size(), name + "_request", "eth");
  const LocalAddresses local = OurAddresses();
  const FrameInfo req = ClassifyFrame(f.data(), f.size(), local);
  f.resize(cap);
  FrameDrop drop = FrameDrop::kNone;
  const uint32_t n = AnswerL2L3(f.data(), cap, req, local, &drop);
  if (n == 0) {
    fprintf(stderr, "%s: no reply (%s)\n", name.c_str(), FrameDropName(drop));
    return;
  }
  out.Add(f.data(), n, name + "_reply", filter);
}

void Built(Out& out) {
  uint8_t buf[256];
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
  uint32_t n = BuildUdpFrame(buf, sizeof(buf), spec, 44, &info);
  uint8_t* p = buf + info.payload_offset;
  std::memset(p, 0, 44);
  p[0] = 0x00;  // Sync
  p[1] = 0x02;  // PTPv2
  p[3] = 44;
  FinalizeUdpChecksum(buf, info);
  out.Add(buf, n, "built_ptp4_sync",
          "vlan.id==100 && vlan.priority==7 && ip.dst==224.0.1.129 && "
          "ip.ttl==1 && ip.dsfield.dscp==46 && ptp.v2.messagetype==0");
  // Over IPv6 to ff0e::181.
  spec.vlan_id.reset();
  spec.src_ip = IpAddress::V6(kOur6);
  spec.dst_ip = IpAddress::V6(kPtpPrimaryIpv6);
  spec.dst_mac = kPtpPrimaryIpv6.MulticastMac();
  n = BuildUdpFrame(buf, sizeof(buf), spec, 44, &info);
  p = buf + info.payload_offset;
  std::memset(p, 0, 44);
  p[1] = 0x02;
  p[3] = 44;
  FinalizeUdpChecksum(buf, info);
  out.Add(buf, n, "built_ptp6_sync",
          "ipv6.dst==ff0e::181 && ipv6.hlim==1 && ptp.v2.messagetype==0");
  // PTP over Ethernet.
  n = BuildL2Frame(buf, sizeof(buf), kOurMac, kPtpPrimaryMac, std::nullopt, 0,
                   kEtherTypePtp, 44, &info);
  p = buf + info.payload_offset;
  std::memset(p, 0, 44);
  p[1] = 0x02;
  p[3] = 44;
  out.Add(buf, n, "built_ptp_l2",
          "eth.dst==01:1b:19:00:00:00 && eth.type==0x88f7 && "
          "ptp.v2.messagetype==0");
}

int Main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUT.pcap OUT.manifest\n", argv[0]);
    return 2;
  }
  Out out{fopen(argv[1], "wb"), fopen(argv[2], "w")};
  if (out.pcap == nullptr || out.manifest == nullptr) {
    perror("open");
    return 1;
  }
  // pcap global header: magic, v2.4, zone, sigfigs, snaplen, Ethernet.
  const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
  fwrite(hdr, sizeof(hdr), 1, out.pcap);
  const std::string ntp4 =
      "ip.src==10.99.0.1 && ip.dst==10.99.0.2 && ip.ttl==64 && "
      "ip.flags.df==1 && udp.srcport==123 && udp.dstport==40000 && "
      "ntp.flags.mode==4 && ntp.stratum==1";
  UdpReply(out, kNtp4Hex, {}, "ntp4", ntp4);
  UdpReply(out, kNtp4Vlan100Hex, 100, "ntp4_vlan",
           ntp4 + " && vlan.id==100 && vlan.priority==5");
  UdpReply(out, kNtp4QinqHex, 100, "ntp4_qinq",
           ntp4 + " && ieee8021ad.id==7 && vlan.id==100");
  UdpReply(out, kNtp4OptionsHex, {}, "ntp4_options",
           ntp4 + " && ip.hdr_len==20");
  const std::string ntp6 =
      "ipv6.src==2001:db8::1 && ipv6.dst==2001:db8::2 && ipv6.hlim==64 && "
      "ipv6.nxt==17 && udp.srcport==123 && ntp.flags.mode==4";
  UdpReply(out, kNtp6Hex, {}, "ntp6", ntp6);
  UdpReply(out, kNtp6ExtHex, {}, "ntp6_ext", ntp6);
  UdpReply(out, kPtp4EventMcastHex, {}, "ptp4_event_mcast",
           "ip.src==10.99.0.1 && ip.dst==10.99.0.2 && udp.srcport==319 && "
           "ptp.v2.messagetype==1");
  UdpReply(out, kPtp6GeneralMcastHex, {}, "ptp6_general_mcast",
           "ipv6.src==fe80::1 && ipv6.dst==fe80::2 && udp.srcport==320");
  L2L3Reply(out, kArpRequestHex, 60, "arp",
            "arp.opcode==2 && arp.src.hw_mac==02:00:00:00:00:01 && "
            "arp.src.proto_ipv4==10.99.0.1 && arp.dst.proto_ipv4==10.99.0.2 "
            "&& eth.dst==02:00:00:00:00:02 && frame.len==60");
  L2L3Reply(out, kIcmpEchoHex, 98, "icmp_echo",
            "icmp.type==0 && icmp.ident==0x4242 && icmp.seq==7 && "
            "ip.src==10.99.0.1 && data.len==56");
  L2L3Reply(out, kIcmp6EchoHex, 118, "icmp6_echo",
            "icmpv6.type==129 && icmpv6.echo.identifier==0x4242 && "
            "ipv6.src==2001:db8::1 && ipv6.dst==2001:db8::2");
  const std::string na =
      "icmpv6.type==136 && icmpv6.code==0 && ipv6.hlim==255 && "
      "ipv6.src==2001:db8::1 && icmpv6.nd.na.target_address==2001:db8::1 && "
      "icmpv6.nd.na.flag.o==1 && icmpv6.nd.na.flag.r==0 && "
      "icmpv6.opt.type==2 && icmpv6.opt.linkaddr==02:00:00:00:00:01";
  L2L3Reply(out, kNsHex, 86, "ns",
            na + " && icmpv6.nd.na.flag.s==1 && ipv6.dst==2001:db8::2 && "
                 "eth.dst==02:00:00:00:00:02");
  L2L3Reply(out, kNsDadHex, 128, "ns_dad",
            na + " && icmpv6.nd.na.flag.s==0 && ipv6.dst==ff02::1 && "
                 "eth.dst==33:33:00:00:00:01");
  Built(out);
  fclose(out.pcap);
  fclose(out.manifest);
  return 0;
}

}  // namespace
}  // namespace zg::core::testing

int main(int argc, char** argv) { return zg::core::testing::Main(argc, argv); }
