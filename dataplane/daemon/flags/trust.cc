// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/trust.h"

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/net/ip_prefix.h"
#include "dataplane/trust/reload.h"

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
ABSL_FLAG(std::string, ntp_ratelimit, "",
          "Per-client NTP rate limit, chrony's ratelimit: "
          "interval=I,burst=B,leak=L (I: log2 s between replies, may be "
          "negative; B: burst; 1 in 2^L excess requests still answered); "
          "'on' for chrony's defaults interval=3,burst=8,leak=2; '' or 'off' "
          "for none");
ABSL_FLAG(bool, ntp_ratelimit_kod, false,
          "Answer rate-limited NTP requests with Kiss-o'-Death RATE (at most "
          "one per client per max(2^interval, 1) s) instead of dropping them");
ABSL_FLAG(uint64_t, ntp_clients_max, zg::dataplane::kNtpClientsMaxDefault,
          "NTP clients the rate limiter tracks, all workers together (16 "
          "bytes each; split evenly between workers); a full bucket evicts "
          "its least recently seen client");
ABSL_FLAG(std::string, ntp_keys, "",
          "Symmetric NTP keys (chrony keyfile format: 'ID TYPE KEY' per line, "
          "TYPE AES128, AES256, SHA1 or MD5, KEY HEX:... or ASCII:...). The "
          "file must be readable by its owner only. Requests with a MAC are "
          "answered with a reply MACed by the same key; unset: requests with "
          "a MAC are dropped.");

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

absl::StatusOr<NtpTrustConfig> ReadNtpTrustFlags() {
  return BuildNtpTrustConfig(absl::GetFlag(FLAGS_ntp_ratelimit),
                             absl::GetFlag(FLAGS_ntp_ratelimit_kod),
                             absl::GetFlag(FLAGS_ntp_clients_max));
}

std::string NtpKeysFlag() { return absl::GetFlag(FLAGS_ntp_keys); }

}  // namespace zg::dataplane
