// SPDX-License-Identifier: Apache-2.0
// Names of the clock discipline's event kinds and reject reasons
// (servo/discipline/discipline_event.h), as the audit log
// (servo/audit/discipline_audit.cc) and the tests print them.
#include "servo/discipline/discipline_event.h"

namespace zg::servo {

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kStateChange:
      return "state_change";
    case EventKind::kLocked:
      return "locked";
    case EventKind::kHoldoverEnter:
      return "holdover_enter";
    case EventKind::kHoldoverExit:
      return "holdover_exit";
    case EventKind::kClockClassChange:
      return "clock_class_change";
    case EventKind::kSampleRejected:
      return "sample_rejected";
    case EventKind::kSourceSwitch:
      return "source_switch";
    case EventKind::kSourceUp:
      return "source_up";
    case EventKind::kSourceDown:
      return "source_down";
    case EventKind::kFalseticker:
      return "falseticker";
    case EventKind::kStep:
      return "step";
    case EventKind::kModelOutvoted:
      return "model_outvoted";
  }
  return "?";
}

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNone:
      return "none";
    case RejectReason::kOutlier:
      return "outlier";
    case RejectReason::kJump:
      return "jump";
    case RejectReason::kInvalid:
      return "invalid";
  }
  return "?";
}

}  // namespace zg::servo
