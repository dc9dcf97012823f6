// SPDX-License-Identifier: Apache-2.0
// The read commands of the control socket (and any other operator surface
// that dispatches through a CommandTable): each one reads a snapshot from
// the StatusBoard and returns its JSON (servo/api/status_json.h).
//
//   tracking, sources, sourcestats, leap   ControlPlaneStatus
//   alarms                                 AlarmTable (servo/alarms/
//                                          alarm_json.h's JSON)
//   status                                 ServiceStatus
//   workers, ports, serverstats, ptp       DataplaneStatus (DataplaneView)
//   audit                                  the audit log file (audit_query.h)
//   help                                   the table's commands
//
//   CommandTable table(geteuid());
//   ZG_RETURN_IF_ERROR(AddStatusCommands(table, board, {.audit_log = path}));
//
// The changes (reload, drain, undrain, loglevel, source) and the commands
// that read the workers' own tables (clients, ptp_subscribers) are the
// daemon's (dataplane/daemon/daemon_service.h).
#ifndef ZG_SERVO_API_STATUS_COMMANDS_H_
#define ZG_SERVO_API_STATUS_COMMANDS_H_

#include <string>

#include "absl/status/status.h"
#include "servo/api/command_table.h"
#include "servo/api/status_board.h"

namespace zg::servo {

struct StatusCommandOptions {
  std::string audit_log;  // --audit_log ("" : audit answers unavailable)
  // The most records one audit reply carries.
  size_t max_audit_records = 10'000;
};

// `board` and `table` must outlive every Run().
absl::Status AddStatusCommands(CommandTable& table, const StatusBoard& board,
                               StatusCommandOptions options);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_STATUS_COMMANDS_H_
