// SPDX-License-Identifier: Apache-2.0
#include "servo/leap/leap_watch.h"

#include "core/time/clock_model.h"

namespace zg::servo {

std::optional<LeapWatch::Change> LeapWatch::Update(const core::LeapTable& table,
                                                   core::TaiNs now) {
  if (pending_ && now >= pending_->tai) {
    Change c{true, *pending_};
    pending_.reset();
    return c;
  }
  const std::optional<core::LeapEvent> next = table.NextLeap(now);
  const bool announced = next && next->tai - now <= core::kLeapAnnounceWindowNs;
  if (!announced) {
    // The table changed under us (reloaded) or time moved back: forget it.
    pending_.reset();
    return std::nullopt;
  }
  if (pending_ && pending_->tai == next->tai) return std::nullopt;
  pending_ = next;
  return Change{false, *next};
}

}  // namespace zg::servo
