// SPDX-License-Identifier: Apache-2.0
// AnycastPolicy: zeitgeberd's own judgement of whether it should attract
// clients, and so whether its anycast route should be announced.
//
// Healthy means all of:
//   - the reference is within the holdover spec: LOCKED, or HOLDOVER_IN_SPEC
//     (a reference lost recently, the predicted error still within
//     --holdover_in_spec_limit); FREERUN, LOCKING and HOLDOVER_OUT_OF_SPEC
//     are not;
//   - every worker is making progress (none stalled: worker_watch.h);
//   - no port serving the address is down.
// The route is announced while healthy and not draining.
//
// Hysteresis, so that a flapping source or link cannot flap the route: the
// route is withdrawn once the server has been unhealthy for withdraw_after
// (0: at once), and announced again only once it has been healthy for
// announce_after without a break. Draining withdraws at once (the operator
// asked); undraining re-announces at once if the server has been healthy
// for announce_after meanwhile. At start the route is withdrawn until the
// server has been healthy for announce_after.
//
//   AnycastPolicy policy({.announce_after = absl::Seconds(10)});
//   HealthVerdict v = JudgeHealth({.sync = state, .stalled_workers = ...});
//   if (auto c = policy.Update(v, drain.draining(), mono_ns))
//   bird->Want(c->announce);
//
// Control thread only.
#ifndef ZG_SERVO_FLEET_ANYCAST_POLICY_H_
#define ZG_SERVO_FLEET_ANYCAST_POLICY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "core/time/clock_model.h"

namespace zg::servo {

struct HealthInputs {
  core::SyncState sync = core::SyncState::kFreerun;
  std::vector<unsigned> stalled_workers;  // worker indices
  std::vector<std::string> ports_down;    // ports serving the address
};

struct HealthVerdict {
  bool healthy = false;
  std::string why;  // "" when healthy; else each failed check, "; "-joined
};

HealthVerdict JudgeHealth(const HealthInputs& in);

struct AnycastPolicyConfig {
  absl::Duration announce_after = absl::Seconds(10);
  absl::Duration withdraw_after = absl::ZeroDuration();
};

// One decision to announce or withdraw, for BIRD, the log, the audit log
// and the metrics.
struct RouteChange {
  bool announce = false;
  std::string why;
};

class AnycastPolicy {
 public:
  explicit AnycastPolicy(const AnycastPolicyConfig& config) : config_(config) {}

  // Advances; returns the decision when it changes.
  std::optional<RouteChange> Update(const HealthVerdict& health, bool draining,
                                    int64_t mono_ns);

  bool announce() const { return announce_; }
  bool healthy() const { return healthy_; }
  // The last unhealthy verdict's reasons ("" while healthy).
  const std::string& unhealthy_why() const { return unhealthy_why_; }
  uint64_t announcements() const { return announcements_; }
  uint64_t withdrawals() const { return withdrawals_; }

 private:
  AnycastPolicyConfig config_;
  bool started_ = false;
  bool healthy_ = false;
  int64_t healthy_since_ = 0;    // while healthy_
  int64_t unhealthy_since_ = 0;  // while !healthy_
  std::string unhealthy_why_;
  bool announce_ = false;
  uint64_t announcements_ = 0;
  uint64_t withdrawals_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_FLEET_ANYCAST_POLICY_H_
