// SPDX-License-Identifier: Apache-2.0
// The control socket's `source` command: live changes of the reference
// sources (servo/control/source_change.h) — `zgctl source add SPEC`,
// `delete NAME`, `priority NAME N`, `enable NAME`, `disable NAME`. A change
// (root or the daemon's own user); the caller's uid goes with the request
// into the audit log's source_change record.
//
// The command parses its arguments, then submits the request to the control
// plane on the calling thread (the control socket's: the spec is parsed and
// the source built there, never on the control thread) and returns a
// DeferredReply that the control thread completes after the tick that
// applied (or refused) the change; its `wake` tells the socket's thread.
//
//   ZG_RETURN_IF_ERROR(AddSourceCommand(table, control.get()));
//   // {"version":1,"command":"source",
//   //  "args":{"action":"add","spec":"sim:better,priority=1"}}
//
// Arguments: {"action":"add","spec":SPEC}, {"action":"delete"|"enable"|
// "disable","name":NAME}, {"action":"priority","name":NAME,"priority":N}.
// The reply's data is SourceChangeResultJson; a refused change is a
// `failed` error reply carrying the same data.
#ifndef ZG_SERVO_API_SOURCE_COMMAND_H_
#define ZG_SERVO_API_SOURCE_COMMAND_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "servo/api/command_table.h"
#include "servo/control/control_plane.h"
#include "servo/control/source_change.h"

namespace zg::servo {

// `control` must outlive every Run(); `log` (may be empty) gets one line
// per request, for the operator's log.
absl::Status AddSourceCommand(CommandTable& table, ControlPlane* control,
                              std::function<void(const std::string&)> log = {});

// The request the arguments ask for (no uid, no origin); an error names
// the argument.
absl::StatusOr<SourceChangeRequest> SourceRequestFromArgs(
    const nlohmann::json& args);

// The answer as a reply: ok with SourceChangeResultJson, or `failed` with
// the error and the same data.
Reply SourceChangeReply(const SourceChangeResult& result);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_SOURCE_COMMAND_H_
