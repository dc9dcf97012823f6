// zeitgeberd's NTS-KE flags (RFC 8915 section 4; dataplane/nts/
// nts_ke_server.h), validated into an NtsKeConfig:
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
//   --nts_ke_max_connections=N   concurrent connections (default 256),
//                                shared fairly between sources
//   --nts_ke_ratelimit=on        connections per source, chrony's
//                                ntsratelimit (off, or interval=I,burst=B,
//                                leak=L; on: interval=6,burst=8,leak=2)
//   --nts_ke_handshake_timeout / --nts_ke_request_timeout   (default 2s)
//
//   ZG_ASSIGN_OR_RETURN(c.nts_ke, ParseNtsKeFlags(args));  // ParseDaemonFlags
#ifndef ZG_DATAPLANE_DAEMON_NTS_KE_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_NTS_KE_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dataplane/nts/nts_ke_config.h"

namespace zg::dataplane {

// "192.0.2.1", "192.0.2.1:4460", "[2001:db8::1]:4460", "2001:db8::1".
absl::StatusOr<NtsKeListenAddress> ParseNtsKeAddress(absl::string_view v);

// Every --nts_ke_address occurrence in `args` (and its flagfiles), the
// other flags from abseil's parsed state.
absl::StatusOr<NtsKeConfig> ParseNtsKeFlags(
    const std::vector<std::string>& args);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NTS_KE_FLAGS_H_
