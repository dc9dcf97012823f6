// SPDX-License-Identifier: Apache-2.0
// Configures zeitgeber's XDP steering program (dataplane/bpf/zg_xdp.c) on an
// interface after DPDK's net_af_xdp PMD has loaded it (xdp_prog= devarg):
// finds the program attached to the interface, and fills its address and
// VLAN maps so that only NTP/PTP to zeitgeberd's addresses is redirected to
// the AF_XDP sockets; ARP, ICMP, SSH and everything else stay with the kernel.
// Control thread, at start-up. Needs CAP_BPF (the PMD loaded the program in
// this process, so its descriptors are found here; no CAP_SYS_ADMIN).
//
//   ZG_RETURN_IF_ERROR(ConfigureXdpSteering("eth1", config.addresses, 0));
//   ZG_ASSIGN_OR_RETURN(XdpSteeringCounters c,
//   ReadXdpSteeringCounters("eth1"));
#ifndef ZG_DATAPLANE_PORT_XDP_STEERING_H_
#define ZG_DATAPLANE_PORT_XDP_STEERING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dataplane/port/interface_address.h"

namespace zg::dataplane {

// `ptp_groups`: also steer PTP multicast (UDP 319/320 to 224.0.1.129,
// 224.0.0.107, ff0X::181, ff02::6b) and PTP over Ethernet (0x88F7).
// `rx_stamps`: append the kernel's receive time to every steered frame (an
// XdpStampClock must then take it off, dataplane/clock/nic_clock.h).
absl::Status ConfigureXdpSteering(const std::string& ifname,
                                  absl::Span<const InterfaceAddress> addresses,
                                  uint16_t vlan_id, bool ptp_groups = false,
                                  bool rx_stamps = false);

struct XdpSteeringCounters {
  uint64_t steered = 0;  // frames redirected towards zeitgeberd
  uint64_t passed = 0;   // frames left to the kernel
};
absl::StatusOr<XdpSteeringCounters> ReadXdpSteeringCounters(
    const std::string& ifname);

// A new descriptor of BPF program `prog_id` (the caller closes it), or -1
// with errno. A program this process loaded (the PMD keeps the one it
// attached open, and its maps) is dup'ed, which needs no privilege;
// another process's is opened by id, which needs CAP_SYS_ADMIN.
int OpenXdpProgramById(uint32_t prog_id);

// Map fds of the XDP program attached to `ifname`, by map name; the caller
// closes them (dataplane/port/xdp_hwts.h reuses them).
// Opened as OpenXdpProgramById opens the program.
absl::StatusOr<std::map<std::string, int>> AttachedXdpProgramMaps(
    const std::string& ifname);

// The value of `key` in PMD devargs "iface=veth0,xdp_prog=/x.o", if present.
std::optional<std::string> DevargValue(const std::string& devargs,
                                       const std::string& key);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_XDP_STEERING_H_
