// SPDX-License-Identifier: Apache-2.0
// The control socket's protocol (zgctl <-> zeitgeberd), version 1: one JSON
// object per line (newline-delimited JSON, UTF-8; JSON escapes every
// newline inside strings, so a line is a message). A client sends one
// request and reads one reply line; it may send the next request on the
// same connection after that. doc/zgctl.md is the schema.
//
//   request  {"version":1,"command":"sources","args":{"verbose":true},
//             "id":7}
//   reply    {"version":1,"id":7,"command":"sources","ok":true,
//             "data":{...}}
//   error    {"version":1,"id":7,"command":"sorces","ok":false,
//             "error":{"code":"unknown_command","message":"..."}}
//
// "args" and "id" are optional ("id" is echoed, any JSON value). A request
// of another version is refused with unsupported_version (and the version
// this server speaks) before anything else is read from it.
//
//   std::variant<ControlRequest, Reply> r = ParseControlRequest(line);
//   std::string out = FormatReply(Reply::Ok({{"x", 1}}), "tracking", id);
#ifndef ZG_SERVO_API_CONTROL_PROTOCOL_H_
#define ZG_SERVO_API_CONTROL_PROTOCOL_H_

#include <sys/types.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace zg::servo {

inline constexpr int kControlProtocolVersion = 1;
// A request line may be this long, newline included; a longer one is
// refused (too_large) and the connection closed.
inline constexpr size_t kMaxControlRequestBytes = 64 * 1024;

enum class ErrorCode : uint8_t {
  kBadRequest,          // not JSON, not an object, a field of the wrong type
  kUnsupportedVersion,  // "version" is not one this server speaks
  kUnknownCommand,
  kBadArgument,         // an argument unknown to the command or malformed
  kPermissionDenied,    // a change from a user other than root/the daemon's
  kTooLarge,            // request over the limit
  kTooManyConnections,  // over the server's connection limit
  kTimeout,             // the control thread did not answer in time
  kUnavailable,         // the data is not there (no audit log, PTP off)
  kFailed,              // the command ran and failed (reload rejected)
  kShuttingDown,        // the daemon is stopping
};
// "bad_request", "unsupported_version", "unknown_command", "bad_argument",
// "permission_denied", "too_large", "too_many_connections", "timeout",
// "unavailable", "failed", "shutting_down".
const char* ErrorCodeName(ErrorCode code);
std::optional<ErrorCode> ParseErrorCode(std::string_view name);

// A command's outcome: data, or an error with a message an operator can act
// on.
struct Reply {
  bool ok = true;
  ErrorCode code = ErrorCode::kFailed;
  std::string message;
  nlohmann::json data;

  static Reply Ok(nlohmann::json data) {
    Reply r;
    r.data = std::move(data);
    return r;
  }
  static Reply Error(ErrorCode code, std::string message) {
    Reply r;
    r.ok = false;
    r.code = code;
    r.message = std::move(message);
    return r;
  }
};

struct ControlRequest {
  int version = kControlProtocolVersion;
  std::string command;
  nlohmann::json args = nlohmann::json::object();  // always an object
  nlohmann::json id;                               // null when absent
};

// Who is asking: the peer's credentials (SO_PEERCRED).
struct Caller {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Parses one request line (the newline may be included). On failure the
// Reply is the error to send; `id` and `command` are filled where they
// could be read.
struct ParsedRequest {
  std::optional<ControlRequest> request;
  Reply error;
  std::string command;
  nlohmann::json id;
};
ParsedRequest ParseControlRequest(std::string_view line);

// One reply line, newline included.
std::string FormatReply(const Reply& reply, const std::string& command,
                        const nlohmann::json& id);
// One request line, newline included (clients).
std::string FormatRequest(const std::string& command,
                          const nlohmann::json& args,
                          int version = kControlProtocolVersion);

// A reply line as a client reads it. Not a reply of this protocol (not JSON,
// no "ok"): nullopt.
std::optional<Reply> ParseReply(std::string_view line);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_CONTROL_PROTOCOL_H_
