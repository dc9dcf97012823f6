// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/access_swap.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"

namespace zg::dataplane {

std::string AccessPolicy::Describe() const {
  return absl::StrCat(list->description(), "; deny action ",
                      NtpDenyActionName(deny_action));
}

absl::StatusOr<std::unique_ptr<const AccessPolicy>> ReloadableAccessList::Build(
    const AccessConfig& config) const {
  const char* name = protocol_ == AccessProtocol::kNtp ? "ntp" : "ptp";
  ZG_ASSIGN_OR_RETURN(std::unique_ptr<AccessList> list,
                      AccessList::Create(Rules(config), name));
  auto policy = std::make_unique<AccessPolicy>();
  policy->list = std::move(list);
  policy->deny_action = config.ntp_deny_action;
  return std::unique_ptr<const AccessPolicy>(std::move(policy));
}

absl::Status ReloadableAccessList::Configure(const AccessConfig& config) {
  ZG_ASSIGN_OR_RETURN(std::unique_ptr<const AccessPolicy> first, Build(config));
  swap_ = std::make_unique<SwappableConfig<AccessPolicy>>(std::move(first),
                                                          epochs_);
  in_force_ = config;
  return absl::OkStatus();
}

absl::Status ReloadableAccessList::Reload(const ReloadArgs& reload) {
  if (swap_ == nullptr) {
    return absl::FailedPreconditionError(
        "ReloadableAccessList::Reload before Configure");
  }
  const AccessConfig& next = reload.config->access;
  const bool same_rules = Rules(next) == Rules(in_force_);
  if (same_rules && (protocol_ == AccessProtocol::kPtp ||
                     next.ntp_deny_action == in_force_.ntp_deny_action)) {
    return absl::OkStatus();  // nothing to publish
  }
  ZG_ASSIGN_OR_RETURN(std::unique_ptr<const AccessPolicy> built, Build(next));
  std::string change = built->Describe();
  reload.plan->Stage(std::move(change),
                     [this, next, built = std::move(built)]() mutable {
                       // Cannot fail: `built` is not null.
                       swap_->Publish(std::move(built)).IgnoreError();
                       in_force_ = next;
                     });
  return absl::OkStatus();
}

}  // namespace zg::dataplane
