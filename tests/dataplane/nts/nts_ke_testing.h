// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY helpers for the NTS-KE server's tests and benchmark: a test CA
// and server certificates made with the openssl CLI in a directory, and a
// blocking in-process OpenSSL client that runs one NTS-KE exchange over
// loopback.
//
//   TestPki pki = MakeTestPki(dir, "ec").value();   // ca.pem, server.pem ...
//   KeClientResult r = RunKeClient(port, {.ca_file = pki.ca_cert});
//   ASSERT_TRUE(r.handshake_ok);  r.response, r.keys ...
#ifndef ZG_TESTS_DATAPLANE_NTS_NTS_KE_TESTING_H_
#define ZG_TESTS_DATAPLANE_NTS_NTS_KE_TESTING_H_

#include <openssl/ssl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/nts/nts_cookie.h"

namespace zg::testing_nts {

// Files under one directory; every server certificate is for "ke.test",
// 127.0.0.1 and ::1, signed by the CA.
struct TestPki {
  std::string ca_cert;
  std::string cert;  // server certificate A (CN=ke-a)
  std::string key;
  std::string cert_b;  // server certificate B (CN=ke-b), another key
  std::string key_b;
};
// `alg`: "ec" (P-256) or "rsa" (2048 bits).
absl::StatusOr<TestPki> MakeTestPki(const std::string& dir,
                                    const std::string& alg);

struct KeClientOptions {
  std::string ca_file;           // verify the server against it ("": no)
  std::string alpn = "ntske/1";  // "": offer none
  int max_version = TLS1_3_VERSION;
  std::vector<uint8_t> request;  // {}: the standard NTPv4 + AEAD 15 one
  bool send_request = true;
  bool ipv6 = false;  // connect to [::1], not 127.0.0.1
};

struct KeClientResult {
  bool connected = false;
  bool handshake_ok = false;
  std::string peer_subject;
  std::vector<uint8_t> response;  // everything read until close
  core::NtsKeys keys;             // exported by the client itself
};

// A connected TLS client, for tests that act in steps.
class KeClient {
 public:
  KeClient() = default;
  ~KeClient();
  KeClient(const KeClient&) = delete;
  KeClient& operator=(const KeClient&) = delete;
  // TCP connect to 127.0.0.1:port or [::1]:port (blocking, 5 s I/O
  // timeouts).
  bool Connect(uint16_t port, bool ipv6 = false);
  bool Handshake(const KeClientOptions& o);
  bool Send(const std::vector<uint8_t>& bytes);
  std::vector<uint8_t> ReadAll();  // until the server closes
  void Export(core::NtsKeys* out);
  std::string PeerSubject();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

KeClientResult RunKeClient(uint16_t port, const KeClientOptions& o);

// The request chrony sends: Next Protocol NTPv4, AEAD 15, End of Message.
std::vector<uint8_t> StandardRequest();

}  // namespace zg::testing_nts

#endif  // ZG_TESTS_DATAPLANE_NTS_NTS_KE_TESTING_H_
