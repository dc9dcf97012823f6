// SPDX-License-Identifier: Apache-2.0
// The holdover state machine: where the published time stands
// (core::SyncState), from what the reference and the servo are doing and how
// large the predicted error bound has grown.
//
//   FREERUN ──reference──> LOCKING ──servo stable──> LOCKED
//      ^                     │  ^                      │
//      │              lost   │  │ reference back       │ reference lost
//      │   (never locked)    v  │                      v
//      └──────────────── HOLDOVER_IN_SPEC <────────────┘
//      │  bound > freerun       │ bound > in_spec
//      │                        v
//      └────────────── HOLDOVER_OUT_OF_SPEC
//
// LOCKING also falls back from LOCKED when the servo loses its stable lock,
// and is forced when the sources out-vote our model (`reacquire`). Losing the
// reference while LOCKING enters holdover only if the oscillator's frequency
// was learned (the machine has been LOCKED since the last FREERUN); otherwise
// FREERUN. Every holdover state re-checks the bound on entry, so a long
// outage can pass straight through.
//
//   HoldoverStateMachine m({.in_spec_limit_ns = 1'500,
//                           .freerun_limit_ns = 1'000'000});
//   core::SyncState s = m.Update({.reference_available = true,
//                                 .servo_stable = false, .bound_ns = 800});
#ifndef ZG_SERVO_HOLDOVER_H_
#define ZG_SERVO_HOLDOVER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "core/time/clock_model.h"

namespace zg::servo {

const char* SyncStateName(core::SyncState state);

struct HoldoverConfig {
  // HOLDOVER_IN_SPEC while the predicted bound stays within this (ns).
  int64_t in_spec_limit_ns = 1'500;
  // HOLDOVER_OUT_OF_SPEC -> FREERUN once the bound exceeds this (ns).
  int64_t freerun_limit_ns = 1'000'000;
};

absl::Status ValidateHoldoverConfig(const HoldoverConfig& config);

struct HoldoverInputs {
  bool reference_available = false;  // accepted samples within the timeout
  bool servo_stable = false;         // servo reports kLockedStable
  bool reacquire = false;            // the sources out-voted the model
  int64_t bound_ns = 0;              // predicted error bound now
};

class HoldoverStateMachine {
 public:
  explicit HoldoverStateMachine(const HoldoverConfig& config)
      : config_(config) {}

  // Advances one step; returns the new state.
  core::SyncState Update(const HoldoverInputs& in);

  core::SyncState state() const { return state_; }
  // Whether the frequency was learned (LOCKED since the last FREERUN).
  bool holdover_capable() const { return capable_; }
  const HoldoverConfig& config() const { return config_; }

 private:
  core::SyncState WithoutReference(int64_t bound_ns) const;

  HoldoverConfig config_;
  core::SyncState state_ = core::SyncState::kFreerun;
  bool capable_ = false;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_HOLDOVER_H_
