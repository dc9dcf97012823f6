// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/nts_ke_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace zg::bench {

namespace {

constexpr uint16_t kCritical = 0x8000;
constexpr char kExporterLabel[] = "EXPORTER-network-time-security";

uint16_t Be16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

void PutRecord(std::vector<uint8_t>* out, uint16_t type, bool critical,
               std::initializer_list<uint8_t> body) {
  const uint16_t t = critical ? (type | kCritical) : type;
  out->push_back(static_cast<uint8_t>(t >> 8));
  out->push_back(static_cast<uint8_t>(t));
  out->push_back(static_cast<uint8_t>(body.size() >> 8));
  out->push_back(static_cast<uint8_t>(body.size()));
  out->insert(out->end(), body.begin(), body.end());
}

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  if (e == 0) return "no OpenSSL error queued";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// One record of the response into `r`.
absl::Status TakeRecord(uint16_t type, const uint8_t* body, uint16_t len,
                        bool critical, NtsKeResponse* r) {
  auto want = [&](uint16_t n) -> absl::Status {
    if (len == n) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "NTS-KE record type ", type, " has a ", len, "-byte body, not ", n));
  };
  switch (static_cast<NtsKeRecord>(type)) {
    case NtsKeRecord::kEndOfMessage:
      r->complete = true;
      return want(0);
    case NtsKeRecord::kNextProtocol:
      if (len < 2 || len % 2 != 0) return want(2);
      r->next_protocol = Be16(body);
      return absl::OkStatus();
    case NtsKeRecord::kError:
      r->error = len >= 2 ? Be16(body) : 0xFFFF;
      return want(2);
    case NtsKeRecord::kWarning:
      return want(2);
    case NtsKeRecord::kAead:
      if (len < 2 || len % 2 != 0) return want(2);
      r->aead = Be16(body);
      return absl::OkStatus();
    case NtsKeRecord::kNewCookie:
      if (len == 0) return want(1);
      r->cookies.emplace_back(body, body + len);
      return absl::OkStatus();
    case NtsKeRecord::kServer:
      r->ntp_server.assign(reinterpret_cast<const char*>(body), len);
      return absl::OkStatus();
    case NtsKeRecord::kPort:
      if (len == 2) r->ntp_port = Be16(body);
      return want(2);
  }
  if (critical) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTS-KE: unknown critical record type ", type));
  }
  return absl::OkStatus();  // unknown, not critical: ignored
}

}  // namespace

absl::StatusOr<NtsKeResponse> ParseNtsKeResponse(
    std::span<const uint8_t> bytes) {
  NtsKeResponse r;
  size_t at = 0;
  while (bytes.size() - at >= 4) {
    const uint16_t raw = Be16(&bytes[at]);
    const uint16_t len = Be16(&bytes[at + 2]);
    if (bytes.size() - at - 4 < len) break;  // incomplete: read more
    if (r.complete) {
      return absl::InvalidArgumentError("NTS-KE: record after End of Message");
    }
    absl::Status s = TakeRecord(raw & ~kCritical, &bytes[at + 4], len,
                                (raw & kCritical) != 0, &r);
    if (!s.ok()) return s;
    at += 4 + len;
  }
  return r;
}

std::vector<uint8_t> BuildNtsKeRequest() {
  std::vector<uint8_t> out;
  PutRecord(&out, 1, true, {0x00, 0x00});  // NTPv4
  PutRecord(&out, 4, false, {0x00, core::kNtsAeadAesSivCmac256});
  PutRecord(&out, 0, true, {});
  return out;
}

namespace {

absl::StatusOr<int> Connect(const NtsKeClientOptions& o) {
  sockaddr_storage ss{};
  socklen_t sl = 0;
  auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, o.host.c_str(), &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons(o.port);
    sl = sizeof *s4;
  } else if (inet_pton(AF_INET6, o.host.c_str(), &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(o.port);
    sl = sizeof *s6;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("NTS-KE host '", o.host, "' is not an IP address"));
  }
  const int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("NTS-KE: socket() failed");
  timeval tv{};
  tv.tv_sec = absl::ToInt64Seconds(o.timeout);
  tv.tv_usec = absl::ToInt64Microseconds(o.timeout) % 1000000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&ss), sl) != 0) {
    const int e = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat(
        "NTS-KE: connect to ", o.host, ":", o.port, ": ", std::strerror(e)));
  }
  return fd;
}

FILE* g_keylog = nullptr;
void KeylogLine(const SSL*, const char* line) {
  if (g_keylog != nullptr) {
    std::fprintf(g_keylog, "%s\n", line);
    std::fflush(g_keylog);
  }
}

absl::StatusOr<SSL_CTX*> MakeContext(const NtsKeClientOptions& o) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return absl::InternalError("NTS-KE: SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  const int ok = o.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx)
                                   : SSL_CTX_load_verify_locations(
                                         ctx, o.ca_file.c_str(), nullptr);
  if (ok != 1) {
    SSL_CTX_free(ctx);
    return absl::InvalidArgumentError(
        absl::StrCat("NTS-KE: cannot load trust anchors '", o.ca_file,
                     "': ", OpenSslError()));
  }
  static const uint8_t kAlpn[] = {7, 'n', 't', 's', 'k', 'e', '/', '1'};
  SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn);
  if (!o.keylog_file.empty()) {
    if (g_keylog == nullptr) g_keylog = std::fopen(o.keylog_file.c_str(), "a");
    SSL_CTX_set_keylog_callback(ctx, KeylogLine);
  }
  return ctx;
}

absl::StatusOr<NtsKeResponse> Exchange(SSL* ssl) {
  const std::vector<uint8_t> req = BuildNtsKeRequest();
  if (SSL_write(ssl, req.data(), static_cast<int>(req.size())) <= 0) {
    return absl::UnavailableError(
        absl::StrCat("NTS-KE: sending the request: ", OpenSslError()));
  }
  std::vector<uint8_t> buf;
  while (buf.size() < 65536) {
    uint8_t chunk[4096];
    const int n = SSL_read(ssl, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.insert(buf.end(), chunk, chunk + n);
    absl::StatusOr<NtsKeResponse> r = ParseNtsKeResponse(buf);
    if (!r.ok() || r->complete) return r;
  }
  return absl::UnavailableError(absl::StrCat(
      "NTS-KE: the server closed or timed out before End of Message (",
      buf.size(), " bytes read)"));
}

absl::Status Export(SSL* ssl, core::NtsKeys* keys) {
  // RFC 8915 section 5.1: context = protocol id (NTPv4: 0) || AEAD id ||
  // 0x00 (C2S) or 0x01 (S2C).
  uint8_t context[5] = {0, 0, 0, core::kNtsAeadAesSivCmac256, 0};
  if (SSL_export_keying_material(ssl, keys->c2s.data(), keys->c2s.size(),
                                 kExporterLabel, sizeof kExporterLabel - 1,
                                 context, sizeof context, 1) != 1) {
    return absl::InternalError("NTS-KE: exporting C2S failed");
  }
  context[4] = 1;
  if (SSL_export_keying_material(ssl, keys->s2c.data(), keys->s2c.size(),
                                 kExporterLabel, sizeof kExporterLabel - 1,
                                 context, sizeof context, 1) != 1) {
    return absl::InternalError("NTS-KE: exporting S2C failed");
  }
  return absl::OkStatus();
}

absl::Status CheckResponse(const NtsKeResponse& r) {
  if (r.error >= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("NTS-KE: the server sent Error ", r.error));
  }
  if (r.next_protocol != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("NTS-KE: the server's next protocol is ", r.next_protocol,
                     ", not NTPv4 (0)"));
  }
  if (r.aead != core::kNtsAeadAesSivCmac256) {
    return absl::FailedPreconditionError(
        absl::StrCat("NTS-KE: the server chose AEAD ", r.aead,
                     ", not 15 (AES-SIV-CMAC-256)"));
  }
  if (r.cookies.empty()) {
    return absl::FailedPreconditionError("NTS-KE: the server sent no cookies");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NtsKeSession> RunNtsKeHandshake(const NtsKeClientOptions& o) {
  absl::StatusOr<SSL_CTX*> ctx = MakeContext(o);
  if (!ctx.ok()) return ctx.status();
  absl::Cleanup free_ctx = [&] { SSL_CTX_free(*ctx); };
  absl::StatusOr<int> fd = Connect(o);
  if (!fd.ok()) return fd.status();
  absl::Cleanup close_fd = [&] { close(*fd); };
  SSL* ssl = SSL_new(*ctx);
  if (ssl == nullptr) return absl::InternalError("NTS-KE: SSL_new");
  absl::Cleanup free_ssl = [&] { SSL_free(ssl); };
  const std::string& name = o.server_name.empty() ? o.host : o.server_name;
  SSL_set_tlsext_host_name(ssl, name.c_str());
  SSL_set1_host(ssl, name.c_str());
  SSL_set_fd(ssl, *fd);
  if (SSL_connect(ssl) != 1) {
    return absl::UnavailableError(absl::StrCat(
        "NTS-KE: TLS handshake with ", o.host, ":", o.port,
        " failed (certificate for '", name, "'?): ", OpenSslError()));
  }
  const uint8_t* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
  if (alpn_len != 7 || std::memcmp(alpn, "ntske/1", 7) != 0) {
    return absl::FailedPreconditionError(
        "NTS-KE: the server did not select ALPN ntske/1");
  }
  absl::StatusOr<NtsKeResponse> r = Exchange(ssl);
  if (!r.ok()) return r.status();
  if (absl::Status s = CheckResponse(*r); !s.ok()) return s;
  NtsKeSession session;
  if (absl::Status s = Export(ssl, &session.keys); !s.ok()) return s;
  session.cookies = std::move(r->cookies);
  session.ntp_server = r->ntp_server.empty() ? o.host : r->ntp_server;
  if (r->ntp_port >= 0) session.ntp_port = static_cast<uint16_t>(r->ntp_port);
  SSL_shutdown(ssl);
  return session;
}

}  // namespace zg::bench
