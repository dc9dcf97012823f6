// SPDX-License-Identifier: Apache-2.0
// TickSchedule: the control thread's fixed tick schedule (every
// --publish_interval, on CLOCK_MONOTONIC deadlines, not "sleep after the
// work") and how late each tick started against it.
//
// A tick is late when it starts a whole interval or more after its
// deadline: it missed its slot, and the served model's age grew by an
// interval more than planned. The loop then re-anchors on now (the missed
// slots are counted, not run in a burst).
//
//   TickSchedule schedule(100'000'000, MonotonicNs());
//   while (running) {
//     SleepUntil(schedule.deadline_ns());
//     schedule.Begin(MonotonicNs());   // records lateness, sets the next
//     control->Tick();
//   }
//   TickStats s = schedule.stats();    // max_lateness_ns, late_ticks
//
// Control thread only; stats() is a plain copy for the status snapshot.
#ifndef ZG_SERVO_CONTROL_TICK_SCHEDULE_H_
#define ZG_SERVO_CONTROL_TICK_SCHEDULE_H_

#include <cstdint>

namespace zg::servo {

struct TickStats {
  int64_t interval_ns = 0;
  uint64_t ticks = 0;            // ticks begun
  uint64_t late_ticks = 0;       // begun >= one interval after their deadline
  uint64_t missed_slots = 0;     // deadlines skipped by late ticks
  int64_t max_lateness_ns = 0;   // since start
  int64_t last_lateness_ns = 0;  // of the latest tick
};

class TickSchedule {
 public:
  // The first deadline is `start_mono_ns`.
  TickSchedule(int64_t interval_ns, int64_t start_mono_ns);

  // When the next tick is due (CLOCK_MONOTONIC ns).
  int64_t deadline_ns() const { return deadline_ns_; }
  // A tick begins at `now_mono_ns` (normally just after deadline_ns()):
  // records its lateness and moves the deadline on by one interval, or, for
  // a late tick, to one interval after now.
  void Begin(int64_t now_mono_ns);

  const TickStats& stats() const { return stats_; }

 private:
  int64_t deadline_ns_;
  TickStats stats_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_TICK_SCHEDULE_H_
