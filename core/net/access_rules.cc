// SPDX-License-Identifier: Apache-2.0
#include "core/net/access_rules.h"

#include <array>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/net/ip_prefix.h"

namespace zg::core {
namespace {

// A prefix as an ordered key: family, length, the 16 address bytes.
using PrefixKey = std::pair<int, std::array<uint8_t, 17>>;

PrefixKey KeyOf(const IpPrefix& p) {
  std::array<uint8_t, 17> k{};
  k[0] = p.length;
  if (p.addr.is_v6()) {
    std::memcpy(k.data() + 1, p.addr.v6.b.data(), 16);
  } else {
    p.addr.v4.Store(k.data() + 1);
  }
  return {static_cast<int>(p.addr.family), k};
}

absl::Status CheckMasked(const std::vector<IpPrefix>& prefixes,
                         absl::string_view flag) {
  for (const IpPrefix& p : prefixes) {
    const IpPrefix m = MaskPrefix(p);
    if (!(m == p)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": prefix ", p.ToString(),
                       " has host bits set; write ", m.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const char* AccessVerdictName(AccessVerdict v) {
  switch (v) {
    case AccessVerdict::kDenyDefault:
      return "deny_default";
    case AccessVerdict::kAllowDefault:
      return "allow_default";
    case AccessVerdict::kDenyRule:
      return "deny_rule";
    case AccessVerdict::kAllowRule:
      return "allow_rule";
  }
  return "unknown";
}

absl::Status ValidateAccessRules(const AccessRules& rules,
                                 absl::string_view list) {
  const std::string allow_flag = absl::StrCat("--", list, "_allow");
  const std::string deny_flag = absl::StrCat("--", list, "_deny");
  if (absl::Status s = CheckMasked(rules.allow, allow_flag); !s.ok()) return s;
  if (absl::Status s = CheckMasked(rules.deny, deny_flag); !s.ok()) return s;
  std::map<PrefixKey, bool> allowed;  // prefix -> in the allow list
  for (const IpPrefix& p : rules.allow) allowed.emplace(KeyOf(p), true);
  for (const IpPrefix& p : rules.deny) {
    if (allowed.count(KeyOf(p)) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("prefix ", p.ToString(), " is in both ", allow_flag,
                       " and ", deny_flag,
                       ": keep it in one (a more specific prefix in the other "
                       "list makes an exception)"));
    }
  }
  return absl::OkStatus();
}

AccessVerdict DecideByScan(const AccessRules& rules, const IpAddress& a) {
  int best_length = -1;
  bool best_allow = false;
  for (const auto* list : {&rules.allow, &rules.deny}) {
    const bool allow = list == &rules.allow;
    for (const IpPrefix& p : *list) {
      if (p.length > best_length && PrefixContains(p, a)) {
        best_length = p.length;
        best_allow = allow;
      }
    }
  }
  if (best_length < 0) return rules.default_verdict();
  return best_allow ? AccessVerdict::kAllowRule : AccessVerdict::kDenyRule;
}

std::string DescribeAccessRules(const AccessRules& rules) {
  int v4 = 0;
  int v6 = 0;
  for (const auto* list : {&rules.allow, &rules.deny}) {
    for (const IpPrefix& p : *list) (p.addr.is_v6() ? v6 : v4)++;
  }
  return absl::StrCat(rules.allow.size(), " allow, ", rules.deny.size(),
                      " deny (", v4, " IPv4, ", v6, " IPv6); default ",
                      rules.allow.empty() ? "allow" : "deny");
}

}  // namespace zg::core
