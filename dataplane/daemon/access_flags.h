// zeitgeberd's access-list flags, validated into an AccessConfig
// (dataplane/trust/access_config.h):
//
//   --ntp_allow=PREFIXES  --ntp_deny=PREFIXES      who may query NTP
//   --ptp_allow=PREFIXES  --ptp_deny=PREFIXES      who may negotiate PTP
//   --ntp_deny_action=drop|kod                     what a denied NTP client
//   gets
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
#ifndef ZG_DATAPLANE_DAEMON_ACCESS_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_ACCESS_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dataplane/trust/access_config.h"

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

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_ACCESS_FLAGS_H_
