// SPDX-License-Identifier: Apache-2.0
// TickSchedule: deadlines and lateness of the control thread's ticks.
#include "servo/control/tick_schedule.h"

#include <algorithm>

namespace zg::servo {

TickSchedule::TickSchedule(int64_t interval_ns, int64_t start_mono_ns)
    : deadline_ns_(start_mono_ns) {
  stats_.interval_ns = std::max<int64_t>(interval_ns, 1);
}

void TickSchedule::Begin(int64_t now_mono_ns) {
  const int64_t interval = stats_.interval_ns;
  const int64_t late = std::max<int64_t>(0, now_mono_ns - deadline_ns_);
  ++stats_.ticks;
  stats_.last_lateness_ns = late;
  stats_.max_lateness_ns = std::max(stats_.max_lateness_ns, late);
  if (late >= interval) {
    ++stats_.late_ticks;
    stats_.missed_slots += static_cast<uint64_t>(late / interval);
    deadline_ns_ = now_mono_ns + interval;
  } else {
    deadline_ns_ += interval;
  }
}

}  // namespace zg::servo
