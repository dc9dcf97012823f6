// zeitgeberd's NTS cookie-key flags (RFC 8915): the master key
// file every server of a fleet shares, the period of the derived cookie
// keys and the window of periods accepted. Read by the NTS factory
// (dataplane/ntp/nts_auth.h) for the workers and by the NTS-KE server for
// the cookies it hands out.
//
//   --nts_master_key=/etc/zeitgeber/nts.key   owner-only, >= 32 random bytes
//                              ("" or unset: NTS off, NTS requests dropped)
//   --nts_key_period=1d        period of the cookie keys: seconds ("86400")
//                              or an absl duration ("24h"); >= 1 s
//   --nts_key_window=2,1       periods accepted before and after the current
//                              one (each 0..16)
//   --nts_max_cookies_per_reply=8   new cookies in a reply at most (1..8):
//                              one per cookie and placeholder received, as
//                              RFC 8915 5.7 says, up to this; every cookie
//                              costs a seal, so a request of many
//                              placeholders costs more (fewer here: less)
//
// Window default 2,1: a client that got its cookies just before a boundary
// (they last as long as it keeps polling: every reply brings new ones)
// comes back within two more periods, days with the default period, and a
// fleet member whose clock is a little ahead at a boundary seals with the
// next period's key, which the others accept one period early.
//
//   ZG_ASSIGN_OR_RETURN(c.nts, ReadNtsFlags());   // in DaemonConfigFromFlags
#ifndef ZG_DATAPLANE_DAEMON_NTS_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_NTS_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "core/nts/nts_cookie.h"

ABSL_DECLARE_FLAG(std::string, nts_master_key);
ABSL_DECLARE_FLAG(std::string, nts_key_period);
ABSL_DECLARE_FLAG(std::string, nts_key_window);
ABSL_DECLARE_FLAG(int32_t, nts_max_cookies_per_reply);

namespace zg::dataplane {

struct NtsConfig {
  std::string master_key;              // --nts_master_key ("": NTS off)
  core::NtsKeystoreConfig keystore;    // --nts_key_period, --nts_key_window
  uint32_t max_cookies_per_reply = 8;  // --nts_max_cookies_per_reply
  bool enabled() const { return !master_key.empty(); }
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<NtsConfig> ReadNtsFlags();

// The parsers behind them, for tests.
absl::StatusOr<uint64_t> ParseNtsKeyPeriod(const std::string& value);
absl::StatusOr<std::pair<uint32_t, uint32_t>> ParseNtsKeyWindow(
    const std::string& value);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NTS_FLAGS_H_
