// SPDX-License-Identifier: Apache-2.0
// The TLS side of NTS-KE (RFC 8915 section 4 and 5.1) on OpenSSL 3: the
// server's SSL_CTX (TLS 1.3 only, ALPN "ntske/1" required, no session
// tickets) built from a PEM certificate chain and key, and the export of
// an association's C2S / S2C keys.
//
//   ZG_ASSIGN_OR_RETURN(SslCtxPtr ctx, BuildNtsKeSslCtx(cert, key));
//   ... after the handshake:
//   core::NtsKeys keys;
//   if (!ExportNtsKeys(ssl, &keys)) ...   // internal server error
//
// A ClientHello without ALPN, or whose ALPN list lacks "ntske/1", fails the
// handshake with a no_application_protocol alert (120); so does any TLS
// version below 1.3 (protocol_version).
#ifndef ZG_DATAPLANE_NTS_NTS_KE_TLS_H_
#define ZG_DATAPLANE_NTS_NTS_KE_TLS_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/nts/nts_cookie.h"

namespace zg::dataplane {

struct SslCtxDeleter {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslDeleter {
  void operator()(SSL* s) const { SSL_free(s); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;
using SslPtr = std::unique_ptr<SSL, SslDeleter>;

inline constexpr char kNtsKeAlpn[] = "ntske/1";
inline constexpr char kNtsKeExporterLabel[] = "EXPORTER-network-time-security";

// The server context. Errors name the flag and the path: an unreadable or
// malformed chain (--nts_cert), key (--nts_key), or a key that does not
// match the certificate.
absl::StatusOr<SslCtxPtr> BuildNtsKeSslCtx(const std::string& cert_path,
                                           const std::string& key_path);

// The keys of the association (RFC 8915 section 5.1): exporter label
// above, context = protocol id 0x0000 (NTPv4) || AEAD id 0x000F || 0x00
// (C2S) / 0x01 (S2C), 32 bytes each. False if OpenSSL refuses (no
// completed handshake).
bool ExportNtsKeys(SSL* ssl, core::NtsKeys* out);

// OpenSSL's queued errors, joined ("" when none); clears the queue.
std::string SslErrors();

// The subject of `ssl`'s peer certificate (client side, tests).
std::string PeerSubject(SSL* ssl);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTS_NTS_KE_TLS_H_
