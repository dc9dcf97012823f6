// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's own command-line flags (abseil flags, after the EAL's options
// and "--"), validated into a DaemonConfig. --flagfile=/etc/zeitgeber/
// zeitgeberd.flags works (one --flag=value per line, '#' comments).
//
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//       --address=2001:db8::10/64 --metrics_address=127.0.0.1:9123
//
// The flags are defined in dataplane/daemon/flags/, one file per group of
// `zeitgeberd -- --help` (DaemonHelp() below lists them in order); each file
// defines its group's flags and reads them into its part of DaemonConfig.
// A new flag goes into the file of its group (doc/contributing.md).
//
//   SplitArgs split = SplitArgs::At(argc, argv);
//   ZG_ASSIGN_OR_RETURN(DaemonConfig config, ParseDaemonFlags(split.app));
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/clock/stamp_plan.h"
#include "dataplane/daemon/command_line.h"
#include "dataplane/daemon/flag_help.h"
#include "dataplane/daemon/flags/alarms.h"
#include "dataplane/daemon/flags/control_socket.h"
#include "dataplane/daemon/flags/daemon.h"
#include "dataplane/daemon/flags/fleet.h"
#include "dataplane/daemon/flags/ntp.h"
#include "dataplane/daemon/flags/nts.h"
#include "dataplane/daemon/flags/status_page.h"
#include "dataplane/daemon/port_spec.h"
#include "dataplane/nts/nts_ke_config.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/trust/access_config.h"
#include "servo/control/control_plane.h"

namespace zg::dataplane {

struct DaemonConfig {
  // Every address served, on any port (--address and each --port's
  // address=); ports[i].addresses says which port serves which.
  std::vector<InterfaceAddress> addresses;
  uint16_t vlan_id = 0;    // --vlan (0: untagged): ports without vlan=
  std::string port = "0";  // the first --port's name
  // Every --port, in order, with its addresses and VLAN resolved.
  std::vector<ServedPort> ports;
  std::string metrics_address;      // --metrics_address ("": off)
  uint16_t rx_desc = 1024;          // --rx_desc
  uint16_t tx_desc = 1024;          // --tx_desc
  uint16_t mtu = 0;                 // --mtu (0: keep)
  bool hw_timestamps = true;        // --hw_timestamps
  bool timesync = false;            // --timesync
  bool tx_checksum_offload = true;  // --tx_checksum_offload
  bool fake_nic_clock = false;      // --fake_nic_clock
  bool xdp_steering = true;         // --xdp_steering
  bool xdp_rx_timestamps = true;    // --xdp_rx_timestamps
  absl::Duration idle_sleep;        // --idle_sleep (0: busy-poll)
  absl::Duration publish_interval;  // --publish_interval
  absl::Duration stats_interval;    // --stats_interval
  absl::Duration run_for;           // --run_for (0: until a signal)
  uint32_t mbufs_per_socket = 0;    // --mbufs_per_socket (0: auto)
  // Sources, servo, holdover, leap seconds (flags/sources.h); the audit log
  // (flags/daemon.h).
  servo::ControlPlaneConfig control;
  std::string ntp_keys;  // --ntp_keys (flags/trust.h; "": no keys)
  // --ntp_allow/--ntp_deny/--ptp_allow/--ptp_deny/--ntp_deny_action
  // (flags/trust.h).
  AccessConfig access;
  // --nts_master_key, --nts_key_period, --nts_key_window (flags/nts.h).
  NtsConfig nts;
  // --nts_ke_address, --nts_cert, --nts_key, ... (flags/nts.h).
  NtsKeConfig nts_ke;
  // Stamps: .timesync is --timesync; the other flags of flags/timestamps.h
  // fill the rest (stamp_setup.h).
  StampFlags stamps;
  bool nic_check = false;  // --nic_check (flags/timestamps.h, nic_check.h)
  // --ntp_interleave, --ntp_interleave_slots (flags/ntp.h).
  NtpInterleaveConfig ntp_interleave;
  // --log_level, --worker_stall_limit, --test_stall_file (flags/daemon.h).
  ServiceConfig service;
  // --snmp_agentx, --snmp_heartbeat_interval (flags/alarms.h); the
  // --alarm_hysteresis goes to control.alarms.
  AlarmFlags alarms;
  // --drain_file, --drain_grace, --bird_socket, --anycast_* (flags/fleet.h).
  FleetConfig fleet;
  // --status_* (flags/status_page.h): the status page, off when its
  // address is empty.
  StatusPageFlags status_page;
  // --control_socket, --control_group (flags/control_socket.h).
  ControlSocketConfig control_socket;
};

// `zeitgeberd -- --help`: the groups in order, each the flags of one file of
// dataplane/daemon/flags/, then abseil's flagfile and help flags.
const ProgramHelp& DaemonHelp();

// Parses and validates zeitgeberd's flags. absl's own parse errors (unknown
// flag, malformed value) print a message and exit(1); --help and --version
// print and exit(0) (command_line.h).
absl::StatusOr<DaemonConfig> ParseDaemonFlags(std::vector<char*> app_argv);

// The DaemonConfig of the flags' current values, with the repeated flags
// collected from `args` (the flags after "--", no argv[0]). After
// ParseDaemonFlags; the SIGHUP reload calls it again once the reloadable
// flags hold their re-read values (dataplane/daemon/config_reload.h).
absl::StatusOr<DaemonConfig> DaemonConfigFromFlags(
    const std::vector<std::string>& args);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_H_
