// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's alarm and SNMP flags, the "Alarms and SNMP" group of
// `zeitgeberd -- --help` (doc/alarms.md, doc/snmp.md):
//
//   --alarm_hysteresis=NAME=RAISE/CLEAR,...  per-alarm hysteresis instead
//                                  of the catalogue's (servo/alarms/
//                                  alarm_catalog.h), e.g. gnss_signal_low=
//                                  10s/30s
//   --snmp_agentx=SOCKET           serve ZEITGEBER-MIB and NTPv4-MIB as an
//                                  AgentX subagent of the snmpd listening
//                                  there ("" (default): no SNMP)
//   --snmp_heartbeat_interval=60s  zgHeartbeat notifications (0: none)
//
//   ZG_ASSIGN_OR_RETURN(AlarmFlags a, ReadAlarmFlags());
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_ALARMS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_ALARMS_H_

#include <map>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "servo/alarms/alarm_set.h"

ABSL_DECLARE_FLAG(std::string, alarm_hysteresis);
ABSL_DECLARE_FLAG(std::string, snmp_agentx);
ABSL_DECLARE_FLAG(absl::Duration, snmp_heartbeat_interval);

namespace zg::dataplane {

struct AlarmFlags {
  std::map<servo::AlarmId, servo::AlarmHysteresis> hysteresis;
  std::string snmp_agentx;  // "": no SNMP
  absl::Duration snmp_heartbeat_interval = absl::Seconds(60);
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<AlarmFlags> ReadAlarmFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_ALARMS_H_
