// SPDX-License-Identifier: Apache-2.0
// Before zg-loadgen's lanes start: wait for the port's link to come up (a
// memif peer connecting, a veth coming up) and learn the target's MAC
// address with ARP. Both are bounded by a timeout and end in an error that
// says what to check, never in a hang. Main lcore only, while no lane runs:
// it polls every RX queue of the port itself and answers ARP requests for
// the generator's client addresses meanwhile (the target may ask first).
//
//   ZG_RETURN_IF_ERROR(WaitForLink(port->id(), port->name(),
//   absl::Seconds(3))); ZG_ASSIGN_OR_RETURN(core::MacAddr mac,
//   ResolveTargetMac(
//       port->id(), port->num_queues(), pool, net, absl::Seconds(3)));
#ifndef ZG_BENCH_LOADGEN_TARGET_RESOLVER_H_
#define ZG_BENCH_LOADGEN_TARGET_RESOLVER_H_

#include <rte_mempool.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/loadgen/dpdk_lane.h"
#include "core/net/net_headers.h"

namespace zg::bench {

// Polls the link of `port_id` until it is up; DeadlineExceeded after
// `timeout`.
absl::Status WaitForLink(uint16_t port_id, const std::string& port_name,
                         absl::Duration timeout);

// Sends an ARP request for net.target (IPv4) from net.first_source every
// 250 ms on queue 0 and returns the MAC of the first reply. IPv6 targets
// are refused (pass --target_mac). `net.dst_mac` is not used.
absl::StatusOr<core::MacAddr> ResolveTargetMac(uint16_t port_id,
                                               uint16_t queues,
                                               rte_mempool* pool,
                                               const LaneNetwork& net,
                                               absl::Duration timeout);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_TARGET_RESOLVER_H_
