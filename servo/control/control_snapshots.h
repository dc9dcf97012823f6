// SPDX-License-Identifier: Apache-2.0
// ControlSnapshots: what operator surfaces on their own threads (the SNMP
// subagent, the control socket, the status page) read of the control plane:
// immutable snapshots the control thread publishes once per Tick. Reading
// never blocks the control thread (servo/control/snapshot_cell.h), and a
// snapshot stays valid for as long as the reader holds it.
//
//   std::shared_ptr<const AlarmTable> alarms = snapshots.Alarms();
//   if (alarms != nullptr) for (const AlarmRow& r : alarms->rows) ...
//
// Both may be null before the control plane's first Tick.
#ifndef ZG_SERVO_CONTROL_CONTROL_SNAPSHOTS_H_
#define ZG_SERVO_CONTROL_CONTROL_SNAPSHOTS_H_

#include <memory>

#include "servo/alarms/alarm_set.h"
#include "servo/control/control_status.h"

namespace zg::servo {

class ControlSnapshots {
 public:
  virtual ~ControlSnapshots() = default;
  virtual std::shared_ptr<const ControlPlaneStatus> Status() const = 0;
  virtual std::shared_ptr<const AlarmTable> Alarms() const = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_CONTROL_SNAPSHOTS_H_
