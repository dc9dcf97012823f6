// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's side of systemd's service notification protocol
// (sd_notify(3), libsystemd), for a unit with Type=notify and WatchdogSec=
// (doc/service.md):
//   READY=1     once every worker is polling and the clock model is
//               published (systemctl start returns then, not before)
//   STATUS=...  one line of state, shown by systemctl status
//   WATCHDOG=1  every half watchdog interval, only while every worker makes
//               progress (dataplane/daemon/worker_watch.h)
//   STOPPING=1  when a stop begins
// Without NOTIFY_SOCKET in the environment (not started by systemd) every
// call does nothing. Control thread only: each call is a syscall.
//
//   ServiceNotifier notifier = ServiceNotifier::FromEnvironment();
//   notifier.Ready("LOCKED to gnss, class 6");
//   if (notifier.watchdog_interval() > absl::ZeroDuration()) ...
//   notifier.Watchdog();
#ifndef ZG_DATAPLANE_DAEMON_SERVICE_NOTIFY_H_
#define ZG_DATAPLANE_DAEMON_SERVICE_NOTIFY_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "servo/control/control_status.h"

namespace zg::dataplane {

class ServiceNotifier {
 public:
  // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (sd_watchdog_enabled).
  static ServiceNotifier FromEnvironment();

  // Whether a service manager listens (NOTIFY_SOCKET is set).
  bool enabled() const { return enabled_; }
  // The service manager's watchdog timeout (WatchdogSec=); zero without one.
  absl::Duration watchdog_timeout() const { return watchdog_timeout_; }

  void Ready(absl::string_view status);
  void Status(absl::string_view status);
  void Watchdog();
  void Stopping(absl::string_view status);

 private:
  void Send(const std::string& state);
  bool enabled_ = false;
  absl::Duration watchdog_timeout_;
};

// The one-line state for STATUS=: the clock's state and selected source,
// the PTP clock class and NTP stratum served, and the request rates, e.g.
//   "LOCKED to system:CLOCK_REALTIME, class 248, stratum 3; NTP 1200/s,
//    PTP 16/s; 2 workers"
std::string ServiceStatusLine(const servo::ControlPlaneStatus& status,
                              double ntp_per_s, double ptp_per_s,
                              size_t workers);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_SERVICE_NOTIFY_H_
