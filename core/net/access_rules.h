// SPDX-License-Identifier: Apache-2.0
// What an access list means (--ntp_allow/--ntp_deny, --ptp_allow/--ptp_deny),
// as plain C++: the rules, their validation, and a reference decision that
// scans every rule. dataplane::AccessList (dataplane/trust/access_list.h)
// answers the same question in O(1) with DPDK's rte_lpm/rte_lpm6; its tests
// hold it to DecideByScan.
//
// Semantics, as chrony's allow/deny:
//  - the most specific (longest) prefix that contains the address decides;
//  - the same prefix both allowed and denied is a configuration error;
//  - no allow rule at all: every address no deny rule matches is allowed (no
//    access list configured means open, as zeitgeberd has always been);
//  - at least one allow rule (of either family): an address no rule matches is
//    denied, so --ntp_allow=10.0.0.0/8 alone also shuts out IPv6;
//  - a /0 rule (0.0.0.0/0, ::/0, "all") is a rule: it decides for its family
//    where nothing more specific does.
//
//   AccessRules r{.allow = {10.0.0.0/8}, .deny = {10.9.0.0/16}};
//   ZG_RETURN_IF_ERROR(ValidateAccessRules(r, "ntp"));
//   DecideByScan(r, 10.9.1.1) == AccessVerdict::kDenyRule
//   DecideByScan(r, 10.1.1.1) == AccessVerdict::kAllowRule
//   DecideByScan(r, 192.0.2.1) == AccessVerdict::kDenyDefault
#ifndef ZG_CORE_NET_ACCESS_RULES_H_
#define ZG_CORE_NET_ACCESS_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/net/net_headers.h"

namespace zg::core {

// The outcome of one lookup: allowed or not (bit 0), and whether a rule or
// the list's default decided (bit 1). The values index per-verdict counters
// ("ACL hits" metrics): counters[static_cast<int>(v)].
enum class AccessVerdict : uint8_t {
  kDenyDefault = 0,   // no rule matched; the list has allow rules
  kAllowDefault = 1,  // no rule matched; the list has no allow rule
  kDenyRule = 2,      // the most specific matching rule is a deny
  kAllowRule = 3,     // the most specific matching rule is an allow
};
inline constexpr int kAccessVerdictCount = 4;

constexpr bool IsAllowed(AccessVerdict v) {
  return (static_cast<uint8_t>(v) & 1) != 0;
}
constexpr bool IsByRule(AccessVerdict v) {
  return (static_cast<uint8_t>(v) & 2) != 0;
}
// "deny_default", "allow_default", "deny_rule", "allow_rule" (metric labels).
const char* AccessVerdictName(AccessVerdict v);

// One access list. Prefixes have no host bits set (ParseNetworkPrefix in
// core/net/ip_prefix.h makes sure); either family, in any order, duplicates
// allowed.
struct AccessRules {
  std::vector<IpPrefix> allow;
  std::vector<IpPrefix> deny;

  bool empty() const { return allow.empty() && deny.empty(); }
  // The verdict where no rule matches.
  AccessVerdict default_verdict() const {
    return allow.empty() ? AccessVerdict::kAllowDefault
                         : AccessVerdict::kDenyDefault;
  }
  friend bool operator==(const AccessRules&, const AccessRules&) = default;
};

// OK, or the first problem, named for the operator with `list` ("ntp"
// gives "--ntp_allow" / "--ntp_deny"): a prefix with host bits set, or one
// that is both allowed and denied.
absl::Status ValidateAccessRules(const AccessRules& rules,
                                 absl::string_view list);

// The reference decision: scans every rule (O(rules); tests and fuzzing, not
// the data plane). Rules are assumed valid.
AccessVerdict DecideByScan(const AccessRules& rules, const IpAddress& a);

// "3 allow, 1 deny (2 IPv4, 2 IPv6); default deny" for logs.
std::string DescribeAccessRules(const AccessRules& rules);

}  // namespace zg::core

#endif  // ZG_CORE_NET_ACCESS_RULES_H_
