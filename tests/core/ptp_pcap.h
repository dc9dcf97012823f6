// Test helper: the PTP messages in a classic pcap file (Ethernet link type),
// in capture order. A PTP message is the UDP payload of an IPv4 datagram to
// or from port 319/320, or the payload of an Ethernet frame with Ethertype
// 0x88F7 (one 802.1Q tag allowed). Fixtures come from
// scripts/capture_ptp_fixtures.sh (real ptp4l and pmc traffic).
//
//   for (const auto& msg : ReadPtpPcap(ZG_TEST_DATA_DIR "/ptp/pmc.pcap")) ...
#ifndef ZG_TESTS_CORE_PTP_PCAP_H_
#define ZG_TESTS_CORE_PTP_PCAP_H_

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace zg::core::testing {

inline std::vector<std::vector<uint8_t>> ReadPtpPcap(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
  std::vector<std::vector<uint8_t>> out;
  if (f.size() < 24) return out;
  uint32_t magic;
  std::memcpy(&magic, f.data(), 4);
  // Written on this (little-endian) machine: microsecond or nanosecond magic.
  if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) return out;
  auto be16 = [](const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); };
  size_t off = 24;
  while (off + 16 <= f.size()) {
    uint32_t caplen;
    std::memcpy(&caplen, f.data() + off + 8, 4);
    off += 16;
    if (off + caplen > f.size()) break;
    const uint8_t* p = f.data() + off;
    size_t n = caplen;
    off += caplen;
    if (n < 14) continue;
    uint16_t ethertype = be16(p + 12);
    size_t l2 = 14;
    if (ethertype == 0x8100 && n >= 18) {
      ethertype = be16(p + 16);
      l2 = 18;
    }
    if (ethertype == 0x88F7) {
      out.emplace_back(p + l2, p + n);
      continue;
    }
    if (ethertype != 0x0800 || n < l2 + 20) continue;
    const uint8_t* ip = p + l2;
    const size_t ihl = (ip[0] & 0x0F) * 4u;
    if (ip[9] != 17 || n < l2 + ihl + 8) continue;
    const uint8_t* udp = ip + ihl;
    const uint16_t sport = be16(udp), dport = be16(udp + 2);
    const uint16_t ulen = be16(udp + 4);
    const bool ptp =
        sport == 319 || sport == 320 || dport == 319 || dport == 320;
    if (!ptp || ulen < 8 || l2 + ihl + ulen > n) continue;
    out.emplace_back(udp + 8, udp + ulen);
  }
  return out;
}

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_PTP_PCAP_H_
