// SPDX-License-Identifier: Apache-2.0
// ServiceStatus: the daemon as a service, beside the clock — its version and
// uptime, the drain state (SERVING / DRAINING / DRAINED), the log level, and
// how punctually the control thread keeps its tick. Built by zeitgeberd's
// control loop every tick and published through a SnapshotCell
// (servo/api/status_board.h); zgctl's `status` and `drain` print it.
//
// Drain: `zgctl drain` moves SERVING -> DRAINING; the daemon moves DRAINING ->
// DRAINED once every drain step it runs has finished (today there is none,
// so at its next tick); `zgctl undrain` returns to SERVING from either.
// What draining withdraws (the anycast route, the PTP announcements) belongs
// to the fleet features that register those steps.
//
//   ServiceStatus s;
//   s.drain = DrainState::kDraining;
//   DrainStateName(s.drain)   // "DRAINING"
#ifndef ZG_SERVO_API_SERVICE_STATUS_H_
#define ZG_SERVO_API_SERVICE_STATUS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/time/time_types.h"
#include "servo/control/tick_schedule.h"

namespace zg::servo {

enum class DrainState : uint8_t { kServing, kDraining, kDrained };
// "SERVING", "DRAINING", "DRAINED".
const char* DrainStateName(DrainState s);

struct ServiceStatus {
  std::string version;
  pid_t pid = 0;
  uid_t uid = 0;            // the daemon's own user (may change things)
  core::UtcNs started_utc;  // wall clock at start
  int64_t uptime_ns = 0;    // CLOCK_MONOTONIC since start
  DrainState drain = DrainState::kServing;
  core::UtcNs drain_changed_utc;  // when the drain state last changed
  uid_t drain_changed_by = 0;     // who changed it (0 at start)
  std::string log_level;          // "info", "warning", "error"
  TickStats control_tick;         // the control thread's schedule
  uint64_t control_requests = 0;  // changes run on the control thread
  std::string control_socket;     // its path ("" when off)
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_SERVICE_STATUS_H_
