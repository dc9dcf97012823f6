#include "dataplane/daemon/access_flags.h"

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/net/ip_prefix.h"
#include "dataplane/daemon/flags.h"

// Declared for abseil's parser (and --help); their values are read from the
// raw arguments by CollectRepeatedFlag, which sees every occurrence.
ABSL_FLAG(std::string, ntp_allow, "",
          "Prefixes allowed to query NTP (192.0.2.0/24, 2001:db8::/32, an "
          "address, or all); repeatable, comma-separated. With any allow "
          "rule, an address no rule matches is denied. The most specific "
          "prefix in --ntp_allow/--ntp_deny wins.");
ABSL_FLAG(std::string, ntp_deny, "",
          "Prefixes denied NTP service; repeatable, comma-separated. Without "
          "--ntp_allow, every address not denied is served.");
ABSL_FLAG(std::string, ptp_allow, "",
          "Prefixes allowed to negotiate PTP unicast, as --ntp_allow.");
ABSL_FLAG(std::string, ptp_deny, "",
          "Prefixes refused PTP unicast negotiation, as --ntp_deny.");
ABSL_FLAG(std::string, ntp_deny_action, "drop",
          "What an NTP request from a denied address gets: drop (nothing) or "
          "kod (a Kiss-o'-Death DENY, rate-limited).");

namespace zg::dataplane {
namespace {

// Every prefix in every occurrence of --FLAG.
absl::StatusOr<std::vector<core::IpPrefix>> Prefixes(
    const std::vector<std::string>& values, const char* flag) {
  std::vector<core::IpPrefix> out;
  for (const std::string& value : values) {
    absl::StatusOr<std::vector<core::IpPrefix>> list =
        core::ParseNetworkPrefixList(value);
    if (!list.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, "=", value, ": ", list.status().message()));
    }
    out.insert(out.end(), list->begin(), list->end());
  }
  return out;
}

}  // namespace

absl::StatusOr<AccessConfig> AccessConfigFromFlags(const AccessFlagValues& v) {
  AccessConfig c;
  ZG_ASSIGN_OR_RETURN(c.ntp.allow, Prefixes(v.ntp_allow, "ntp_allow"));
  ZG_ASSIGN_OR_RETURN(c.ntp.deny, Prefixes(v.ntp_deny, "ntp_deny"));
  ZG_ASSIGN_OR_RETURN(c.ptp.allow, Prefixes(v.ptp_allow, "ptp_allow"));
  ZG_ASSIGN_OR_RETURN(c.ptp.deny, Prefixes(v.ptp_deny, "ptp_deny"));
  ZG_RETURN_IF_ERROR(core::ValidateAccessRules(c.ntp, "ntp"));
  ZG_RETURN_IF_ERROR(core::ValidateAccessRules(c.ptp, "ptp"));
  ZG_ASSIGN_OR_RETURN(c.ntp_deny_action, ParseNtpDenyAction(v.ntp_deny_action));
  return c;
}

absl::StatusOr<AccessFlagValues> CollectAccessFlags(
    const std::vector<std::string>& args) {
  AccessFlagValues v;
  ZG_ASSIGN_OR_RETURN(v.ntp_allow, CollectRepeatedFlag(args, "ntp_allow"));
  ZG_ASSIGN_OR_RETURN(v.ntp_deny, CollectRepeatedFlag(args, "ntp_deny"));
  ZG_ASSIGN_OR_RETURN(v.ptp_allow, CollectRepeatedFlag(args, "ptp_allow"));
  ZG_ASSIGN_OR_RETURN(v.ptp_deny, CollectRepeatedFlag(args, "ptp_deny"));
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> actions,
                      CollectRepeatedFlag(args, "ntp_deny_action"));
  if (!actions.empty()) v.ntp_deny_action = actions.back();
  return v;
}

absl::StatusOr<AccessConfig> ParseAccessFlags(
    const std::vector<std::string>& args) {
  ZG_ASSIGN_OR_RETURN(const AccessFlagValues v, CollectAccessFlags(args));
  return AccessConfigFromFlags(v);
}

}  // namespace zg::dataplane
