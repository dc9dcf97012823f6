// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: what a timestamping NIC's PTP filter matches, for the emulated
// NIC (emulated_nic.h): a PTP event message (messageType 0..3: Sync,
// Delay_Req, Pdelay_Req, Pdelay_Resp) over Ethernet (EtherType 0x88F7) or
// UDP destination port 319 over IPv4 (unfragmented) or IPv6 (UDP as the
// first next header), behind up to two VLAN tags. Addresses are not looked
// at (as Intel's ETQF/UDP filters); every length is bounds-checked. No
// DPDK: fuzzed by tests/fuzz/emulated_nic_fuzzer.cc.
//
//   if (IsPtpEventFrame(bytes)) { flag RTE_MBUF_F_RX_IEEE1588_PTP, latch }
#ifndef ZG_TESTS_DATAPLANE_TESTING_PTP_EVENT_MATCH_H_
#define ZG_TESTS_DATAPLANE_TESTING_PTP_EVENT_MATCH_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace zg::dataplane::testing {

namespace ptp_match_internal {
inline uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}
// A PTP header's messageType (low nibble of byte 0) is an event message.
inline bool EventMessageAt(std::span<const uint8_t> f, size_t off) {
  return off < f.size() && (f[off] & 0x0f) <= 3;
}
// UDP at `off` to port 319 with an event message behind it.
inline bool UdpEventAt(std::span<const uint8_t> f, size_t off) {
  if (f.size() < off + 8) return false;
  return Be16(&f[off + 2]) == 319 && EventMessageAt(f, off + 8);
}
}  // namespace ptp_match_internal

inline bool IsPtpEventFrame(std::span<const uint8_t> f) {
  using ptp_match_internal::Be16;
  size_t off = 12;  // EtherType
  for (int tags = 0;; ++tags) {
    if (f.size() < off + 2) return false;
    const uint16_t type = Be16(&f[off]);
    if ((type == 0x8100 || type == 0x88a8) && tags < 2) {
      off += 4;
      continue;
    }
    off += 2;
    if (type == 0x88f7) return ptp_match_internal::EventMessageAt(f, off);
    if (type == 0x0800) {
      if (f.size() < off + 20 || (f[off] >> 4) != 4) return false;
      const size_t ihl = static_cast<size_t>(f[off] & 0x0f) * 4;
      const bool fragment = (Be16(&f[off + 6]) & 0x3fff) != 0;
      if (ihl < 20 || f[off + 9] != 17 || fragment) return false;
      return ptp_match_internal::UdpEventAt(f, off + ihl);
    }
    if (type == 0x86dd) {
      if (f.size() < off + 40 || (f[off] >> 4) != 6) return false;
      return f[off + 6] == 17 && ptp_match_internal::UdpEventAt(f, off + 40);
    }
    return false;
  }
}

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_PTP_EVENT_MATCH_H_
