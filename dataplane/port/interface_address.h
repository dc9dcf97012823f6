// SPDX-License-Identifier: Apache-2.0
// An address zeitgeberd serves on (--address): IPv4 or IPv6 with its prefix
// length, e.g. "192.0.2.10/24" or "2001:db8::10/64". The data plane answers
// ARP/ND, ICMP echo, NTP and PTP for these addresses; in AF_XDP mode the XDP
// program steers only traffic addressed to them.
//
//   ZG_ASSIGN_OR_RETURN(InterfaceAddress a,
//   ParseInterfaceAddress("10.0.0.1/24")); a.family == InterfaceAddress::kIpv4;
//   a.bytes[0] == 10;  a.prefix_len == 24
#ifndef ZG_DATAPLANE_PORT_INTERFACE_ADDRESS_H_
#define ZG_DATAPLANE_PORT_INTERFACE_ADDRESS_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::dataplane {

struct InterfaceAddress {
  enum Family : uint8_t { kIpv4 = 4, kIpv6 = 6 };
  Family family = kIpv4;
  // Network byte order; IPv4 uses bytes[0..3], the rest stays zero.
  std::array<uint8_t, 16> bytes = {};
  uint8_t prefix_len = 0;

  friend bool operator==(const InterfaceAddress&,
                         const InterfaceAddress&) = default;
  // "10.0.0.1/24" / "2001:db8::1/64".
  std::string ToString() const;
};

// Parses "ADDR/PREFIX". The prefix is required (an operator who writes
// "10.0.0.1" probably meant a /24 or /32 and should say which). Rejects
// unspecified, multicast, loopback and broadcast addresses: no client can
// reach a server there.
absl::StatusOr<InterfaceAddress> ParseInterfaceAddress(absl::string_view text);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_INTERFACE_ADDRESS_H_
