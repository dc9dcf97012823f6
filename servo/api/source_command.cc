// SPDX-License-Identifier: Apache-2.0
// The control socket's `source` command (source_command.h).
#include "servo/api/source_command.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace zg::servo {

using nlohmann::json;

absl::StatusOr<SourceChangeRequest> SourceRequestFromArgs(const json& args) {
  SourceChangeRequest r;
  auto text = [&](const char* key) -> absl::StatusOr<std::string> {
    const auto it = args.find(key);
    if (it == args.end() || !it->is_string() ||
        it->get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("source: '", key, "' must be a non-empty string"));
    }
    return it->get<std::string>();
  };
  ZG_ASSIGN_OR_RETURN(const std::string action, text("action"));
  if (action == "add") {
    r.action = SourceAction::kAdd;
    ZG_ASSIGN_OR_RETURN(r.spec, text("spec"));
    if (args.contains("name") || args.contains("priority")) {
      return absl::InvalidArgumentError(
          "source add takes a spec only (name= and priority= go in it)");
    }
    return r;
  }
  if (action == "delete") {
    r.action = SourceAction::kDelete;
  } else if (action == "enable") {
    r.action = SourceAction::kEnable;
  } else if (action == "disable") {
    r.action = SourceAction::kDisable;
  } else if (action == "priority") {
    r.action = SourceAction::kPriority;
    const auto it = args.find("priority");
    if (it == args.end() || !it->is_number_integer()) {
      return absl::InvalidArgumentError(
          "source priority: 'priority' must be an integer");
    }
    const int64_t p = it->get<int64_t>();
    if (p < -1000 || p > 1000) {
      return absl::InvalidArgumentError(
          absl::StrCat("priority ", p, ": must be -1000..1000"));
    }
    r.priority = static_cast<int>(p);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("source: unknown action '", action,
                     "' (add, delete, priority, enable, disable)"));
  }
  ZG_ASSIGN_OR_RETURN(r.name, text("name"));
  if (args.contains("spec") ||
      (r.action != SourceAction::kPriority && args.contains("priority"))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "source ", action, " takes a name",
        r.action == SourceAction::kPriority ? " and a priority" : "", " only"));
  }
  return r;
}

Reply SourceChangeReply(const SourceChangeResult& r) {
  json data = SourceChangeResultJson(r);
  if (r.ok) return Reply::Ok(std::move(data));
  Reply reply = Reply::Error(ErrorCode::kFailed, r.error);
  reply.data = std::move(data);
  return reply;
}

absl::Status AddSourceCommand(CommandTable& table, ControlPlane* control,
                              std::function<void(const std::string&)> log) {
  return table.Add(
      {.name = "source",
       .summary = "change a reference source: add SPEC, delete NAME, "
                  "priority NAME N, enable NAME, disable NAME (args: action, "
                  "spec, name, priority)",
       .access = CommandAccess::kChange,
       .run = [control, log](const CommandCall& c) -> CommandOutcome {
         if (auto e =
                 CheckArgs(c.args, {"action", "spec", "name", "priority"})) {
           return *e;
         }
         absl::StatusOr<SourceChangeRequest> req =
             SourceRequestFromArgs(c.args);
         if (!req.ok()) {
           return Reply::Error(ErrorCode::kBadArgument,
                               std::string(req.status().message()));
         }
         req->uid = c.caller.uid;
         req->origin = "zgctl";
         if (log) {
           log(absl::StrCat(
               "zgctl source ", SourceActionName(req->action), " ",
               req->action == SourceAction::kAdd ? req->spec : req->name,
               " (uid ", c.caller.uid, ", pid ", c.caller.pid, ")"));
         }
         // Parsed and built here, on the socket's thread; applied by the
         // control thread between two ticks, which answers through `done`.
         auto reply = std::make_shared<DeferredReply>(c.wake);
         control->SubmitSourceChange(*std::move(req))
             ->OnDone([reply](const SourceChangeResult& r) {
               reply->Complete(SourceChangeReply(r));
             });
         return reply;
       }});
}

}  // namespace zg::servo
