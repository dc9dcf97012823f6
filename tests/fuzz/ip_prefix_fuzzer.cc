// SPDX-License-Identifier: Apache-2.0
// Fuzzes the access-list prefix parsers (core/net/ip_prefix.h:
// ParseNetworkPrefix, ParseNetworkPrefixList) and the rules built from them
// (core/net/access_rules.h) with any bytes as text. The input is split at the
// first '|' into an allow list and a deny list. Checks:
//  - no crash or UB (ASan/UBSan), whatever the bytes; every error has a
//    message;
//  - an accepted prefix has no host bits, its length is in range, and it
//    formats (ToString) to text that parses back to the same prefix;
//  - an accepted list, formatted as comma-joined prefixes, parses back to
//    the same list;
//  - for valid rules, each host rule (/32, /128) decides its own address,
//    and an address under no rule gets the list's default.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/net/access_rules.h"
#include "core/net/ip_prefix.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

std::string Join(const std::vector<IpPrefix>& list) {
  return absl::StrJoin(list, ",", [](std::string* out, const IpPrefix& p) {
    out->append(p.ToString());
  });
}

void CheckOne(absl::string_view text) {
  const absl::StatusOr<IpPrefix> p = ParseNetworkPrefix(text);
  if (!p.ok()) {
    ZG_FUZZ_CHECK(!p.status().message().empty());
    return;
  }
  ZG_FUZZ_CHECK(p->length <= (p->addr.is_v6() ? 128 : 32));
  ZG_FUZZ_CHECK(MaskPrefix(*p) == *p);
  ZG_FUZZ_CHECK(PrefixContains(*p, p->addr));
  const absl::StatusOr<IpPrefix> again = ParseNetworkPrefix(p->ToString());
  ZG_FUZZ_CHECK(again.ok() && *again == *p);
}

absl::StatusOr<std::vector<IpPrefix>> CheckList(absl::string_view text) {
  absl::StatusOr<std::vector<IpPrefix>> list = ParseNetworkPrefixList(text);
  if (!list.ok()) {
    ZG_FUZZ_CHECK(!list.status().message().empty());
    return list;
  }
  for (const IpPrefix& p : *list) ZG_FUZZ_CHECK(MaskPrefix(p) == p);
  const absl::StatusOr<std::vector<IpPrefix>> again =
      ParseNetworkPrefixList(Join(*list));
  ZG_FUZZ_CHECK(again.ok() && *again == *list);
  return list;
}

void CheckRules(const AccessRules& rules) {
  if (!ValidateAccessRules(rules, "ntp").ok()) return;
  for (const auto* list : {&rules.allow, &rules.deny}) {
    const AccessVerdict want = list == &rules.allow ? AccessVerdict::kAllowRule
                                                    : AccessVerdict::kDenyRule;
    for (const IpPrefix& p : *list) {
      if (p.length == (p.addr.is_v6() ? 128 : 32)) {
        ZG_FUZZ_CHECK(DecideByScan(rules, p.addr) == want);
      }
    }
  }
  // 0.0.0.0 and :: are under a rule only if a /0 or a prefix of zeros is.
  for (const IpAddress& a : {IpAddress::V4(Ipv4Addr{}), IpAddress::V6({})}) {
    bool covered = false;
    for (const auto* list : {&rules.allow, &rules.deny}) {
      for (const IpPrefix& p : *list) covered |= PrefixContains(p, a);
    }
    const AccessVerdict v = DecideByScan(rules, a);
    ZG_FUZZ_CHECK(covered == IsByRule(v));
    if (!covered) ZG_FUZZ_CHECK(v == rules.default_verdict());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  CheckOne(text);
  const size_t bar = text.find('|');
  const absl::string_view allow_text = text.substr(0, bar);
  const absl::string_view deny_text =
      bar == absl::string_view::npos ? "" : text.substr(bar + 1);
  absl::StatusOr<std::vector<IpPrefix>> allow = CheckList(allow_text);
  absl::StatusOr<std::vector<IpPrefix>> deny = CheckList(deny_text);
  if (allow.ok() && deny.ok()) CheckRules({*allow, *deny});
  return 0;
}
