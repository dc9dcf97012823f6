#include "dataplane/daemon/ntp_trust_flags.h"

#include "absl/flags/flag.h"

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

namespace zg::dataplane {

absl::StatusOr<NtpTrustConfig> ReadNtpTrustFlags() {
  return BuildNtpTrustConfig(absl::GetFlag(FLAGS_ntp_ratelimit),
                             absl::GetFlag(FLAGS_ntp_ratelimit_kod),
                             absl::GetFlag(FLAGS_ntp_clients_max));
}

}  // namespace zg::dataplane
