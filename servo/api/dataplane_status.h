// SPDX-License-Identifier: Apache-2.0
// DataplaneStatus: what the data plane looks like to an operator — each
// worker's and each port's counters and rates, the stamping plan, the
// server's request/reply/drop counts by kind and reason, the protocol
// modules' counters, and the PTP port — as plain values with no DPDK type,
// so the control socket (zgctl), the SNMP agent (dataplane/snmp/) and the
// status page use it without linking the data plane. One shape for all of
// them; its JSON is servo/api/status_json.h's.
//
// zeitgeberd (dataplane/daemon/dataplane_status_source.h) samples it on the
// control thread every --stats_interval and publishes it through a
// SnapshotCell (servo/control/snapshot_cell.h); DataplaneView
// (servo/api/status_board.h) hands it to operator threads with the
// workers' counters and progress stamps read live.
//
//   std::shared_ptr<const DataplaneStatus> d = board.dataplane->Read();
//   for (const WorkerStatus& w : d->workers) ... w.rx_packets
#ifndef ZG_SERVO_API_DATAPLANE_STATUS_H_
#define ZG_SERVO_API_DATAPLANE_STATUS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/time/time_types.h"

namespace zg::servo {

struct NamedCount {
  std::string name;
  uint64_t value = 0;
};

struct WorkerStatus {
  unsigned index = 0;
  unsigned lcore = 0;
  std::string port;
  uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0,
           tx_dropped = 0, dropped = 0, bursts = 0, empty_polls = 0,
           hw_stamped = 0, sw_stamped = 0, model_refresh_failures = 0;
  // Over the control thread's last sampling interval.
  double rx_pps = 0, tx_pps = 0, drop_pps = 0;
  // The worker's latest loop pass (its heartbeat, WorkerStats::
  // heartbeat_tsc): how long ago, and the UTC instant. -1: never.
  double last_progress_age_s = -1;
  core::UtcNs last_progress_utc;
};

struct PortStatus {
  std::string name;
  std::string driver;
  bool link_up = false;
  uint32_t speed_mbps = 0;
  unsigned queues = 0;
  // Where each stamp comes from (StampPlan): "ntp_rx" -> "dynfield", ...
  std::vector<std::pair<std::string, std::string>> stamping;
  std::string nic_clock;             // the RX-stamp clock's name ("" when none)
  bool hardware_timestamps = false;  // the NIC stamps RX in hardware
  uint64_t ipackets = 0, opackets = 0, imissed = 0, ierrors = 0, rx_nombuf = 0,
           oerrors = 0;
  double rx_pps = 0, tx_pps = 0;  // over the last sampling interval
};

struct FrameKindCount {
  std::string kind;  // "ntp", "ptp_event", "arp", ...
  uint64_t received = 0;
  uint64_t replied = 0;
};

// One module's counters as exported (metric name without the
// zeitgeber_<group>_ prefix and _total suffix; per label value where the
// metric has labels other than worker/lcore/port).
struct CounterGroup {
  std::string name;                  // "ntp", "nts_ke", "ptp"
  std::vector<NamedCount> counters;  // "kod_sent{code=RATE}" -> n
};

struct ServerStats {
  uint64_t rx_packets = 0, tx_packets = 0, tx_dropped = 0;
  std::vector<FrameKindCount> frames;  // named kinds only
  std::vector<NamedCount> drops;       // every named reason
  std::vector<CounterGroup> groups;

  // The frames of `kind` ("ntp"); zeros when it has none.
  FrameKindCount Frames(const std::string& kind) const {
    for (const FrameKindCount& f : frames) {
      if (f.kind == kind) return f;
    }
    return {kind, 0, 0};
  }
};

struct PtpGrantCounts {
  std::string type;  // "ANNOUNCE", "SYNC", "DELAY_RESP", ...
  uint64_t granted = 0, renewals = 0, cancels = 0, expiries = 0;
};

// One PTP port (one per served --port). The profile, domain and what the
// port announces are the clock's, the same on every port.
struct PtpStatus {
  bool enabled = false;
  std::string port;       // "ptp0": its alarms' instance, its SNMP row
  std::string interface;  // the --port it runs on (metrics' port label)
  std::string profile;
  int domain = 0;
  std::string port_identity;  // "001122.fffe.334455-1"
  std::string port_state;     // "MASTER", "PASSIVE", ...
  int port_state_value = 0;   // the same as IEEE 1588 portState (SNMP)
  std::string decision;       // the BMCA's state decision code
  uint64_t state_changes = 0;
  uint64_t foreign_masters = 0;
  // What the port announces (its grandmaster dataset).
  std::string gm_identity;
  int priority1 = 0, priority2 = 0;
  int clock_class = 0, clock_accuracy = 0, offset_scaled_log_variance = 0;
  std::string time_source;
  int current_utc_offset = 0;
  bool utc_offset_valid = false, ptp_timescale = false, time_traceable = false,
       frequency_traceable = false, leap61 = false, leap59 = false;
  std::vector<NamedCount> announces_received;  // by BMCA verdict
  std::vector<NamedCount> messages_sent;       // by message type
  std::vector<PtpGrantCounts> grants;          // unicast, by message type
  std::vector<NamedCount> denials;             // unicast, by reason
  uint64_t subscribers = 0;
  double committed_rate = 0;  // messages/s the live grants commit
  double tx_budget = 0;       // --ptp_tx_budget (0: none)
};

// zgctl ptp subscribers: the busiest unicast subscribers (by the message
// rate their grants commit), gathered from every worker's table on request
// (core/ptp/ptp_subscriber_export.h).
struct PtpSubscriberGrant {
  std::string type;  // "SYNC", "ANNOUNCE", ...
  int log_interval = 0;
  uint32_t expires_in_s = 0;
};
struct PtpSubscriberStatus {
  std::string port;       // the PTP port it subscribed on ("ptp0")
  std::string address;    // "10.0.0.1", "fd00::1", a MAC for Layer 2
  std::string transport;  // "udp4", "udp6", "l2"
  std::string port_identity;
  unsigned worker = 0;
  double rate = 0;  // messages per second
  std::vector<PtpSubscriberGrant> grants;
};
struct PtpSubscribers {
  uint64_t total = 0;                    // subscribers in every table
  std::vector<PtpSubscriberStatus> top;  // busiest first
};

struct DataplaneStatus {
  core::UtcNs sampled_utc;  // when the control thread sampled it
  double interval_s = 0;    // the rates' interval
  std::vector<WorkerStatus> workers;
  std::vector<PortStatus> ports;
  ServerStats server;
  std::vector<PtpStatus> ptp;  // the PTP ports; empty: --ptp=false
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_DATAPLANE_STATUS_H_
