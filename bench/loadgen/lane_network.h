// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's addressing, shared by every lane: our MAC and the target's,
// the target's address and port, and the clients' source addresses (a
// contiguous range from --source_ip, --source_addresses long), which the
// lanes classify replies against (core::LocalAddresses with an address
// range) and answer ARP/ND for.
//
// Pure: no DPDK, no I/O (the MAC comes from the port, the target's MAC from
// --target_mac or ARP later).
//
//   ZG_ASSIGN_OR_RETURN(LaneNetwork net, BuildLaneNetwork(options, port_mac));
//   net.dst_mac = resolved;
//   core::IpAddress a = AddressAt(net.first_source, client.address_offset);
#ifndef ZG_BENCH_LOADGEN_LANE_NETWORK_H_
#define ZG_BENCH_LOADGEN_LANE_NETWORK_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "bench/loadgen/config.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"

namespace zg::bench {

// Written by: the main lcore at setup. Read by: the lanes (never changed
// while they run).
struct LaneNetwork {
  core::MacAddr src_mac;  // our port's
  core::MacAddr dst_mac;  // the target's (ARP or --target_mac)
  std::optional<uint16_t> vlan_id;
  core::IpAddress target;
  core::IpAddress first_source;  // the address of client offset 0
  uint32_t source_addresses = 1;
  uint16_t ntp_port = 123;     // the target's NTP port
  core::LocalAddresses local;  // src_mac + the clients' address range
  int rx_tsc_offset = -1;      // mbuf dynfield: RX TSC of a handed-off frame
};

// From the options: the target, the first source address (--source_ip, or
// the target's address + 1 when empty), the range of --source_addresses
// addresses (which must not hold the target), `vlan_id` (0: untagged) and
// our MAC. dst_mac is left to the caller (--target_mac or ARP).
absl::StatusOr<LaneNetwork> BuildLaneNetwork(const LoadgenOptions& options,
                                             const core::MacAddr& port_mac,
                                             uint16_t vlan_id);

// Client address `offset` past `first` (IPv6: counted in the low 32 bits).
core::IpAddress AddressAt(const core::IpAddress& first, uint32_t offset);

// destination - first source for a classified frame (IPv6: the low 32
// bits; the rest must match); UINT64_MAX when below or of another family.
uint64_t AddressOffsetOf(const core::FrameInfo& info,
                         const core::IpAddress& first_source);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_LANE_NETWORK_H_
