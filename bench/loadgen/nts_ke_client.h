// SPDX-License-Identifier: Apache-2.0
// A small NTS-KE client (RFC 8915 section 4): one TLS 1.3 handshake with
// ALPN "ntske/1", the request records (NTPv4, AEAD_AES_SIV_CMAC_256), the
// server's records parsed (cookies, NTPv4 server and port negotiation,
// errors and warnings), and the C2S/S2C keys exported with the section 5.1
// exporter label and context. zg-loadgen (--nts_ke) and the e2e tests use it
// to get cookies the way a real client does.
//
//   NtsKeClientOptions o;
//   o.host = "10.99.0.1"; o.port = 4460; o.ca_file = "ca.pem";
//   o.server_name = "zg.test";
//   ZG_ASSIGN_OR_RETURN(NtsKeSession s, RunNtsKeHandshake(o));
//   // s.keys, s.cookies (normally 8), s.ntp_server (may be empty), s.ntp_port
//
// Setup code, blocking, with a bounded timeout: never on a data-plane core.
// ParseNtsKeResponse is the pure record parser (fuzzed).
#ifndef ZG_BENCH_LOADGEN_NTS_KE_CLIENT_H_
#define ZG_BENCH_LOADGEN_NTS_KE_CLIENT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/nts/nts_cookie.h"

namespace zg::bench {

inline constexpr uint16_t kNtsKeDefaultPort = 4460;

// NTS-KE record types (RFC 8915 section 4.1).
enum class NtsKeRecord : uint16_t {
  kEndOfMessage = 0,
  kNextProtocol = 1,
  kError = 2,
  kWarning = 3,
  kAead = 4,
  kNewCookie = 5,
  kServer = 6,
  kPort = 7,
};

// The server's answer, parsed.
struct NtsKeResponse {
  bool complete = false;  // an End of Message record was read
  int32_t next_protocol = -1;
  int32_t aead = -1;
  std::vector<std::vector<uint8_t>> cookies;
  std::string ntp_server;  // NTPv4 Server Negotiation; empty: the KE host
  int32_t ntp_port = -1;   // NTPv4 Port Negotiation; -1: 123
  int32_t error = -1;      // Error record code
};

// Parses the records in `bytes` (as many as are complete). Errors: a
// critical record of an unknown type, a record whose body has the wrong
// size, or one after End of Message. A short tail is not an error
// (complete stays false: read more).
absl::StatusOr<NtsKeResponse> ParseNtsKeResponse(
    std::span<const uint8_t> bytes);

// The client's request: Next Protocol NTPv4 (critical), AEAD 15, End.
std::vector<uint8_t> BuildNtsKeRequest();

struct NtsKeClientOptions {
  std::string host;  // address (IPv4 or IPv6 text)
  uint16_t port = kNtsKeDefaultPort;
  std::string ca_file;      // PEM trust anchors; empty: the system's
  std::string server_name;  // SNI and certificate name; empty: host
  absl::Duration timeout = absl::Seconds(5);
  std::string keylog_file;  // append TLS secrets (tshark); empty: none
};

struct NtsKeSession {
  core::NtsKeys keys;
  std::vector<std::vector<uint8_t>> cookies;
  std::string ntp_server;  // the KE host when the server named none
  uint16_t ntp_port = 123;
};

// One handshake. Errors say which step failed (connect, TLS and
// certificate, ALPN, records, export).
absl::StatusOr<NtsKeSession> RunNtsKeHandshake(const NtsKeClientOptions& o);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_NTS_KE_CLIENT_H_
