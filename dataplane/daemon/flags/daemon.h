// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's process flags, the "Daemon" group of `zeitgeberd -- --help`:
// how long it runs, how its workers poll, how often the control thread
// publishes the clock model, its log and the systemd watchdog
// (doc/service.md), and the audit log of time-service state changes
// (servo/audit/audit_log.h).
//
//   --run_for=0                stop cleanly after this long (0: on a signal)
//   --idle_sleep=0             0: busy-poll; 1us..1ms: sleep when idle
//   --publish_interval=100ms   1ms..1s
//   --log_level=info           error | warning | info | debug (debug adds
//                              the time of each shutdown step)
//   --worker_stall_limit=1s    a worker whose loop has not passed for this
//                              long is stalled: logged, and the systemd
//                              watchdog is no longer fed until it resumes
//   --test_stall_file=PATH     TEST ONLY (dataplane/daemon/test_stall_hook.h)
//   --audit_log=PATH --audit_fsync=every_record|interval|none
//   --audit_fsync_interval --audit_max_bytes --audit_keep_files
//
//   ZG_RETURN_IF_ERROR(ReadDaemonFlags(c));   // in DaemonConfigFromFlags
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_DAEMON_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_DAEMON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

struct DaemonConfig;

// How zeitgeberd runs as a service.
struct ServiceConfig {
  LogLevel log_level = LogLevel::kInfo;  // --log_level
  absl::Duration worker_stall_limit;     // --worker_stall_limit
  std::string test_stall_file;           // --test_stall_file ("": off)
};

// Fills c.run_for, idle_sleep, publish_interval, c.service and
// c.control.audit (errors name the flag and say what is valid).
absl::Status ReadDaemonFlags(DaemonConfig& c);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_DAEMON_H_
