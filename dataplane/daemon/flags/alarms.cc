// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's alarm and SNMP flags (flags/alarms.h).
#include "dataplane/daemon/flags/alarms.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

ABSL_FLAG(std::string, alarm_hysteresis, "",
          "Per-alarm hysteresis: NAME=RAISE/CLEAR,... (the condition must "
          "hold RAISE before the alarm is raised and be gone CLEAR before it "
          "clears), e.g. gnss_signal_low=10s/30s. Alarms not named keep the "
          "defaults listed in doc/alarms.md.");
ABSL_FLAG(std::string, snmp_agentx, "",
          "Serve ZEITGEBER-MIB (doc/ZEITGEBER-MIB.txt) and the RFC 5907 "
          "NTPv4-MIB objects as an AgentX subagent of the snmpd whose "
          "AgentX socket this is (its agentXSocket: a path such as "
          "/var/agentx/master, or tcp:127.0.0.1:705), and send the alarm "
          "notifications through it. Empty (default): no SNMP.");
ABSL_FLAG(absl::Duration, snmp_heartbeat_interval, absl::Seconds(60),
          "With --snmp_agentx: send zgHeartbeat this often (0: never).");

namespace zg::dataplane {

absl::StatusOr<AlarmFlags> ReadAlarmFlags() {
  AlarmFlags f;
  ZG_ASSIGN_OR_RETURN(f.hysteresis, servo::ParseAlarmHysteresis(
                                        absl::GetFlag(FLAGS_alarm_hysteresis)));
  f.snmp_agentx = absl::GetFlag(FLAGS_snmp_agentx);
  f.snmp_heartbeat_interval = absl::GetFlag(FLAGS_snmp_heartbeat_interval);
  if (f.snmp_heartbeat_interval < absl::ZeroDuration() ||
      f.snmp_heartbeat_interval > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--snmp_heartbeat_interval=",
                     absl::FormatDuration(f.snmp_heartbeat_interval),
                     ": must be 0 (no heartbeat) .. 24h"));
  }
  if (f.snmp_heartbeat_interval > absl::ZeroDuration() &&
      f.snmp_heartbeat_interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError(
        "--snmp_heartbeat_interval: at least 1s (or 0 for none)");
  }
  return f;
}

}  // namespace zg::dataplane
