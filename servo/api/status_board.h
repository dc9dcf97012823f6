// SPDX-License-Identifier: Apache-2.0
// StatusBoard: every snapshot an operator surface reads, in one place —
// the control plane's status and alarm table (ControlSnapshots: published by
// the control plane each Tick), the daemon's service status (published by
// zeitgeberd's control loop each pass) and the data plane's (DataplaneView,
// sampled each stats interval). All of them go through SnapshotCell
// (servo/control/snapshot_cell.h), so no reader can make a worker or the
// servo wait. The control socket (servo/api/control_server.h) takes a
// `const StatusBoard&` and the JSON of servo/api/status_json.h; the SNMP
// agent reads the same ControlSnapshots and DataplaneView.
//
//   StatusBoard board;                     // owned by the daemon
//   board.control = &control->snapshots(); // before operator threads start
//   board.dataplane = &dataplane_view;
//   board.service.Publish(...);            // control thread
//   // any operator thread:
//   std::shared_ptr<const ControlPlaneStatus> c = board.control->Status();
#ifndef ZG_SERVO_API_STATUS_BOARD_H_
#define ZG_SERVO_API_STATUS_BOARD_H_

#include <memory>

#include "servo/api/dataplane_status.h"
#include "servo/api/service_status.h"
#include "servo/control/control_snapshots.h"
#include "servo/control/snapshot_cell.h"

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
  // Set before any operator thread starts; null: none (tests).
  const ControlSnapshots* control = nullptr;
  const DataplaneView* dataplane = nullptr;
  // Written by: the control thread (each pass). Read by: operator threads.
  SnapshotCell<ServiceStatus> service;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_STATUS_BOARD_H_
