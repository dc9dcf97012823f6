// Operator-facing log lines of zeitgeberd (setup, state changes, shutdown),
// written to stderr with a UTC timestamp and a severity letter:
//   2024-05-01T12:00:00.123Z I port 0 (net_ring0): link up 10000 Mb/s
// Never called on the packet hot path.
//
//   LogInfo(absl::StrCat("port ", id, " started"));
#ifndef ZG_DATAPLANE_DAEMON_LOG_H_
#define ZG_DATAPLANE_DAEMON_LOG_H_

#include "absl/strings/string_view.h"

namespace zg::dataplane {

void LogInfo(absl::string_view message);
void LogWarning(absl::string_view message);
void LogError(absl::string_view message);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_LOG_H_
