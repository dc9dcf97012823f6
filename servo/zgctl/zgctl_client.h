// SPDX-License-Identifier: Apache-2.0
// zgctl's side of the control socket: connect, send one request, read one
// reply (servo/api/control_protocol.h), and turn every way that can fail
// into one clear line and a distinct exit code.
//
//   ZgctlClient client("/run/zeitgeber/zeitgeberd.sock");
//   ClientResult r = client.Call("tracking", {});
//   if (r.exit_code != kZgctlOk) { std::cerr << r.message << "\n"; ... }
//   nlohmann::json data = r.reply.data;
#ifndef ZG_SERVO_ZGCTL_ZGCTL_CLIENT_H_
#define ZG_SERVO_ZGCTL_ZGCTL_CLIENT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "servo/api/control_protocol.h"

namespace zg::zgctl {

// zgctl's exit codes (doc/zgctl.md).
enum ExitCode : int {
  kZgctlOk = 0,
  kZgctlFailed = 1,      // the server ran the command and it failed
  kZgctlUsage = 2,       // bad command or arguments (ours or the server's)
  kZgctlPermission = 3,  // the socket or the command refused us
  kZgctlNotRunning = 4,  // no zeitgeberd, or it went away mid-command
  kZgctlProtocol = 5,    // the reply was not this protocol
};

// The exit code for an error reply's code.
int ExitCodeFor(servo::ErrorCode code);

struct ClientResult {
  int exit_code = kZgctlOk;
  std::string message;  // one line, when exit_code != 0
  servo::Reply reply;   // the server's, when one came
};

class ZgctlClient {
 public:
  explicit ZgctlClient(std::string socket_path, int64_t timeout_ms = 20'000)
      : path_(std::move(socket_path)), timeout_ms_(timeout_ms) {}

  // One request on a fresh connection.
  ClientResult Call(const std::string& command, const nlohmann::json& args,
                    int version = servo::kControlProtocolVersion) const;

 private:
  std::string path_;
  int64_t timeout_ms_;
};

}  // namespace zg::zgctl

#endif  // ZG_SERVO_ZGCTL_ZGCTL_CLIENT_H_
