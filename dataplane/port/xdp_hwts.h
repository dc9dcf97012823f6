// SPDX-License-Identifier: Apache-2.0
// --xdp_rx_metadata: swaps zeitgeber's XDP program
// with driver RX hardware stamps (dataplane/bpf/zg_xdp_hwts.c) in for the
// zg_xdp.o that DPDK's net_af_xdp PMD attached (xdp_prog= devarg).
//
// The RX metadata kfunc bpf_xdp_metadata_rx_timestamp needs a device-bound
// program (BPF_F_XDP_DEV_BOUND_ONLY + the interface's ifindex; the kernel
// refuses it otherwise: "metadata kfuncs require device-bound program"),
// and DPDK 22.11's PMD loads xdp_prog= without either. So the PMD loads
// zg_xdp.o and creates its AF_XDP sockets in its xsks_map; then, at start-up
// on the control thread, SwapInXdpHwts loads zg_xdp_hwts.o device-bound,
// reusing every map of the attached program (xsks_map with the PMD's
// sockets, the address, config and stats maps), and replaces the program
// atomically (XDP_FLAGS_REPLACE, native mode: device-bound programs cannot
// run in generic mode). Any failure leaves zg_xdp.o in place and says why.
// Needs root (CAP_BPF + CAP_NET_ADMIN).
//
//   if (auto phc = InterfacePhc("eth1")) {
//     absl::Status s = SwapInXdpHwts("eth1", dir + "/zg_xdp_hwts.o");
//   }
#ifndef ZG_DATAPLANE_PORT_XDP_HWTS_H_
#define ZG_DATAPLANE_PORT_XDP_HWTS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"

namespace zg::dataplane {

// The PTP hardware clock of `ifname` (ETHTOOL_GET_TS_INFO's phc_index) as
// "/dev/ptpN"; nullopt when it has none (veth, most virtual NICs): its
// driver then has no RX hardware stamp for the kfunc to give.
std::optional<std::string> InterfacePhc(const std::string& ifname);

// Replaces the XDP program on `ifname` (zg_xdp.o, attached by the PMD) by
// `hwts_object` (zg_xdp_hwts.o), as above.
absl::Status SwapInXdpHwts(const std::string& ifname,
                           const std::string& hwts_object);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_XDP_HWTS_H_
