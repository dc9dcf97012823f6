// SPDX-License-Identifier: Apache-2.0
// LeapWatch: follows the leap second the served clock announces, for the
// audit log: "leap_scheduled" when a leap enters the announcement window
// (the last UTC day before it, when NTP's LI and PTP's leap61/leap59 flags
// go up), "leap_applied" once the served time has passed it.
//
//   LeapWatch watch;
//   if (auto c = watch.Update(table, now_tai)) audit(c->applied, c->leap);
//
// Control thread only.
#ifndef ZG_SERVO_LEAP_WATCH_H_
#define ZG_SERVO_LEAP_WATCH_H_

#include <optional>

#include "core/time/leap_seconds.h"
#include "core/time/time_types.h"

namespace zg::servo {

class LeapWatch {
 public:
  struct Change {
    bool applied = false;  // false: scheduled (announced from now on)
    core::LeapEvent leap;
  };

  // What changed since the last call, at served TAI `now`.
  std::optional<Change> Update(const core::LeapTable& table, core::TaiNs now);

  // The leap announced now, if any.
  const std::optional<core::LeapEvent>& pending() const { return pending_; }

 private:
  std::optional<core::LeapEvent> pending_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_LEAP_WATCH_H_
