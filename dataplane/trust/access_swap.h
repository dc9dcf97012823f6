// SPDX-License-Identifier: Apache-2.0
// One protocol's access list, reloadable: the AccessList (access_list.h)
// built from DaemonConfig::access at start-up and rebuilt from the re-read
// flags on SIGHUP, published through SwappableConfig (config_swap.h) so
// workers switch at a burst boundary and the old tables are freed after the
// grace period. The NTP policy and PTP negotiation each hold one.
//
//   ReloadableAccessList acl(AccessProtocol::kNtp);
//   ZG_RETURN_IF_ERROR(acl.Configure(config.access));    // Configure()
//   ZG_RETURN_IF_ERROR(acl.Reload(reload));              // Reload(): stages
//   // worker, per request (the pointer is good until the next burst):
//   const AccessPolicy* p = acl.Current();
//   if (!core::IsAllowed(p->list->Check(info.src_ipv4))) {
//     if (p->deny_action == NtpDenyAction::kKod) { /* KoD DENY */ }
//   }
//
// Threads: Configure and Reload on the control thread; Current on workers.
#ifndef ZG_DATAPLANE_TRUST_ACCESS_SWAP_H_
#define ZG_DATAPLANE_TRUST_ACCESS_SWAP_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "dataplane/trust/access_config.h"
#include "dataplane/trust/access_list.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/trust/reload.h"

namespace zg::dataplane {

enum class AccessProtocol : uint8_t { kNtp, kPtp };

// What a worker reads: immutable once published.
struct AccessPolicy {
  std::unique_ptr<const AccessList> list;            // never null
  NtpDenyAction deny_action = NtpDenyAction::kDrop;  // NTP only
  std::string Describe() const;  // for the log and the audit log
};

class ReloadableAccessList {
 public:
  explicit ReloadableAccessList(AccessProtocol protocol,
                                ReaderEpochs* epochs = &DataplaneEpochs())
      : protocol_(protocol), epochs_(epochs) {}

  // Builds the first list (control thread, after the EAL starts and before
  // any worker runs).
  absl::Status Configure(const AccessConfig& config);
  // Builds and validates the list of reload.config->access and stages its
  // publication (skipped when the rules did not change). An error rejects
  // the reload.
  absl::Status Reload(const ReloadArgs& reload);

  // Worker: the list in force; null before Configure.
  const AccessPolicy* Current() const {
    return swap_ ? swap_->Current() : nullptr;
  }
  bool configured() const { return swap_ != nullptr; }
  // Frees the list (control thread; workers stopped, EAL still up).
  void Reset() { swap_.reset(); }

 private:
  absl::StatusOr<std::unique_ptr<const AccessPolicy>> Build(
      const AccessConfig& config) const;
  const core::AccessRules& Rules(const AccessConfig& c) const {
    return protocol_ == AccessProtocol::kNtp ? c.ntp : c.ptp;
  }

  AccessProtocol protocol_;
  ReaderEpochs* epochs_;
  AccessConfig in_force_;  // control thread: what Current() was built from
  std::unique_ptr<SwappableConfig<AccessPolicy>> swap_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_ACCESS_SWAP_H_
