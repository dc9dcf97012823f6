// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's flags for running as a service (doc/service.md):
//
//   --log_level=info           error | warning | info | debug (debug adds
//                              the time of each shutdown step)
//   --worker_stall_limit=1s    a worker whose loop has not passed for this
//                              long is stalled: logged, and the systemd
//                              watchdog is no longer fed until it resumes
//   --test_stall_file=PATH     TEST ONLY (dataplane/daemon/test_stall_hook.h)
//
//   ZG_ASSIGN_OR_RETURN(c.service, ReadServiceFlags());
#ifndef ZG_DATAPLANE_DAEMON_SERVICE_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_SERVICE_FLAGS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

struct ServiceConfig {
  LogLevel log_level = LogLevel::kInfo;  // --log_level
  absl::Duration worker_stall_limit;     // --worker_stall_limit
  std::string test_stall_file;           // --test_stall_file ("": off)
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<ServiceConfig> ReadServiceFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_SERVICE_FLAGS_H_
