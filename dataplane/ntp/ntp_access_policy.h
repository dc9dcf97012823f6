// The NTP access list as an NtpRequestPolicy (dataplane/ntp/ntp_policy.h),
// reloadable on SIGHUP: --ntp_allow/--ntp_deny decide per source address
// (dataplane/trust/access_list.h), a denied request is dropped (counted as
// frames_dropped_total{reason="ntp_access_denied"}) or, with
// --ntp_deny_action=kod, answered with a Kiss-o'-Death DENY, at most
// kDenyKodPerSecond a second per worker (a spoofed flood never gets one KoD
// per request). An allowed request goes on to the next policy (the rate
// limiter), if any: order ACL, then rate limit.
//
// The list lives in a ReloadableAccessList (dataplane/trust/access_swap.h)
// shared by every worker's policy: Configure takes DaemonConfig::access,
// RegisterNames builds it (the tables need the EAL, which starts after
// Configure), Reload rebuilds it from the re-read flags, and each
// Check reads the one in force (one atomic load). The policy is installed
// even when no rule is configured, so a reload can add the first rule; an
// empty list costs one load and no table lookup.
//
//   NtpAccessPolicyFactory acl(/*next=*/&rate_limiter);   // or nullptr
//   ProtocolPipelineFactory::Options o;
//   o.ntp_policy = &acl;
#ifndef ZG_DATAPLANE_NTP_NTP_ACCESS_POLICY_H_
#define ZG_DATAPLANE_NTP_NTP_ACCESS_POLICY_H_

#include <cstdint>
#include <memory>

#include "dataplane/ntp/ntp_policy.h"
#include "dataplane/trust/access_swap.h"

namespace zg::dataplane {

inline constexpr int64_t kDenyKodPerSecond = 100;  // per worker

// One worker's policy: used by that worker alone.
class NtpAccessPolicy final : public NtpRequestPolicy {
 public:
  NtpAccessPolicy(const ReloadableAccessList* acl,
                  std::unique_ptr<NtpRequestPolicy> next, uint8_t drop_denied)
      : acl_(acl), next_(std::move(next)), drop_denied_(drop_denied) {}

  NtpPolicyVerdict Check(const core::FrameInfo& request,
                         const core::NtpRequestCheck& check,
                         core::TaiNs rx_time) override;

 private:
  bool TakeKodToken(core::TaiNs now);

  const ReloadableAccessList* acl_;         // the factory's; read per request
  std::unique_ptr<NtpRequestPolicy> next_;  // may be null
  uint8_t drop_denied_;
  // KoD DENY budget (this worker only).
  int64_t kod_tokens_ = kDenyKodPerSecond;
  int64_t kod_refill_ns_ = 0;
};

class NtpAccessPolicyFactory final : public NtpPolicyFactory {
 public:
  // `next` (may be null) must outlive this factory.
  explicit NtpAccessPolicyFactory(NtpPolicyFactory* next = nullptr)
      : next_(next) {}

  absl::Status Configure(const DaemonConfig& config) override;
  absl::Status RegisterNames(CounterNames& names) override;
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup& setup) override;
  // --ntp_allow, --ntp_deny, --ntp_deny_action, and the next policy's.
  std::vector<std::string> ReloadableFlags() const override;
  absl::Status Reload(const ReloadArgs& reload) override;
  void Shutdown() override;

  const ReloadableAccessList& acl() const { return acl_; }
  uint8_t drop_denied() const { return drop_denied_; }

 private:
  NtpPolicyFactory* next_;
  AccessConfig access_;  // from Configure, until RegisterNames builds it
  ReloadableAccessList acl_{AccessProtocol::kNtp};
  uint8_t drop_denied_ = 0;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_ACCESS_POLICY_H_
