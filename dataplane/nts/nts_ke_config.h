// SPDX-License-Identifier: Apache-2.0
// The NTS-KE server's configuration (dataplane/nts/nts_ke_server.h), as the
// --nts_ke_* / --nts_cert / --nts_key flags give it
// (dataplane/daemon/flags/nts.h). A plain struct of its own so that
// DaemonConfig (dataplane/daemon/flags.h) can hold it without pulling in
// OpenSSL.
#ifndef ZG_DATAPLANE_NTS_NTS_KE_CONFIG_H_
#define ZG_DATAPLANE_NTS_NTS_KE_CONFIG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace zg::core {
class NtsCookieKeystore;
}  // namespace zg::core

namespace zg::dataplane {

// Where the KE server gets the keystore it seals cookies with: called on
// the KE thread once per request; null means none (Internal Server Error).
using NtsKeystoreSource =
    std::function<std::shared_ptr<const core::NtsCookieKeystore>()>;

// One listening address: an IPv4 or IPv6 literal (no brackets) and a TCP
// port (0: any free port, for tests).
struct NtsKeListenAddress {
  std::string ip;
  uint16_t port = 4460;
  std::string ToString() const;  // "192.0.2.1:4460", "[2001:db8::1]:4460"
};

struct NtsKeConfig {
  std::vector<NtsKeListenAddress> addresses;  // --nts_ke_address ({}: off)
  std::string cert_path;                      // --nts_cert (PEM chain)
  std::string key_path;                       // --nts_key (PEM)
  std::string ntp_server;  // --nts_ntp_server ("": no NTPv4 Server record)
  uint16_t ntp_port = 0;   // --nts_ntp_port (0: no NTPv4 Port record)
  uint32_t max_connections = 256;  // --nts_ke_max_connections
  // --nts_ke_handshake_timeout: accept to the end of the TLS handshake.
  absl::Duration handshake_timeout = absl::Seconds(5);
  // --nts_ke_request_timeout: end of handshake to the response written.
  absl::Duration request_timeout = absl::Seconds(5);
  bool enabled() const { return !addresses.empty(); }
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTS_NTS_KE_CONFIG_H_
