// zeitgeberd's NTP trust flags (rate limiting; the access-list flags live
// with the access list), validated into an NtpTrustConfig
// (dataplane/ntp/ntp_trust_policy.h). Read after the command line is parsed
// (the NTP trust plugin's Configure hook); errors name the flag.
//
//   --ntp_ratelimit=interval=I,burst=B,leak=L   per-client rate limit with
//                           chrony's semantics; "on": chrony's defaults
//                           (interval=3,burst=8,leak=2); "" or "off": none
//   --ntp_ratelimit_kod     answer excess requests with KoD RATE (at most
//                           one per client per max(2^I, 1) s) instead of
//                           silence (default false)
//   --ntp_clients_max       clients tracked, all workers together (default
//                           1000000; 16 bytes each)
#ifndef ZG_DATAPLANE_DAEMON_NTP_TRUST_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_NTP_TRUST_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "dataplane/ntp/ntp_trust_policy.h"

ABSL_DECLARE_FLAG(std::string, ntp_ratelimit);
ABSL_DECLARE_FLAG(bool, ntp_ratelimit_kod);
ABSL_DECLARE_FLAG(uint64_t, ntp_clients_max);

namespace zg::dataplane {

// The flags' current values, validated.
absl::StatusOr<NtpTrustConfig> ReadNtpTrustFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NTP_TRUST_FLAGS_H_
