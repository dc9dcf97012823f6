// SPDX-License-Identifier: Apache-2.0
// Constants and helpers shared by the files that implement ClockDiscipline
// (servo/discipline/clock_discipline.cc, discipline_intake.cc,
// discipline_selection.cc, discipline_tracking.cc, discipline_holdover.cc,
// discipline_publish.cc). Not a public API: everything outside those files uses
// servo/discipline/clock_discipline.h.
#ifndef ZG_SERVO_CLOCK_DISCIPLINE_INTERNAL_H_
#define ZG_SERVO_CLOCK_DISCIPLINE_INTERNAL_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/time/clock_model.h"

namespace zg::servo::internal {

// Filtered samples a source may queue between two Updates.
inline constexpr size_t kMaxPending = 64;
// Published when nothing bounds the error (no sample yet).
inline constexpr int64_t kUnboundedNs = std::numeric_limits<int64_t>::max() / 4;

inline bool Tracking(core::SyncState s) {
  return s == core::SyncState::kLocking || s == core::SyncState::kLocked;
}
inline bool InHoldover(core::SyncState s) {
  return s == core::SyncState::kHoldoverInSpec ||
         s == core::SyncState::kHoldoverOutOfSpec;
}

// `ns` rounded to int64, saturating at +-kUnboundedNs (NaN: kUnboundedNs).
inline int64_t ToNs(double ns) {
  if (!(ns < static_cast<double>(kUnboundedNs))) return kUnboundedNs;
  if (ns < -static_cast<double>(kUnboundedNs)) return -kUnboundedNs;
  return static_cast<int64_t>(std::llround(ns));
}

}  // namespace zg::servo::internal

#endif  // ZG_SERVO_CLOCK_DISCIPLINE_INTERNAL_H_
