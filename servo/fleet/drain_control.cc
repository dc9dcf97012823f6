// SPDX-License-Identifier: Apache-2.0
// The drain state machine (drain_control.h).
#include "servo/fleet/drain_control.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {

const char* DrainStateName(DrainState s) {
  switch (s) {
    case DrainState::kServing:
      return "SERVING";
    case DrainState::kDraining:
      return "DRAINING";
    case DrainState::kDrained:
      return "DRAINED";
  }
  return "?";
}

void DrainControl::SetOperatorRequest(bool drain, std::string who) {
  operator_drain_ = drain;
  operator_who_ = std::move(who);
}

DrainControl::Asker DrainControl::Ask(const DrainInputs& in) const {
  if (in.stopping) return Asker::kStopping;
  if (in.force_undrain_file) return Asker::kNone;
  if (operator_drain_) return Asker::kOperator;
  if (in.drain_file) return Asker::kDrainFile;
  return Asker::kNone;
}

std::string DrainControl::Why(Asker asker) const {
  switch (asker) {
    case Asker::kStopping:
      return "stopping";
    case Asker::kOperator:
      return operator_who_;
    case Asker::kDrainFile:
      return absl::StrCat("drain file ", drain_file_, " exists");
    case Asker::kNone:
      break;
  }
  return "";
}

std::string DrainControl::WhyServing(const DrainInputs& in) const {
  if (in.force_undrain_file) {
    return absl::StrCat("force-undrain file ", force_undrain_file_, " exists");
  }
  if (asker_ == Asker::kDrainFile) {
    return absl::StrCat("drain file ", drain_file_, " removed");
  }
  return operator_who_;
}

std::optional<DrainChange> DrainControl::Update(const DrainInputs& in,
                                                int64_t mono_ns) {
  const Asker asker = Ask(in);
  DrainState next = state_;
  std::string why;
  if (asker == Asker::kNone) {
    next = DrainState::kServing;
    why = WhyServing(in);
  } else if (state_ == DrainState::kServing) {
    next = DrainState::kDraining;
    why = Why(asker);
  } else if (state_ == DrainState::kDraining &&
             mono_ns - since_mono_ns_ >= absl::ToInt64Nanoseconds(grace_)) {
    next = DrainState::kDrained;
    why = absl::StrCat("grace of ", absl::FormatDuration(grace_), " over");
  }
  asker_ = asker;
  reason_ = Why(asker);
  if (next == state_) return std::nullopt;
  DrainChange c{state_, next, std::move(why)};
  state_ = next;
  since_mono_ns_ = mono_ns;
  ++changes_[static_cast<int>(next)];
  return c;
}

absl::Duration DrainControl::grace_left(int64_t mono_ns) const {
  if (state_ != DrainState::kDraining) return absl::ZeroDuration();
  const absl::Duration left =
      grace_ - absl::Nanoseconds(mono_ns - since_mono_ns_);
  return left > absl::ZeroDuration() ? left : absl::ZeroDuration();
}

}  // namespace zg::servo
