// SPDX-License-Identifier: Apache-2.0
// StatusBoard: every snapshot an operator surface reads, in one place —
// the control plane's status and the daemon's service status (published by
// the control thread each tick), and the data plane's (through
// DataplaneView). The control socket (servo/api/control_server.h), and the
// status page and SNMP agent after it, take a `const StatusBoard&` and the
// JSON of servo/api/status_json.h; none of them can make a worker or the
// servo wait (servo/api/snapshot_slot.h says why).
//
//   StatusBoard board;                       // owned by the daemon
//   board.control.Publish(...);  board.service.Publish(...);  // control thread
//   board.dataplane = &dataplane_view;       // before operator threads start
//   // any operator thread:
//   std::shared_ptr<const ControlPlaneStatus> c = board.control.Read();
#ifndef ZG_SERVO_API_STATUS_BOARD_H_
#define ZG_SERVO_API_STATUS_BOARD_H_

#include <memory>

#include "servo/api/dataplane_status.h"
#include "servo/api/service_status.h"
#include "servo/api/snapshot_slot.h"
#include "servo/control/control_status.h"

namespace zg::servo {

// The data plane's status for operator threads. zeitgeberd implements it
// (dataplane/daemon/dataplane_status_source.h); tests give a fixed one.
// Thread-safe; never waits for a worker or the control thread.
class DataplaneView {
 public:
  virtual ~DataplaneView() = default;
  // The latest sample (null before the first), with what can be read live
  // (the workers' single-writer counters and progress stamps) read now.
  virtual std::shared_ptr<const DataplaneStatus> Read() const = 0;
};

struct StatusBoard {
  // Written by: the control thread (each tick). Read by: operator threads.
  SnapshotSlot<ControlPlaneStatus> control;
  SnapshotSlot<ServiceStatus> service;
  // Set before any operator thread starts; null: no data plane (tests).
  const DataplaneView* dataplane = nullptr;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_STATUS_BOARD_H_
