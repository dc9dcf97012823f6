// SPDX-License-Identifier: Apache-2.0
// --source on reload: dataplane/daemon/source_reload.h.
#include "dataplane/daemon/source_reload.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags/sources.h"

namespace zg::dataplane {

absl::Status SourceReload::Reload(const ReloadArgs& reload) {
  last_result_.reset();
  servo::SourceChangeRequest request;
  request.action = servo::SourceAction::kReplaceAll;
  ZG_ASSIGN_OR_RETURN(request.specs, SourceFlagValues(reload.args));
  request.origin = "reload";
  request.from_flagfile = true;
  ZG_ASSIGN_OR_RETURN(servo::PreparedSourceChange change,
                      control_->PrepareSourceChangeNow(std::move(request)));
  if (!change.changes_anything) return absl::OkStatus();
  const std::string in_force =
      absl::StrCat("sources: ", absl::StrJoin(change.names_after, ", "));
  reload.plan->Stage(in_force, [this, change = std::move(change)]() mutable {
    last_result_ = control_->CommitSourceChange(std::move(change));
  });
  return absl::OkStatus();
}

}  // namespace zg::dataplane
