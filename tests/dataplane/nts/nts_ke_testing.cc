// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/nts/nts_ke_testing.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "core/nts/nts_ke_records.h"

namespace zg::testing_nts {
namespace {

absl::Status Sh(const std::string& cmd) {
  const std::string full = absl::StrCat(cmd, " >/dev/null 2>&1");
  if (std::system(full.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("failed: ", cmd));
  }
  return absl::OkStatus();
}

std::string NewKey(const std::string& alg) {
  return alg == "rsa" ? "-newkey rsa:2048"
                      : "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1";
}

absl::Status MakeServerCert(const std::string& dir, const std::string& alg,
                            const std::string& name) {
  const std::string p = dir + "/" + name;
  if (absl::Status s =
          Sh(absl::StrCat("openssl req -new ", NewKey(alg), " -nodes -keyout ",
                          p, ".key -out ", p, ".csr -subj /CN=", name));
      !s.ok()) {
    return s;
  }
  return Sh(absl::StrCat("openssl x509 -req -in ", p, ".csr -CA ", dir,
                         "/ca.pem -CAkey ", dir, "/ca.key -CAcreateserial",
                         " -days 2 -extfile ", dir, "/san.ext -out ", p,
                         ".pem"));
}

}  // namespace

absl::StatusOr<TestPki> MakeTestPki(const std::string& dir,
                                    const std::string& alg) {
  std::ofstream(dir + "/san.ext")
      << "subjectAltName=DNS:ke.test,IP:127.0.0.1,IP:::1\n"
      << "extendedKeyUsage=serverAuth\n";
  if (absl::Status s = Sh(absl::StrCat(
          "openssl req -x509 ", NewKey(alg), " -nodes -keyout ", dir,
          "/ca.key -out ", dir, "/ca.pem -days 2 -subj /CN=zg-test-ca"));
      !s.ok()) {
    return s;
  }
  for (const char* name : {"ke-a", "ke-b"}) {
    if (absl::Status s = MakeServerCert(dir, alg, name); !s.ok()) return s;
  }
  return TestPki{dir + "/ca.pem", dir + "/ke-a.pem", dir + "/ke-a.key",
                 dir + "/ke-b.pem", dir + "/ke-b.key"};
}

KeClient::~KeClient() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
  if (fd_ >= 0) close(fd_);
}

bool KeClient::Connect(uint16_t port, bool ipv6) {
  fd_ = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  const int one = 1;  // Finished and the request go out at once
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (ipv6) {
    sockaddr_in6 a6{};
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons(port);
    a6.sin6_addr = in6addr_loopback;
    return connect(fd_, reinterpret_cast<sockaddr*>(&a6), sizeof(a6)) == 0;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
}

bool KeClient::Handshake(const KeClientOptions& o) {
  ctx_ = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_max_proto_version(ctx_, o.max_version);
  if (!o.ca_file.empty()) {
    SSL_CTX_load_verify_locations(ctx_, o.ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }
  ssl_ = SSL_new(ctx_);
  if (!o.alpn.empty()) {
    std::vector<unsigned char> wire = {
        static_cast<unsigned char>(o.alpn.size())};
    wire.insert(wire.end(), o.alpn.begin(), o.alpn.end());
    SSL_set_alpn_protos(ssl_, wire.data(), static_cast<unsigned>(wire.size()));
  }
  SSL_set_tlsext_host_name(ssl_, "ke.test");
  if (!o.ca_file.empty()) SSL_set1_host(ssl_, "ke.test");
  SSL_set_fd(ssl_, fd_);
  return SSL_connect(ssl_) == 1;
}

bool KeClient::Send(const std::vector<uint8_t>& bytes) {
  return SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) ==
         static_cast<int>(bytes.size());
}

std::vector<uint8_t> KeClient::ReadAll() {
  std::vector<uint8_t> out;
  uint8_t buf[4096];
  while (true) {
    const int r = SSL_read(ssl_, buf, sizeof(buf));
    if (r <= 0) break;
    out.insert(out.end(), buf, buf + r);
  }
  return out;
}

void KeClient::Export(core::NtsKeys* out) {
  // RFC 8915 section 5.1, written out here independently of the server's.
  static const char kLabel[] = "EXPORTER-network-time-security";
  const unsigned char c2s[5] = {0, 0, 0, 15, 0};
  const unsigned char s2c[5] = {0, 0, 0, 15, 1};
  SSL_export_keying_material(ssl_, out->c2s.data(), 32, kLabel,
                             sizeof(kLabel) - 1, c2s, 5, 1);
  SSL_export_keying_material(ssl_, out->s2c.data(), 32, kLabel,
                             sizeof(kLabel) - 1, s2c, 5, 1);
}

std::string KeClient::PeerSubject() {
  X509* cert = SSL_get1_peer_certificate(ssl_);
  if (cert == nullptr) return "";
  char buf[256];
  X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof(buf));
  X509_free(cert);
  return buf;
}

std::vector<uint8_t> StandardRequest() {
  const uint16_t protocols[] = {core::kNtsKeProtocolNtpV4};
  const uint16_t aeads[] = {core::kNtsAeadAesSivCmac256};
  return core::BuildNtsKeRequest(protocols, aeads);
}

KeClientResult RunKeClient(uint16_t port, const KeClientOptions& o) {
  KeClientResult r;
  KeClient c;
  r.connected = c.Connect(port, o.ipv6);
  if (!r.connected) return r;
  r.handshake_ok = c.Handshake(o);
  if (!r.handshake_ok) return r;
  r.peer_subject = c.PeerSubject();
  c.Export(&r.keys);
  if (!o.send_request) return r;
  c.Send(o.request.empty() ? StandardRequest() : o.request);
  r.response = c.ReadAll();
  return r;
}

}  // namespace zg::testing_nts
