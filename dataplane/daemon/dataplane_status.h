// SPDX-License-Identifier: Apache-2.0
// DataplaneStatus: what the data plane shows operator surfaces (the SNMP
// subagent; later the control socket and the status page): its ports, its
// PTP ports and its NTP packet totals. The control thread fills one at each
// stats interval and publishes it through a servo::SnapshotCell; readers
// on other threads never touch a port or a worker.
//
//   DataplaneStatus d;
//   d.ports.push_back({.name = port->name(), .link_up = port->link().up});
//   cell.Publish(std::make_shared<const DataplaneStatus>(std::move(d)));
#ifndef ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_H_
#define ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace zg::dataplane {

struct PortStatus {
  std::string name;
  bool link_up = false;
  uint32_t speed_mbps = 0;
  bool hardware_timestamps = false;
  uint64_t rx_packets = 0;  // summed over the workers that poll it
  uint64_t tx_packets = 0;
};

struct PtpPortStatus {
  std::string name;
  int state = 0;  // IEEE 1588 portState (core::PtpPortState)
  int clock_class = 0;
  uint64_t unicast_subscribers = 0;
};

struct DataplaneStatus {
  std::vector<PortStatus> ports;
  std::vector<PtpPortStatus> ptp_ports;
  uint64_t ntp_requests = 0;  // NTP frames handled
  uint64_t ntp_replies = 0;   // NTP replies queued
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_DATAPLANE_STATUS_H_
