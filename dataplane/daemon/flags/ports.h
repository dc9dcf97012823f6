// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's port and address flags, the "Ports and addresses" group of
// `zeitgeberd -- --help`: the DPDK port served, the addresses and VLAN it
// answers for, its queues, MTU, mbuf pool and offloads.
//
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --port=0 --address=192.0.2.10/24
//       --address=2001:db8::10/64 --vlan=100
//
// --address may be repeated (and each value may be a comma-separated list);
// every occurrence counts, including those in flagfiles.
//
//   ZG_RETURN_IF_ERROR(ReadPortFlags(args, c));   // in DaemonConfigFromFlags
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_PORTS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_PORTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace zg::dataplane {

struct DaemonConfig;

// Fills c.addresses, vlan_id, port, rx_desc, tx_desc, mtu, mbufs_per_socket,
// tx_checksum_offload and xdp_steering from the flags (after
// absl::ParseCommandLine; `args` are the raw arguments, for the repeated
// --address). Errors name the flag and say what is valid.
absl::Status ReadPortFlags(const std::vector<std::string>& args,
                           DaemonConfig& c);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_PORTS_H_
