// SPDX-License-Identifier: Apache-2.0
// The --control_socket and --control_group flags (flags/control_socket.h).
#include "dataplane/daemon/flags/control_socket.h"

#include <sys/un.h>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, control_socket, "/run/zeitgeber/zeitgeberd.sock",
          "Unix socket zgctl talks to (mode 0660, group --control_group); "
          "empty: none. A live socket at the path (another zeitgeberd) stops "
          "the start; a stale one is replaced.");
ABSL_FLAG(std::string, control_group, "",
          "Group (name or number) of --control_socket: its members may run "
          "zgctl's read commands; changes (reload, drain, loglevel, source) "
          "need root or zeitgeberd's own user. Empty: zeitgeberd's group.");

namespace zg::dataplane {

absl::StatusOr<ControlSocketConfig> ControlSocketConfigFromFlags() {
  ControlSocketConfig c;
  c.path = absl::GetFlag(FLAGS_control_socket);
  c.group = absl::GetFlag(FLAGS_control_group);
  if (c.path.empty()) return c;
  if (c.path.front() != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("--control_socket=", c.path, ": give an absolute path"));
  }
  if (c.path.size() >= sizeof(sockaddr_un::sun_path) - 16) {
    // Room for the temporary name it is bound under first.
    return absl::InvalidArgumentError(
        absl::StrCat("--control_socket=", c.path, ": at most ",
                     sizeof(sockaddr_un::sun_path) - 17, " bytes"));
  }
  return c;
}

}  // namespace zg::dataplane
