// SPDX-License-Identifier: Apache-2.0
// CommandTable: the commands an operator surface can run, by name, with who
// may run them. The control socket dispatches every request through it; the
// status page and the SNMP agent can call it the same way, without a
// socket. Adding a command is one Add():
//
//   CommandTable table(/*owner_uid=*/geteuid());
//   table.Add({.name = "tracking",
//              .summary = "the served clock and its reference",
//              .run = [&](const CommandCall& c) -> CommandOutcome {
//                return Reply::Ok(TrackingJson(*board.control->Status()));
//              }});
//   CommandOutcome o = table.Run(request, caller, wake);
//
// Access: a command is a read (open to anyone who can reach the surface —
// for the socket, its group) or a change (root or the daemon's own uid
// only; the command audits itself with the caller's uid). A change may
// read when called without arguments (`loglevel`).
//
// Run() is const and may be called from several operator threads at once:
// commands must be thread-safe (they read snapshots, or post to the
// control thread and return a DeferredReply).
#ifndef ZG_SERVO_API_COMMAND_TABLE_H_
#define ZG_SERVO_API_COMMAND_TABLE_H_

#include <sys/types.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "servo/api/control_protocol.h"
#include "servo/api/control_requests.h"

namespace zg::servo {

enum class CommandAccess : uint8_t { kRead, kChange };

struct CommandCall {
  const nlohmann::json& args;  // an object
  Caller caller;
  // For a DeferredReply: wakes the caller's thread when it completes.
  std::function<void()> wake;
};

// A reply now, or one the control thread completes later.
using CommandOutcome = std::variant<Reply, std::shared_ptr<DeferredReply>>;

struct Command {
  std::string name;
  std::string summary;  // one line, for "help"
  CommandAccess access = CommandAccess::kRead;
  // A kChange command that only reads when given no arguments (loglevel).
  bool reads_without_args = false;
  std::function<CommandOutcome(const CommandCall&)> run;
};

class CommandTable {
 public:
  // `owner_uid`: the daemon's own user, who (with root) may change things.
  explicit CommandTable(uid_t owner_uid) : owner_uid_(owner_uid) {}

  // Before any Run(). A duplicate name is an error.
  absl::Status Add(Command command);

  // Unknown command, refused access, a bad argument (a JSON type error in
  // the command): an error Reply. Otherwise what the command returns.
  CommandOutcome Run(const ControlRequest& request, const Caller& caller,
                     std::function<void()> wake = {}) const;

  // Whether `caller` may run `command` with `args` (unknown: false).
  bool Allowed(const std::string& command, const nlohmann::json& args,
               const Caller& caller) const;

  // {"commands":[{"name":..,"summary":..,"changes":bool}]}
  nlohmann::json Help() const;
  uid_t owner_uid() const { return owner_uid_; }

 private:
  uid_t owner_uid_;
  std::map<std::string, Command> commands_;
};

// Argument helpers for commands. Each returns an error Reply (bad_argument,
// naming the argument) when the check fails.
// Only `allowed` keys may appear.
std::optional<Reply> CheckArgs(const nlohmann::json& args,
                               std::initializer_list<const char*> allowed);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_COMMAND_TABLE_H_
