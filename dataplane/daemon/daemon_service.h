// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's operator side: the StatusBoard operator threads read (the
// control plane's own snapshots, the data plane's, and the service status
// published here), the control socket (servo/api/control_server.h) on its
// own thread, the command table it serves (the read commands of servo/api/
// status_commands.h; clients, read from the workers' client records on the
// socket's thread; ptp_subscribers, which the workers gather; and the
// changes: reload, drain, undrain, loglevel, source), and the queue that
// carries the changes to the control thread.
//
// The control loop calls AfterTick() once per pass, after the control
// plane's tick: it runs the changes zgctl posted (never waiting for the
// socket thread: servo/api/control_requests.h), moves the drain state on,
// and publishes the service's snapshot (servo/control/snapshot_cell.h:
// never waiting for a reader either). Source changes go to the control
// plane's own queue (servo/control/source_change.h): the socket's thread
// builds the new source, the control thread applies it between two ticks.
//
// Every change is audited with the caller's uid (reload, drain, loglevel:
// config_change with the uid and pid; source: source_change).
//
//   ZG_ASSIGN_OR_RETURN(auto service, DaemonService::Start(options, hooks,
//                                                         &dataplane_view));
//   while (running) { control->Tick(); ...; service->AfterTick(ticks); }
#ifndef ZG_DATAPLANE_DAEMON_DAEMON_SERVICE_H_
#define ZG_DATAPLANE_DAEMON_DAEMON_SERVICE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_client_query.h"
#include "dataplane/daemon/config_reload.h"
#include "dataplane/daemon/flags/control_socket.h"
#include "dataplane/worker/pipeline.h"
#include "servo/api/command_table.h"
#include "servo/api/control_requests.h"
#include "servo/api/control_server.h"
#include "servo/api/service_status.h"
#include "servo/api/status_board.h"
#include "servo/control/control_plane.h"
#include "servo/control/tick_schedule.h"

namespace zg::dataplane {

class DaemonService {
 public:
  struct Options {
    ControlSocketConfig socket;  // path "": no socket (snapshots still kept)
    std::string audit_log;       // --audit_log, for `zgctl audit`
    std::string version;
  };
  struct Hooks {
    servo::ControlPlane* control = nullptr;  // snapshots and audit records
    // Control thread: what SIGHUP does (audit log reopen, leap file and
    // flagfile reload), recorded with `reason`.
    std::function<ReloadOutcome(const std::string& reason)> reload;
    // Control thread: zgctl ptp subscribers (PipelineFactory::
    // QueryPtpSubscribers); empty: unavailable.
    std::function<void(uint32_t top, PipelineFactory::PtpSubscribersDone)>
        ptp_subscribers;
    // Any thread (the socket's): zgctl clients (PipelineFactory::
    // QueryNtpClients); empty: unavailable.
    std::function<absl::StatusOr<nlohmann::json>(const core::NtpClientQuery&)>
        ntp_clients;
    // Control thread: zgctl drain (true) / undrain (false) by `who`,
    // applied at once to the drain state (FleetControl), and that state
    // with the anycast route's. Empty: the service keeps a drain state of
    // its own with no drain step (DRAINING -> DRAINED at the next tick).
    std::function<void(bool drain, const std::string& who)> drain;
    std::function<void(servo::ServiceStatus&)> fleet_status;
  };

  // Starts the control socket (an error stops zeitgeberd: a live socket at
  // the path, a bad group, ...). `dataplane` may be null; all pointers
  // must outlive the service.
  static absl::StatusOr<std::unique_ptr<DaemonService>> Start(
      Options options, Hooks hooks, const servo::DataplaneView* dataplane);
  ~DaemonService();

  // Control thread, once per loop pass, after the tick.
  void AfterTick(const servo::TickStats& tick);

  const servo::StatusBoard& board() const { return board_; }
  // Control thread: the drain state (for the draining alarm).
  servo::DrainState drain_state() const { return service_.drain; }
  const servo::CommandTable& commands() const { return table_; }
  // Any thread: work for the control thread, run after its next tick (the
  // status page's audit records).
  servo::ControlRequestQueue& requests() { return requests_; }

 private:
  DaemonService(Options options, Hooks hooks);
  absl::Status AddChangeCommands();
  absl::Status AddClientsCommand();
  // Control thread.
  servo::Reply Reload(const servo::Caller& who);
  servo::Reply SetDrain(bool drain, const servo::Caller& who);
  servo::Reply ChangeLogLevel(const std::string& level,
                              const servo::Caller& who);
  void Audit(const std::string& command, const servo::Caller& who,
             std::vector<std::pair<std::string, servo::AuditValue>> values);
  void Publish(const servo::TickStats& tick);

  Options options_;
  Hooks hooks_;
  servo::StatusBoard board_;
  servo::ControlRequestQueue requests_;
  servo::CommandTable table_;
  // Control thread only.
  servo::ServiceStatus service_;
  int64_t start_mono_ns_ = 0;
  // Declared last: destroyed (its thread stopped) first.
  std::unique_ptr<servo::ControlServer> server_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_DAEMON_SERVICE_H_
