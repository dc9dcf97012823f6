// SPDX-License-Identifier: Apache-2.0
// The anycast health judgement and its hysteresis (anycast_policy.h).
#include "servo/fleet/anycast_policy.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "servo/holdover/holdover.h"

namespace zg::servo {

HealthVerdict JudgeHealth(const HealthInputs& in) {
  std::vector<std::string> bad;
  if (in.sync != core::SyncState::kLocked &&
      in.sync != core::SyncState::kHoldoverInSpec) {
    bad.push_back(absl::StrCat("reference not within the holdover spec (",
                               SyncStateName(in.sync), ")"));
  }
  if (!in.stalled_workers.empty()) {
    bad.push_back(absl::StrCat(
        "worker(s) ", absl::StrJoin(in.stalled_workers, ","), " stalled"));
  }
  if (!in.ports_down.empty()) {
    bad.push_back(
        absl::StrCat("port(s) ", absl::StrJoin(in.ports_down, ","), " down"));
  }
  return {bad.empty(), absl::StrJoin(bad, "; ")};
}

std::optional<RouteChange> AnycastPolicy::Update(const HealthVerdict& health,
                                                 bool draining,
                                                 int64_t mono_ns) {
  if (!started_ || health.healthy != healthy_) {
    started_ = true;
    healthy_ = health.healthy;
    (healthy_ ? healthy_since_ : unhealthy_since_) = mono_ns;
  }
  if (!healthy_) unhealthy_why_ = health.why;
  bool want = announce_;
  std::string why;
  if (draining) {
    want = false;
    why = "draining";
  } else if (healthy_) {
    if (mono_ns - healthy_since_ >=
        absl::ToInt64Nanoseconds(config_.announce_after)) {
      want = true;
      why = absl::StrCat("healthy for ",
                         absl::FormatDuration(absl::Trunc(
                             absl::Nanoseconds(mono_ns - healthy_since_),
                             absl::Milliseconds(1))));
    }
  } else if (mono_ns - unhealthy_since_ >=
             absl::ToInt64Nanoseconds(config_.withdraw_after)) {
    want = false;
    why = absl::StrCat("unhealthy: ", health.why);
  }
  if (want == announce_) return std::nullopt;
  announce_ = want;
  ++(want ? announcements_ : withdrawals_);
  return RouteChange{want, std::move(why)};
}

}  // namespace zg::servo
