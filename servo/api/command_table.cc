// SPDX-License-Identifier: Apache-2.0
// Command dispatch and access control (command_table.h).
#include "servo/api/command_table.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace zg::servo {

using nlohmann::json;

absl::Status CommandTable::Add(Command command) {
  if (command.name.empty() || !command.run) {
    return absl::InvalidArgumentError("a command needs a name and a body");
  }
  const std::string name = command.name;
  if (!commands_.emplace(name, std::move(command)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("command \"", name, "\" is defined twice"));
  }
  return absl::OkStatus();
}

bool CommandTable::Allowed(const std::string& command, const json& args,
                           const Caller& caller) const {
  const auto it = commands_.find(command);
  if (it == commands_.end()) return false;
  const Command& c = it->second;
  return c.access == CommandAccess::kRead ||
         (c.reads_without_args && args.empty()) || caller.uid == 0 ||
         caller.uid == owner_uid_;
}

CommandOutcome CommandTable::Run(const ControlRequest& request,
                                 const Caller& caller,
                                 std::function<void()> wake) const {
  const auto it = commands_.find(request.command);
  if (it == commands_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, c] : commands_) names.push_back(name);
    return Reply::Error(
        ErrorCode::kUnknownCommand,
        absl::StrCat("unknown command \"", request.command,
                     "\"; commands: ", absl::StrJoin(names, ", ")));
  }
  if (!Allowed(request.command, request.args, caller)) {
    return Reply::Error(
        ErrorCode::kPermissionDenied,
        absl::StrCat("\"", request.command,
                     "\" changes the server: only root or uid ", owner_uid_,
                     " (zeitgeberd's user) may run it; you are uid ",
                     caller.uid));
  }
  try {
    return it->second.run(CommandCall{request.args, caller, std::move(wake)});
  } catch (const json::exception& e) {
    return Reply::Error(ErrorCode::kBadArgument,
                        absl::StrCat(request.command, ": ", e.what()));
  }
}

json CommandTable::Help() const {
  json list = json::array();
  for (const auto& [name, c] : commands_) {
    list.push_back({{"name", name},
                    {"summary", c.summary},
                    {"changes", c.access == CommandAccess::kChange}});
  }
  return {{"commands", list}};
}

std::optional<Reply> CheckArgs(const json& args,
                               std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : args.items()) {
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) {
      std::vector<std::string> names(allowed.begin(), allowed.end());
      return Reply::Error(
          ErrorCode::kBadArgument,
          absl::StrCat("unknown argument \"", key, "\"",
                       names.empty()
                           ? std::string(" (this command takes none)")
                           : absl::StrCat(" (known: ",
                                          absl::StrJoin(names, ", "), ")")));
    }
  }
  return std::nullopt;
}

}  // namespace zg::servo
