// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's trust flags, the "Trust" group of `zeitgeberd -- --help`:
// who may use the server and how much, and the NTP symmetric keys.
//
// Access lists, validated into an AccessConfig (dataplane/trust/
// access_config.h):
//
//   --ntp_allow=PREFIXES  --ntp_deny=PREFIXES      who may query NTP
//   --ptp_allow=PREFIXES  --ptp_deny=PREFIXES      who may negotiate PTP
//   --ntp_deny_action=drop|kod                     what a denied NTP client
//                                                  gets
//
// PREFIXES is a comma-separated list of 192.0.2.0/24, 2001:db8::/32, a bare
// address (one host) or "all" (0.0.0.0/0 and ::/0). The four list flags may
// be repeated and every occurrence counts, flagfiles included (as --address);
// for --ntp_deny_action the last one counts. Semantics (most specific prefix
// wins; no allow rule means open): core/net/access_rules.h, doc/deployment.md.
//
//   zeitgeberd ... -- --ntp_allow=10.0.0.0/8,2001:db8::/32
//       --ntp_deny=10.66.0.0/16 --ntp_deny_action=kod --ptp_allow=10.1.0.0/16
//
// ParseAccessFlags reads only `args` and the flagfiles they name, never
// abseil's parsed state, so a reload can call it again with the same args and
// pick up an edited flagfile:
//
//   ZG_ASSIGN_OR_RETURN(AccessConfig c, ParseAccessFlags(args));
//
// NTP rate limiting, validated into an NtpTrustConfig (dataplane/ntp/
// ntp_trust_policy.h) after the command line is parsed (the NTP trust
// plugin's Configure hook):
//
//   --ntp_ratelimit=interval=I,burst=B,leak=L   per-client rate limit with
//                           chrony's semantics; "on": chrony's defaults
//                           (interval=3,burst=8,leak=2); "" or "off": none
//   --ntp_ratelimit_kod     answer excess requests with KoD RATE (at most
//                           one per client per max(2^I, 1) s) instead of
//                           silence (default false)
//   --ntp_clients_max       clients tracked, all workers together (default
//                           1000000; 16 bytes each)
//
// The symmetric-key file (chrony's keyfile format, core/ntp/ntp_keys.h) that
// NTP requests with a MAC are checked against (dataplane/ntp/ntp_auth.h):
//
//   --ntp_keys=/etc/zeitgeber/ntp.keys   (mode 0600 or 0400)
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_TRUST_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_TRUST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "dataplane/ntp/ntp_trust_policy.h"
#include "dataplane/trust/access_config.h"

ABSL_DECLARE_FLAG(std::string, ntp_ratelimit);
ABSL_DECLARE_FLAG(bool, ntp_ratelimit_kod);
ABSL_DECLARE_FLAG(uint64_t, ntp_clients_max);

namespace zg::dataplane {

// The raw values, every occurrence in order.
struct AccessFlagValues {
  std::vector<std::string> ntp_allow;
  std::vector<std::string> ntp_deny;
  std::vector<std::string> ptp_allow;
  std::vector<std::string> ptp_deny;
  std::string ntp_deny_action = "drop";
};

// Pure: parses and validates the values. Errors name the flag and the value
// (a malformed prefix, host bits set, a prefix both allowed and denied, an
// unknown deny action).
absl::StatusOr<AccessConfig> AccessConfigFromFlags(const AccessFlagValues& v);

// Gathers the values from `args` (zeitgeberd's flags after "--", without the
// program name) and the flagfiles they name (read now).
absl::StatusOr<AccessFlagValues> CollectAccessFlags(
    const std::vector<std::string>& args);

// CollectAccessFlags, then AccessConfigFromFlags.
absl::StatusOr<AccessConfig> ParseAccessFlags(
    const std::vector<std::string>& args);

// The rate-limit flags' current values, validated.
absl::StatusOr<NtpTrustConfig> ReadNtpTrustFlags();

// The value of --ntp_keys ("" when unset: no keys, MACed requests dropped).
std::string NtpKeysFlag();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_TRUST_H_
