// SPDX-License-Identifier: Apache-2.0
// systemd notifications of zeitgeberd (service_notify.h).
#include "dataplane/daemon/service_notify.h"

#include <systemd/sd-daemon.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "dataplane/daemon/log.h"
#include "servo/holdover/holdover.h"

namespace zg::dataplane {

ServiceNotifier ServiceNotifier::FromEnvironment() {
  ServiceNotifier n;
  const char* socket = std::getenv("NOTIFY_SOCKET");
  n.enabled_ = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  if (n.enabled_ && sd_watchdog_enabled(0, &usec) > 0) {
    n.watchdog_timeout_ = absl::Microseconds(static_cast<int64_t>(usec));
  }
  return n;
}

void ServiceNotifier::Send(const std::string& state) {
  if (!enabled_) return;
  if (const int rc = sd_notify(0, state.c_str()); rc < 0) {
    LogWarning(absl::StrCat("sd_notify(", state.substr(0, state.find('\n')),
                            "): ", std::strerror(-rc)));
  }
}

void ServiceNotifier::Ready(absl::string_view status) {
  Send(absl::StrCat("READY=1\nSTATUS=", status));
}

void ServiceNotifier::Status(absl::string_view status) {
  Send(absl::StrCat("STATUS=", status));
}

void ServiceNotifier::Watchdog() { Send("WATCHDOG=1"); }

void ServiceNotifier::Stopping(absl::string_view status) {
  Send(absl::StrCat("STOPPING=1\nSTATUS=", status));
}

std::string ServiceStatusLine(const servo::ControlPlaneStatus& status,
                              double ntp_per_s, double ptp_per_s,
                              size_t workers) {
  std::string source = "no source";
  for (const servo::SourceSnapshot& s : status.sources) {
    if (s.discipline.selected) source = absl::StrCat("to ", s.name);
  }
  std::string line = absl::StrCat(
      servo::SyncStateName(status.discipline.state), " ", source, ", class ",
      status.model.ptp_quality.clock_class, ", stratum ", status.model.stratum,
      "; NTP ", std::llround(ntp_per_s), "/s, PTP ", std::llround(ptp_per_s),
      "/s; ", workers, workers == 1 ? " worker" : " workers");
  // One line: a source name never breaks the protocol's KEY=VALUE lines.
  return absl::StrReplaceAll(line, {{"\n", " "}});
}

}  // namespace zg::dataplane
