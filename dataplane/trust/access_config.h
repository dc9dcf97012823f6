// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's access-list configuration, as validated from its flags
// (dataplane/daemon/flags/trust.h): one core::AccessRules per protocol and
// what a denied NTP client gets. The control thread builds one
// dataplane::AccessList (access_list.h) per protocol from it, at start-up and
// again on each reload.
//
//   AccessConfig c = ...;                        // DaemonConfig::access
//   ZG_ASSIGN_OR_RETURN(auto ntp_acl, AccessList::Create(c.ntp, "ntp"));
//   ZG_ASSIGN_OR_RETURN(auto ptp_acl, AccessList::Create(c.ptp, "ptp"));
//   if (c.ntp_deny_action == NtpDenyAction::kKod) { /* KoD DENY */ }
//
// Plain data, no DPDK: copied by value; written by the flag parser on the
// control thread, read by whoever builds the lists.
#ifndef ZG_DATAPLANE_TRUST_ACCESS_CONFIG_H_
#define ZG_DATAPLANE_TRUST_ACCESS_CONFIG_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/net/access_rules.h"

namespace zg::dataplane {

// --ntp_deny_action: what an NTP request from a denied source gets.
enum class NtpDenyAction : uint8_t {
  kDrop = 0,  // nothing (the default; a spoofed source learns nothing)
  kKod = 1,   // a Kiss-o'-Death DENY (stratum 0, refid "DENY"), rate-limited
};

struct AccessConfig {
  core::AccessRules ntp;  // --ntp_allow / --ntp_deny
  core::AccessRules ptp;  // --ptp_allow / --ptp_deny (unicast negotiation)
  NtpDenyAction ntp_deny_action = NtpDenyAction::kDrop;  // --ntp_deny_action

  friend bool operator==(const AccessConfig&, const AccessConfig&) = default;
};

// "drop" or "kod" (any case).
absl::StatusOr<NtpDenyAction> ParseNtpDenyAction(absl::string_view text);
const char* NtpDenyActionName(NtpDenyAction a);  // "drop" / "kod"

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_ACCESS_CONFIG_H_
