// SPDX-License-Identifier: Apache-2.0
// The reference sources as one more component of zeitgeberd's flagfile
// reload (SIGHUP, `zgctl reload`; dataplane/daemon/config_reload.h): --source
// is reloadable. Reload re-reads every --source, has the control plane build
// what is new and check the whole set (servo::ControlPlane::
// PrepareSourceChangeNow), and stages its replacement, which the reloader
// commits only if every component accepted its part: added sources start,
// removed ones go (a selected one hands over as a lost source does, with no
// step), changed ones are rebuilt, a new priority applies in place, and a
// source disabled or re-prioritised by zgctl takes the flagfile's settings
// again. A bad --source rejects the reload; the sources in force stay.
//
//   SourceReload sources(control.get());
//   sources.ReloadableFlags();   // {"source"}
//   ZG_RETURN_IF_ERROR(sources.Reload(reload_args));   // stages
//   ... reload_args.plan->Commit();
//   sources.last_result();       // what the latest reload did to them
//
// Control thread only.
#ifndef ZG_DATAPLANE_DAEMON_SOURCE_RELOAD_H_
#define ZG_DATAPLANE_DAEMON_SOURCE_RELOAD_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dataplane/trust/reload.h"
#include "servo/control/control_plane.h"
#include "servo/control/source_change.h"

namespace zg::dataplane {

class SourceReload {
 public:
  explicit SourceReload(servo::ControlPlane* control) : control_(control) {}

  std::vector<std::string> ReloadableFlags() const { return {"source"}; }
  absl::Status Reload(const ReloadArgs& reload);

  // What the latest reload did to the sources: none when it left them as
  // they were or was rejected as a whole.
  const std::optional<servo::SourceChangeResult>& last_result() const {
    return last_result_;
  }

 private:
  servo::ControlPlane* control_;
  std::optional<servo::SourceChangeResult> last_result_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_SOURCE_RELOAD_H_
