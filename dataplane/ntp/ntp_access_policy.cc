#include "dataplane/ntp/ntp_access_policy.h"

#include <algorithm>

#include "core/base/status_macros.h"
#include "core/ntp/ntp_wire.h"

namespace zg::dataplane {

NtpPolicyVerdict NtpAccessPolicy::Check(const core::FrameInfo& request,
                                        const core::NtpRequestCheck& check,
                                        core::TaiNs rx_time) {
  const AccessPolicy* p = acl_->Current();
  const core::AccessVerdict v = request.ip_version == 6
                                    ? p->list->Check(request.src_ipv6)
                                    : p->list->Check(request.src_ipv4);
  if (!core::IsAllowed(v)) {
    if (p->deny_action == NtpDenyAction::kKod && TakeKodToken(rx_time)) {
      return NtpPolicyVerdict::Kiss(core::kNtpKissDeny, /*min_poll_log2=*/6);
    }
    return NtpPolicyVerdict::Drop(drop_denied_);
  }
  return next_ ? next_->Check(request, check, rx_time)
               : NtpPolicyVerdict::Answer();
}

bool NtpAccessPolicy::TakeKodToken(core::TaiNs now) {
  constexpr int64_t kNsPerToken = core::kNanosPerSecond / kDenyKodPerSecond;
  const int64_t t = now.value;
  if (kod_refill_ns_ == 0 || t < kod_refill_ns_) kod_refill_ns_ = t;
  const int64_t earned = (t - kod_refill_ns_) / kNsPerToken;
  if (earned > 0) {
    kod_tokens_ = std::min(kDenyKodPerSecond, kod_tokens_ + earned);
    kod_refill_ns_ += earned * kNsPerToken;
  }
  if (kod_tokens_ == 0) return false;
  --kod_tokens_;
  return true;
}

absl::Status NtpAccessPolicyFactory::Configure(const DaemonConfig& config) {
  access_ = config.access;  // built in RegisterNames, once the EAL runs
  return next_ != nullptr ? next_->Configure(config) : absl::OkStatus();
}

absl::Status NtpAccessPolicyFactory::RegisterNames(CounterNames& names) {
  ZG_RETURN_IF_ERROR(acl_.Configure(access_));
  ZG_ASSIGN_OR_RETURN(drop_denied_,
                      names.AddDropReasons("ntp", {"access_denied"}));
  return next_ != nullptr ? next_->RegisterNames(names) : absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<NtpRequestPolicy>>
NtpAccessPolicyFactory::Create(const WorkerSetup& setup) {
  if (!acl_.configured()) {
    return absl::FailedPreconditionError(
        "NtpAccessPolicyFactory::Create before Configure");
  }
  std::unique_ptr<NtpRequestPolicy> next;
  if (next_ != nullptr) {
    ZG_ASSIGN_OR_RETURN(next, next_->Create(setup));
  }
  return std::make_unique<NtpAccessPolicy>(&acl_, std::move(next),
                                           drop_denied_);
}

std::vector<std::string> NtpAccessPolicyFactory::ReloadableFlags() const {
  std::vector<std::string> flags = {"ntp_allow", "ntp_deny", "ntp_deny_action"};
  if (next_ != nullptr) {
    for (std::string& f : next_->ReloadableFlags())
      flags.push_back(std::move(f));
  }
  return flags;
}

void NtpAccessPolicyFactory::Shutdown() {
  acl_.Reset();
  if (next_ != nullptr) next_->Shutdown();
}

absl::Status NtpAccessPolicyFactory::Reload(const ReloadArgs& reload) {
  ZG_RETURN_IF_ERROR(acl_.Reload(reload));
  return next_ != nullptr ? next_->Reload(reload) : absl::OkStatus();
}

}  // namespace zg::dataplane
