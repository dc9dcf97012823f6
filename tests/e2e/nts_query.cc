// SPDX-License-Identifier: Apache-2.0
// nts_query: NTS-protected NTP queries from inside a test namespace, with
// core/nts/nts_client.h (our independent client). The e2e tests run it
// with `ip netns exec` after getting keys and cookies from an NTS-KE
// handshake in the test process (bench/loadgen/nts_ke_client.h).
//
//   nts_query SERVER_IP C2S_HEX S2C_HEX COOKIE_HEX [GARBAGE_COUNT]
//   nts_query SERVER_IP ke KE_IP:PORT CA_FILE NAME [GARBAGE_COUNT]
//
// The second form does the NTS-KE handshake itself first (from the same
// namespace) and queries the NTP server the KE server named (or
// SERVER_IP when it named none: pass "-" to always use the KE's answer).
//
// First sends GARBAGE_COUNT (default 0) NTS requests with random cookies
// (well-formed fields, cookies no server can open) at about 20k/s without
// waiting for replies, then one good request, and prints one line:
//   status=ok cookies=N offset_ns=X      a verified reply
//   status=nak                           an NTS NAK for our request
//   status=<NtsReplyStatusName>          a reply that failed the check
//   status=timeout                       nothing within 2 s
// Exit status 0 for ok, 1 for anything else, 2 for bad arguments.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "bench/loadgen/nts_ke_client.h"
#include "core/ntp/ntp_client.h"
#include "core/nts/nts_client.h"
#include "tests/util/hex.h"

namespace {

using namespace zg::core;

int OpenSocket(const char* ip, sockaddr_storage* ss, socklen_t* sl) {
  auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
  auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
  std::memset(ss, 0, sizeof *ss);
  if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons(123);
    *sl = sizeof *s4;
  } else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(123);
    *sl = sizeof *s6;
  } else {
    return -1;
  }
  const int fd = socket(ss->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(ss), *sl) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

UtcNs NowUtc() { return UtcNs{absl::ToUnixNanos(absl::Now())}; }

// One request from `assoc` with fresh randomness; returns its length.
uint32_t Build(NtsClientAssociation& assoc, uint8_t* uid, uint8_t* buf,
               uint32_t cap, NtpTimestamp* t1) {
  uint8_t nonce[kNtsClientNonceSize];
  FillNtsRandom(uid, kNtsUniqueIdSize);
  FillNtsRandom(nonce, sizeof nonce);
  NtsRequestSpec spec;
  // The real time, not a random one (RFC 8915's privacy advice): the offset
  // is measured against it.
  *t1 = UtcToNtp(NowUtc());
  spec.transmit = *t1;
  spec.unique_id = uid;
  spec.nonce = nonce;
  spec.placeholders = 1;
  return assoc.BuildRequest(spec, /*consume_cookie=*/false, buf, cap);
}

}  // namespace

// The "ke" form: handshake, then keys and the first cookie.
bool FromKe(char** argv, std::string* server, NtsKeys* keys,
            std::vector<uint8_t>* cookie) {
  zg::bench::NtsKeClientOptions o;
  o.host = argv[3];
  if (const size_t colon = o.host.rfind(':');
      colon != std::string::npos && o.host.find(']') != std::string::npos) {
    o.port = static_cast<uint16_t>(std::atoi(o.host.c_str() + colon + 1));
    o.host = o.host.substr(1, o.host.find(']') - 1);
  } else if (colon != std::string::npos && o.host.find(':') == colon) {
    o.port = static_cast<uint16_t>(std::atoi(o.host.c_str() + colon + 1));
    o.host.resize(colon);
  }
  o.ca_file = argv[4];
  o.server_name = argv[5];
  if (const char* keylog = std::getenv("SSLKEYLOGFILE")) o.keylog_file = keylog;
  absl::StatusOr<zg::bench::NtsKeSession> s = zg::bench::RunNtsKeHandshake(o);
  if (!s.ok()) {
    std::printf("status=ke_failed %s\n",
                std::string(s.status().message()).c_str());
    return false;
  }
  if (*server == "-") *server = s->ntp_server;
  *keys = s->keys;
  *cookie = s->cookies.front();
  std::fprintf(
      stderr, "nts_query: KE gave %zu cookies of %zu bytes, NTP %s:%u\n",
      s->cookies.size(), cookie->size(), s->ntp_server.c_str(), s->ntp_port);
  return true;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: nts_query SERVER_IP C2S_HEX S2C_HEX COOKIE_HEX "
                 "[GARBAGE_COUNT]\n"
                 "       nts_query SERVER_IP ke KE_IP:PORT CA NAME "
                 "[GARBAGE_COUNT]\n");
    return 2;
  }
  std::string server = argv[1];
  NtsKeys keys;
  std::vector<uint8_t> cookie;
  int garbage = 0;
  if (std::string(argv[2]) == "ke") {
    if (argc < 6) return 2;
    if (!FromKe(argv, &server, &keys, &cookie)) return 1;
    garbage = argc > 6 ? std::atoi(argv[6]) : 0;
  } else {
    const std::vector<uint8_t> c2s = zg::testutil::FromHex(argv[2]);
    const std::vector<uint8_t> s2c = zg::testutil::FromHex(argv[3]);
    cookie = zg::testutil::FromHex(argv[4]);
    garbage = argc > 5 ? std::atoi(argv[5]) : 0;
    if (c2s.size() != kNtsKeySize || s2c.size() != kNtsKeySize) return 2;
    std::memcpy(keys.c2s.data(), c2s.data(), kNtsKeySize);
    std::memcpy(keys.s2c.data(), s2c.data(), kNtsKeySize);
  }
  NtsClientAssociation assoc;
  assoc.SetKeys(keys);
  if (!assoc.PushCookie(cookie.data(), cookie.size())) return 2;
  sockaddr_storage ss;
  socklen_t sl = 0;
  const int fd = OpenSocket(server.c_str(), &ss, &sl);
  if (fd < 0) {
    std::fprintf(stderr, "nts_query: cannot reach %s\n", server.c_str());
    return 2;
  }
  uint8_t buf[1024];
  uint8_t uid[kNtsUniqueIdSize];
  NtpTimestamp t1;
  // Garbage: the same layout with a random cookie under random keys, from
  // a socket of its own (another source port): its NAKs fill that socket's
  // buffer, never the one the good reply comes back to.
  const int junk_fd = garbage > 0 ? OpenSocket(server.c_str(), &ss, &sl) : -1;
  NtsClientAssociation junk;
  for (int i = 0; i < garbage; ++i) {
    NtsKeys k;
    FillNtsRandom(k.c2s.data(), k.c2s.size());
    FillNtsRandom(k.s2c.data(), k.s2c.size());
    uint8_t random_cookie[kNtsCookieSize];
    FillNtsRandom(random_cookie, sizeof random_cookie);
    junk.SetKeys(k);
    junk.ClearCookies();
    junk.PushCookie(random_cookie, sizeof random_cookie);
    const uint32_t n = Build(junk, uid, buf, sizeof buf, &t1);
    // Paced at about 20k/s: a back-to-back burst only measures the veth
    // rig's rings (the test is about what the server does with garbage).
    if (send(junk_fd, buf, n, 0) < 0) usleep(1000);
    usleep(50);
  }
  if (garbage > 0) usleep(20000);  // the server's NAKs to the garbage leave
  const uint32_t n = Build(assoc, uid, buf, sizeof buf, &t1);
  const NtpTimestamp sent_t1 = t1;
  if (send(fd, buf, n, 0) != static_cast<ssize_t>(n)) {
    std::printf("status=send_failed\n");
    return 1;
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  while (absl::Now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    uint8_t reply[2048];
    const ssize_t got = recv(fd, reply, sizeof reply, 0);
    if (got < static_cast<ssize_t>(kNtpHeaderSize)) continue;
    const UtcNs t4 = NowUtc();
    const uint32_t len = static_cast<uint32_t>(got);
    if (LoadNtpTimestamp(reply + kNtpOffsetOriginTime) != sent_t1) {
      continue;  // a reply (or NAK) to one of the garbage requests
    }
    const NtsReplyCheck c = assoc.VerifyReply(reply, len, uid, true);
    if (c.status == NtsReplyStatus::kNak) {
      std::printf("status=nak\n");
      return 1;
    }
    if (c.status != NtsReplyStatus::kOk) {
      std::printf("status=%s\n", NtsReplyStatusName(c.status));
      return 1;
    }
    NtpClientSample s;
    const NtpReplyStatus st = ParseNtpServerReply(reply, len, sent_t1, t4, &s);
    if (st != NtpReplyStatus::kOk) {
      std::printf("status=ntp_%s\n", NtpReplyStatusName(st));
      return 1;
    }
    std::printf(
        "status=ok cookies=%u offset_ns=%lld reply_len=%u "
        "request_len=%u\n",
        c.cookies, static_cast<long long>(s.offset_ns), len, n);
    return 0;
  }
  std::printf("status=timeout\n");
  return 1;
}
