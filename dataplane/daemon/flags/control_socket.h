// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's control-socket flags, the "Control socket (zgctl)" group of
// `zeitgeberd -- --help` (zgctl's way in; doc/zgctl.md):
//
//   --control_socket=/run/zeitgeber/zeitgeberd.sock   "" turns it off
//   --control_group=zeitgeber    the socket's group ("": zeitgeberd's own);
//                                its members may read, root and zeitgeberd's
//                                user may also change
//
//   ZG_ASSIGN_OR_RETURN(ControlSocketConfig c, ControlSocketConfigFromFlags());
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_CONTROL_SOCKET_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_CONTROL_SOCKET_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"

ABSL_DECLARE_FLAG(std::string, control_socket);
ABSL_DECLARE_FLAG(std::string, control_group);

namespace zg::dataplane {

struct ControlSocketConfig {
  std::string path;   // "": no control socket
  std::string group;  // "": the daemon's own group
};

// The flags' current values, checked (an absolute path that fits a Unix
// socket address).
absl::StatusOr<ControlSocketConfig> ControlSocketConfigFromFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_CONTROL_SOCKET_H_
