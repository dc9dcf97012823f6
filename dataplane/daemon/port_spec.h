// SPDX-License-Identifier: Apache-2.0
// One --port value: the DPDK port to serve on and, optionally, the
// addresses and VLAN it serves, so that several ports in one zeitgeberd
// each carry their own. Words separated by spaces, one port per line in a
// flagfile:
//
//   --port=net_af_xdp0 address=192.0.2.10/24 address=2001:db8::10/64
//   --port=net_af_xdp1 address=198.51.100.10/24,198.51.100.11/24 vlan=30
//   --port=0000:3b:00.0
//
// (on a command line, quote it: --port='net_af_xdp1 address=...'). A port
// without address= serves the --address list, one without vlan= --vlan.
// The first word is the port: a DPDK port id or name (net_af_xdp0,
// 0000:3b:00.0, the EAL's -a/--vdev give the device). At most
// kMaxPortAddresses addresses a port.
//
//   ZG_ASSIGN_OR_RETURN(PortSpec p, ParsePortSpec("net_af_xdp1 vlan=30"));
//   p.name == "net_af_xdp1"; *p.vlan_id == 30; p.addresses.empty()
#ifndef ZG_DATAPLANE_DAEMON_PORT_SPEC_H_
#define ZG_DATAPLANE_DAEMON_PORT_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dataplane/port/interface_address.h"

namespace zg::dataplane {

inline constexpr size_t kMaxPortAddresses = 64;
inline constexpr size_t kMaxPortSpecBytes = 4096;

struct PortSpec {
  std::string name;                         // the DPDK port id or name
  std::vector<InterfaceAddress> addresses;  // address= (empty: none given)
  std::optional<uint16_t> vlan_id;          // vlan= (nullopt: none given)
};

absl::StatusOr<PortSpec> ParsePortSpec(absl::string_view text);

// A port as zeitgeberd serves it: its own addresses and VLAN, or the
// defaults (--address, --vlan).
struct ServedPort {
  std::string name;
  std::vector<InterfaceAddress> addresses;
  uint16_t vlan_id = 0;
};

// Every --port value, parsed; those without address=/vlan= get
// `default_addresses` / `default_vlan`. Rejects a port named twice and
// more than kMaxPorts ports.
inline constexpr size_t kMaxPorts = 8;
absl::StatusOr<std::vector<ServedPort>> ResolvePorts(
    const std::vector<std::string>& values,
    const std::vector<InterfaceAddress>& default_addresses,
    uint16_t default_vlan);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_PORT_SPEC_H_
