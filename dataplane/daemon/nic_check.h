// SPDX-License-Identifier: Apache-2.0
// zeitgeberd --nic_check: what the port offers for timestamps and which
// stamp plan zeitgeberd picks (dataplane/clock/stamp_plan.h), printed to
// stdout as "nic_check KEY: VALUE" lines, then zeitgeberd exits without
// starting workers. scripts/nic-check.sh runs it for an operator:
//
//   zeitgeberd -l 0-1 -a 0000:3b:00.0 -- --port=0 --timesync --nic_check
//
// It also measures what the plan's costs depend on:
//  - read_clock: the TSC bracket of rte_eth_read_clock (the NIC<->TSC
//    correlation's resolution, and what a per-batch NIC read of T3 would
//    cost);
//  - with timesync: the latency from tx_burst returning to
//    rte_eth_timesync_read_tx_timestamp giving the stamp, over a few PTP
//    Sync frames (L2, domain 127, sequenceId 0..n-1) sent one at a time as
//    the NIC latches one stamp per port; how many timed out.
// Control thread, before the workers; no frames are sent without timesync.
#ifndef ZG_DATAPLANE_DAEMON_NIC_CHECK_H_
#define ZG_DATAPLANE_DAEMON_NIC_CHECK_H_

#include "dataplane/daemon/stamp_setup.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"

namespace zg::dataplane {

// Prints the report and returns zeitgeberd's exit code (0; 3 when a
// measurement could not be set up). `pools` gives the TX frames.
int RunNicCheck(const Port& port, const PortStamps& stamps, MbufPools* pools);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NIC_CHECK_H_
