// zeitgeberd's own command-line flags (abseil flags, after the EAL's options
// and "--"), validated into a DaemonConfig. --flagfile=/etc/zeitgeber/
// zeitgeberd.flags works (one --flag=value per line, '#' comments).
//
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//       --address=2001:db8::10/64 --metrics_address=127.0.0.1:9123
//
// --address may be repeated (and each value may be a comma-separated list);
// every occurrence counts, including those in flagfiles.
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
#include "dataplane/daemon/alarm_flags.h"
#include "dataplane/daemon/ntp_interleave_flags.h"
#include "dataplane/daemon/nts_flags.h"
#include "dataplane/daemon/service_flags.h"
#include "dataplane/nts/nts_ke_config.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/trust/access_config.h"
#include "servo/control/control_plane.h"

namespace zg::dataplane {

struct DaemonConfig {
  std::vector<InterfaceAddress> addresses;  // --address
  uint16_t vlan_id = 0;                     // --vlan (0: untagged)
  std::string port = "0";                   // --port
  std::string metrics_address;              // --metrics_address ("": off)
  uint16_t rx_desc = 1024;                  // --rx_desc
  uint16_t tx_desc = 1024;                  // --tx_desc
  uint16_t mtu = 0;                         // --mtu (0: keep)
  bool hw_timestamps = true;                // --hw_timestamps
  bool timesync = false;                    // --timesync
  bool tx_checksum_offload = true;          // --tx_checksum_offload
  bool fake_nic_clock = false;              // --fake_nic_clock
  bool xdp_steering = true;                 // --xdp_steering
  bool xdp_rx_timestamps = true;            // --xdp_rx_timestamps
  absl::Duration idle_sleep;                // --idle_sleep (0: busy-poll)
  absl::Duration publish_interval;          // --publish_interval
  absl::Duration stats_interval;            // --stats_interval
  absl::Duration run_for;                   // --run_for (0: until a signal)
  uint32_t mbufs_per_socket = 0;            // --mbufs_per_socket (0: auto)
  // Sources, servo, holdover, leap seconds, audit log (control_flags.h).
  servo::ControlPlaneConfig control;
  std::string ntp_keys;  // --ntp_keys (ntp_key_flags.h; "": no keys)
  // --ntp_allow/--ntp_deny/--ptp_allow/--ptp_deny/--ntp_deny_action
  // (access_flags.h).
  AccessConfig access;
  // --nts_master_key, --nts_key_period, --nts_key_window (nts_flags.h).
  NtsConfig nts;
  // --nts_ke_address, --nts_cert, --nts_key, ... (nts_ke_flags.h).
  NtsKeConfig nts_ke;
  // Stamps: .timesync is --timesync; --tx_schedule and
  // --tx_schedule_lead (tx_schedule_flags.h) fill the rest (stamp_setup.h).
  StampFlags stamps;
  bool nic_check = false;  // --nic_check (nic_check.h)
  // --ntp_interleave, --ntp_interleave_slots (ntp_interleave_flags.h).
  NtpInterleaveConfig ntp_interleave;
  // --log_level, --worker_stall_limit, --test_stall_file (service_flags.h).
  ServiceConfig service;
  // --snmp_agentx, --snmp_heartbeat_interval (alarm_flags.h); the
  // --alarm_hysteresis goes to control.alarms.
  AlarmFlags alarms;
};

// argv split at the first "--": EAL options before it, zeitgeberd flags
// after. Both vectors start with the program name. Pointers into argv.
struct SplitArgs {
  std::vector<char*> eal;
  std::vector<char*> app;
  static SplitArgs At(int argc, char** argv);
};

// Parses and validates zeitgeberd's flags. absl's own parse errors (unknown
// flag, malformed value) print a message and exit(1), as do --help/--version.
absl::StatusOr<DaemonConfig> ParseDaemonFlags(std::vector<char*> app_argv);

// The DaemonConfig of the flags' current values, with the repeated flags
// collected from `args` (the flags after "--", no argv[0]). After
// ParseDaemonFlags; the SIGHUP reload calls it again once the reloadable
// flags hold their re-read values (dataplane/daemon/config_reload.h).
absl::StatusOr<DaemonConfig> DaemonConfigFromFlags(
    const std::vector<std::string>& args);

// Every value of --NAME in `args` and in the flagfiles they name (recursively),
// in order. For repeated flags, which abseil would otherwise reduce to the
// last occurrence.
absl::StatusOr<std::vector<std::string>> CollectRepeatedFlag(
    const std::vector<std::string>& args, const std::string& name);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_H_
