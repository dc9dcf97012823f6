// SPDX-License-Identifier: Apache-2.0
// WebTls: the status page's certificate and key (--status_cert,
// --status_key), handed to each TLS handshake by OpenSSL's certificate
// callback, so that Reload() (on SIGHUP) takes effect for the next
// connection without restarting the server or dropping open connections.
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<WebTls> tls,
//                       WebTls::Load(cert_path, key_path));
//   tls->Install(ssl_ctx);           // civetweb's init_ssl callback
//   absl::Status s = tls->Reload();  // SIGHUP: keeps the old pair on error
//
// The certificate file is PEM: the server certificate first, then any
// intermediates. The key is read by the owner-only secret-file reader. A
// pair whose key does not match its certificate is refused.
//
// Thread-safe: Reload on the control thread's reload path, the callback on
// the page's request threads (a mutex held only to copy two pointers).
#ifndef ZG_DATAPLANE_WEB_WEB_TLS_H_
#define ZG_DATAPLANE_WEB_WEB_TLS_H_

#include <openssl/ssl.h>

#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"

namespace zg::dataplane {

class WebTls {
 public:
  static absl::StatusOr<std::unique_ptr<WebTls>> Load(std::string cert_path,
                                                      std::string key_path);
  ~WebTls();

  // Sets TLS 1.2 as the minimum and the certificate callback on `ctx`.
  void Install(SSL_CTX* ctx);
  absl::Status Reload();
  // The subject of the certificate in use (logs, tests).
  std::string Subject() const;
  uint64_t reloads() const;

 private:
  struct Pair;
  WebTls(std::string cert_path, std::string key_path)
      : cert_path_(std::move(cert_path)), key_path_(std::move(key_path)) {}
  static int CertCallback(SSL* ssl, void* arg);

  const std::string cert_path_;
  const std::string key_path_;
  mutable std::mutex mu_;
  std::shared_ptr<const Pair> pair_;  // guarded by mu_
  uint64_t reloads_ = 0;              // guarded by mu_
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_WEB_TLS_H_
