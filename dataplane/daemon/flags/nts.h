// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's NTS flags (RFC 8915), the "NTS" group of `zeitgeberd --
// --help`: the cookie keys the workers seal and open cookies with, and the
// NTS-KE server that hands them out.
//
// Cookie keys, read by the NTS factory (dataplane/ntp/nts_auth.h) for the
// workers and by the NTS-KE server for the cookies it hands out (and by
// zg-loadgen, which mints cookies with the servers' master key):
//
//   --nts_master_key=/etc/zeitgeber/nts.key   owner-only, >= 32 random bytes
//                              ("" or unset: NTS off, NTS requests dropped)
//   --nts_key_period=1d        period of the cookie keys: seconds ("86400")
//                              or an absl duration ("24h"); >= 1 s
//   --nts_key_window=2,1       periods accepted before and after the current
//                              one (each 0..16)
//
// Window default 2,1: a client that got its cookies just before a boundary
// (they last as long as it keeps polling: every reply brings new ones)
// comes back within two more periods, days with the default period, and a
// fleet member whose clock is a little ahead at a boundary seals with the
// next period's key, which the others accept one period early.
//
// The NTS-KE server (RFC 8915 section 4; dataplane/nts/nts_ke_server.h),
// validated into an NtsKeConfig:
//
//   --nts_ke_address=IP[:PORT]   where the KE server listens (TCP; port
//                                4460 when omitted; IPv6 as [addr]:port or
//                                a bare address); repeatable, and each value
//                                may be a comma list. Unset: no KE server.
//   --nts_cert=PEM --nts_key=PEM the server's certificate chain and key
//   --nts_ntp_server=NAME        NTPv4 Server record: where clients send NTS
//                                NTP (the workers' address when KE runs on
//                                a management address); unset: none
//   --nts_ntp_port=PORT          NTPv4 Port record (0: none, clients use 123)
//   --nts_ke_max_connections=N   concurrent connections (default 256)
//   --nts_ke_handshake_timeout / --nts_ke_request_timeout   (default 5s)
//
//   ZG_ASSIGN_OR_RETURN(c.nts, ReadNtsFlags());          //
//   DaemonConfigFromFlags ZG_ASSIGN_OR_RETURN(c.nts_ke, ParseNtsKeFlags(args));
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_NTS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_NTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/nts/nts_cookie.h"
#include "dataplane/nts/nts_ke_config.h"

ABSL_DECLARE_FLAG(std::string, nts_master_key);
ABSL_DECLARE_FLAG(std::string, nts_key_period);
ABSL_DECLARE_FLAG(std::string, nts_key_window);

namespace zg::dataplane {

struct NtsConfig {
  std::string master_key;            // --nts_master_key ("": NTS off)
  core::NtsKeystoreConfig keystore;  // --nts_key_period, --nts_key_window
  bool enabled() const { return !master_key.empty(); }
};

// The cookie-key flags' current values, validated (errors name the flag).
absl::StatusOr<NtsConfig> ReadNtsFlags();

// The parsers behind them, for tests.
absl::StatusOr<uint64_t> ParseNtsKeyPeriod(const std::string& value);
absl::StatusOr<std::pair<uint32_t, uint32_t>> ParseNtsKeyWindow(
    const std::string& value);

// "192.0.2.1", "192.0.2.1:4460", "[2001:db8::1]:4460", "2001:db8::1".
absl::StatusOr<NtsKeListenAddress> ParseNtsKeAddress(absl::string_view v);

// Every --nts_ke_address occurrence in `args` (and its flagfiles), the
// other flags from abseil's parsed state.
absl::StatusOr<NtsKeConfig> ParseNtsKeFlags(
    const std::vector<std::string>& args);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_NTS_H_
