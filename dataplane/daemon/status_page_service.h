// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's status page (dataplane/web/status_page.h) wired to the
// daemon:
//   - every view is a read command of the control socket's CommandTable,
//     run the same way the socket runs it, so the page's JSON is zgctl's;
//   - drain, undrain and reload from the page run the same commands, as a
//     change by the daemon's own user, for a user of --status_users, and
//     are audited (config_change) with that user and the peer's address;
//   - refused logins are audited (access_denied) through the control
//     thread's request queue (the web threads never write the audit log);
//   - the clock history samples the control plane's snapshot once a second
//     (tracking's offset, frequency and error bound).
// Nothing here runs on a worker or the control thread, and nothing here
// makes either wait: snapshots are read through SnapshotCell, requests are
// posted to a bounded queue the control thread only try-locks.
//
//   ZG_ASSIGN_OR_RETURN(auto page, StatusPageService::Start(flags, hooks));
//   page->Reload();   // SIGHUP: certificate, key and users file
#ifndef ZG_DATAPLANE_DAEMON_STATUS_PAGE_SERVICE_H_
#define ZG_DATAPLANE_DAEMON_STATUS_PAGE_SERVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "dataplane/daemon/flags/status_page.h"
#include "dataplane/web/status_page.h"
#include "servo/api/command_table.h"
#include "servo/api/control_requests.h"
#include "servo/control/control_plane.h"

namespace zg::dataplane {

class StatusPageService {
 public:
  struct Hooks {
    const servo::CommandTable* commands = nullptr;
    servo::ControlRequestQueue* requests = nullptr;  // audit records
    servo::ControlPlane* control = nullptr;  // snapshots; audit (control
                                             // thread, through `requests`)
    std::string audit_log;                   // --audit_log ("": none)
  };
  static absl::StatusOr<std::unique_ptr<StatusPageService>> Start(
      StatusPageFlags flags, Hooks hooks);

  int port() const { return page_->port(); }
  bool https() const { return page_->https(); }
  absl::Status Reload() { return page_->Reload(); }
  void Stop() { page_->Stop(); }

 private:
  explicit StatusPageService(Hooks hooks) : hooks_(std::move(hooks)) {}
  ApiReply Run(const std::string& command, const nlohmann::json& args,
               const servo::Caller& caller) const;

  Hooks hooks_;
  std::unique_ptr<StatusPage> page_;
};

// The HTTP status for a command's reply (200, or 4xx/5xx by error code).
int HttpStatusOf(const servo::Reply& reply);

// The installed libzgcivetwebssl.so, then the build tree's (dataplane/web/
// ssl_shim_paths.cc.in).
std::vector<std::string> CivetwebSslShimPaths();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_STATUS_PAGE_SERVICE_H_
