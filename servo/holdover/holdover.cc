// SPDX-License-Identifier: Apache-2.0
#include "servo/holdover/holdover.h"

#include "absl/strings/str_format.h"

namespace zg::servo {

using core::SyncState;

const char* SyncStateName(SyncState state) {
  switch (state) {
    case SyncState::kFreerun:
      return "FREERUN";
    case SyncState::kLocking:
      return "LOCKING";
    case SyncState::kLocked:
      return "LOCKED";
    case SyncState::kHoldoverInSpec:
      return "HOLDOVER_IN_SPEC";
    case SyncState::kHoldoverOutOfSpec:
      return "HOLDOVER_OUT_OF_SPEC";
  }
  return "?";
}

absl::Status ValidateHoldoverConfig(const HoldoverConfig& c) {
  if (c.in_spec_limit_ns <= 0 || c.freerun_limit_ns <= c.in_spec_limit_ns) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "holdover: need 0 < in_spec_limit_ns (%d) < freerun_limit_ns (%d)",
        c.in_spec_limit_ns, c.freerun_limit_ns));
  }
  return absl::OkStatus();
}

SyncState HoldoverStateMachine::WithoutReference(int64_t bound_ns) const {
  if (!capable_ || bound_ns > config_.freerun_limit_ns) {
    return SyncState::kFreerun;
  }
  if (bound_ns > config_.in_spec_limit_ns) return SyncState::kHoldoverOutOfSpec;
  // Never back into spec without a reference.
  if (state_ == SyncState::kHoldoverOutOfSpec) return state_;
  return SyncState::kHoldoverInSpec;
}

SyncState HoldoverStateMachine::Update(const HoldoverInputs& in) {
  switch (state_) {
    case SyncState::kFreerun:
      if (in.reference_available) state_ = SyncState::kLocking;
      break;
    case SyncState::kLocking:
      if (!in.reference_available) {
        state_ = WithoutReference(in.bound_ns);
      } else if (in.servo_stable && !in.reacquire) {
        state_ = SyncState::kLocked;
        capable_ = true;
      }
      break;
    case SyncState::kLocked:
      if (!in.reference_available) {
        state_ = WithoutReference(in.bound_ns);
      } else if (!in.servo_stable || in.reacquire) {
        state_ = SyncState::kLocking;
      }
      break;
    case SyncState::kHoldoverInSpec:
    case SyncState::kHoldoverOutOfSpec:
      state_ = in.reference_available ? SyncState::kLocking
                                      : WithoutReference(in.bound_ns);
      break;
  }
  if (state_ == SyncState::kFreerun) capable_ = false;
  return state_;
}

}  // namespace zg::servo
