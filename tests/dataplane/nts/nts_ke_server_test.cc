// SPDX-License-Identifier: Apache-2.0
// The NTS-KE server (dataplane/nts/nts_ke_server.h) against an in-process
// OpenSSL client over loopback, with a test CA and certificates the openssl
// CLI makes in a temporary directory: the full exchange (8 cookies that
// open with the keystore and carry the client's own exported keys), TLS
// 1.2 and ALPN refusals, Error records, the slowloris timeouts, the
// connection limit, the per-source rate limit and fair slot sharing
// (sources: loopback addresses 127.0.0.x), certificate reload, and start-up
// errors.
#include "dataplane/nts/nts_ke_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_ke_records.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/collectable.h"
#include "prometheus/text_serializer.h"
#include "tests/dataplane/nts/nts_ke_testing.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace nts_ke_server_test {
namespace {

using ::testing::HasSubstr;
using testing_nts::KeClient;
using testing_nts::KeClientOptions;
using testing_nts::KeClientResult;
using testing_nts::RunKeClient;
using testing_nts::TestPki;

class NtsKeServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testutil::TempDir(testutil::TempDir::Create("ntske").value());
    absl::StatusOr<TestPki> pki = testing_nts::MakeTestPki(dir_->path(), "ec");
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_ = new TestPki(*pki);
  }
  static void TearDownTestSuite() {
    delete pki_;
    delete dir_;
  }

  void SetUp() override {
    const std::vector<uint8_t> master(32, 0x5a);
    auto ks = core::NtsCookieKeystore::Derive(master, {},
                                              absl::ToUnixSeconds(absl::Now()));
    ASSERT_TRUE(ks.ok()) << ks.status();
    keystore_ = std::make_shared<const core::NtsCookieKeystore>(*ks);
    config_.addresses = {{"127.0.0.1", 0}};
    config_.cert_path = pki_->cert;
    config_.key_path = pki_->key;
    // Most tests make many connections from 127.0.0.1: the per-source rate
    // limit has tests of its own.
    config_.rate_limit = false;
  }

  void StartServer() {
    auto s = NtsKeServer::Start(config_, [this] { return keystore_; });
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
    port_ = server_->ports()[0];
  }

  KeClientOptions Options() const {
    KeClientOptions o;
    o.ca_file = pki_->ca_cert;
    return o;
  }

  // Waits (bounded) for `pred` on the server's stats.
  template <typename Pred>
  bool WaitFor(Pred pred, absl::Duration limit = absl::Seconds(5)) {
    const absl::Time end = absl::Now() + limit;
    while (absl::Now() < end) {
      if (pred(server_->stats())) return true;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return pred(server_->stats());
  }

  static testutil::TempDir* dir_;
  static TestPki* pki_;
  std::shared_ptr<const core::NtsCookieKeystore> keystore_;
  NtsKeConfig config_;
  std::unique_ptr<NtsKeServer> server_;
  uint16_t port_ = 0;
};
testutil::TempDir* NtsKeServerTest::dir_ = nullptr;
TestPki* NtsKeServerTest::pki_ = nullptr;

core::NtsKeResponse Parse(const std::vector<uint8_t>& bytes) {
  core::NtsKeResponse r;
  EXPECT_EQ(core::ParseNtsKeResponse(bytes, &r),
            core::NtsKeResponseParse::kComplete);
  return r;
}

TEST_F(NtsKeServerTest, FullExchangeGivesEightCookiesWithTheClientsKeys) {
  config_.ntp_server = "ntp.ke.test";
  config_.ntp_port = 1123;
  StartServer();
  const KeClientResult r = RunKeClient(port_, Options());
  ASSERT_TRUE(r.handshake_ok);
  EXPECT_THAT(r.peer_subject, HasSubstr("CN=ke-a"));
  const core::NtsKeResponse resp = Parse(r.response);
  EXPECT_EQ(resp.protocols, std::vector<uint16_t>{0});
  EXPECT_EQ(resp.aeads, std::vector<uint16_t>{15});
  EXPECT_EQ(resp.ntp_server, "ntp.ke.test");
  EXPECT_EQ(resp.ntp_port, 1123);
  EXPECT_FALSE(resp.error.has_value());
  ASSERT_EQ(resp.cookies.size(), 8u);
  for (const std::vector<uint8_t>& c : resp.cookies) {
    core::NtsKeys keys;
    ASSERT_EQ(keystore_->Open(c.data(), c.size(), &keys),
              core::NtsCookieError::kOk);
    EXPECT_EQ(keys.c2s, r.keys.c2s);
    EXPECT_EQ(keys.s2c, r.keys.s2c);
  }
  EXPECT_NE(r.keys.c2s, r.keys.s2c);
  EXPECT_NE(resp.cookies[0], resp.cookies[1]);  // fresh nonces
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.cookies_issued.load() == 8 && s.connections_active.load() == 0;
  }));
  EXPECT_EQ(server_->stats().handshakes_ok.load(), 1u);
}

TEST_F(NtsKeServerTest, Tls12IsRefused) {
  StartServer();
  KeClientOptions o = Options();
  o.max_version = TLS1_2_VERSION;
  EXPECT_FALSE(RunKeClient(port_, o).handshake_ok);
  EXPECT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.handshakes_failed.load() == 1; }));
}

TEST_F(NtsKeServerTest, WrongOrMissingAlpnIsRefused) {
  StartServer();
  KeClientOptions o = Options();
  o.alpn = "http/1.1";
  EXPECT_FALSE(RunKeClient(port_, o).handshake_ok);
  o.alpn = "";
  EXPECT_FALSE(RunKeClient(port_, o).handshake_ok);
  EXPECT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.handshakes_failed.load() == 2; }));
  EXPECT_EQ(server_->stats().handshakes_ok.load(), 0u);
}

TEST_F(NtsKeServerTest, BadRequestGetsAnErrorRecord) {
  StartServer();
  KeClientOptions o = Options();
  const uint16_t ntp[] = {0};
  o.request = core::BuildNtsKeRequest(ntp, {});  // NTPv4 without AEAD
  const core::NtsKeResponse resp = Parse(RunKeClient(port_, o).response);
  EXPECT_EQ(resp.error, 1);
  EXPECT_TRUE(resp.cookies.empty());
  std::vector<uint8_t> critical = testing_nts::StandardRequest();
  critical.insert(critical.begin(), {0xc0, 0x00, 0x00, 0x00});  // type 0x4000
  o.request = critical;
  EXPECT_EQ(Parse(RunKeClient(port_, o).response).error, 0);
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.record_errors[0].load() == 1 && s.record_errors[1].load() == 1;
  }));
}

TEST_F(NtsKeServerTest, NoKeystoreIsAnInternalServerError) {
  keystore_ = nullptr;
  StartServer();
  EXPECT_EQ(Parse(RunKeClient(port_, Options()).response).error, 2);
}

TEST_F(NtsKeServerTest, StalledClientsAreCutOffAtTheTimeouts) {
  config_.handshake_timeout = absl::Milliseconds(200);
  config_.request_timeout = absl::Milliseconds(200);
  StartServer();
  // Connects, sends no ClientHello.
  KeClient silent;
  ASSERT_TRUE(silent.Connect(port_));
  // Completes the handshake, sends no request.
  KeClientOptions o = Options();
  o.send_request = false;
  KeClient idle;
  ASSERT_TRUE(idle.Connect(port_));
  ASSERT_TRUE(idle.Handshake(o));
  const absl::Time start = absl::Now();
  char b;
  EXPECT_EQ(recv(silent.fd(), &b, 1, 0), 0);  // the server closed it
  EXPECT_TRUE(idle.ReadAll().empty());
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.timeouts_handshake.load() == 1 && s.timeouts_request.load() == 1 &&
           s.connections_active.load() == 0;
  }));
}

TEST_F(NtsKeServerTest, ConnectionsOverTheLimitAreClosed) {
  config_.max_connections = 2;
  StartServer();
  KeClient a, b, c;
  ASSERT_TRUE(a.Connect(port_));
  ASSERT_TRUE(b.Connect(port_));
  ASSERT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.connections_active.load() == 2; }));
  ASSERT_TRUE(c.Connect(port_));
  char x;
  const absl::Time start = absl::Now();
  EXPECT_LE(recv(c.fd(), &x, 1, 0), 0);  // closed at once, not at a timeout
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.connections_rejected[static_cast<size_t>(
                                      core::NtsKeRefusal::kFull)]
               .load() == 1;
  }));
  // Below the limit again: served.
  shutdown(a.fd(), SHUT_RDWR);
  ASSERT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.connections_active.load() <= 1; },
      absl::Seconds(6)));
  EXPECT_EQ(Parse(RunKeClient(port_, Options()).response).cookies.size(), 8u);
}

// chrony's ntsratelimit per source: past the burst a source's connections
// are closed at accept (no TLS, no timeout), counted, and reported by
// source (refusals(): what the alarm reports); another source is served.
TEST_F(NtsKeServerTest, ASourceOverItsRateIsRefusedAtOnce) {
  config_.rate_limit = true;
  config_.rate = {6, 2, 4};  // one per 64 s, burst 2, leak 1 in 16
  StartServer();
  KeClientOptions o = Options();
  o.source_ip = "127.0.0.5";
  EXPECT_EQ(Parse(RunKeClient(port_, o).response).cookies.size(), 8u);
  EXPECT_EQ(Parse(RunKeClient(port_, o).response).cookies.size(), 8u);
  int refused_at_once = 0;
  for (int i = 0; i < 20; ++i) {
    KeClient c;
    ASSERT_TRUE(c.Connect(port_, false, "127.0.0.5"));
    timeval tv{0, 300'000};  // a leaked one waits for its handshake
    setsockopt(c.fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char x;
    refused_at_once += recv(c.fd(), &x, 1, 0) == 0;
  }
  EXPECT_GE(refused_at_once, 12);  // all but the 1-in-16 leak, roughly
  // The count follows the close the client saw. An idle leaked connection
  // may also be closed early (cut for a newcomer from the same source), so
  // every refusal was seen closed, not every close is a refusal.
  NtsKeServer::Refusals refused = server_->refusals();
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  while (refused.rate_limited < static_cast<uint64_t>(refused_at_once) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    refused = server_->refusals();
  }
  EXPECT_GE(refused.rate_limited, 12u);
  EXPECT_LE(refused.rate_limited, static_cast<uint64_t>(refused_at_once));
  EXPECT_EQ(refused.full, 0u);
  EXPECT_EQ(refused.top_source, "127.0.0.5");
  o.source_ip = "127.0.0.6";
  EXPECT_EQ(Parse(RunKeClient(port_, o).response).cookies.size(), 8u);
  EXPECT_TRUE(WaitFor([&](const NtsKeStats& s) {
    return s.connections_rejected[static_cast<size_t>(
                                      core::NtsKeRefusal::kRateLimited)]
                   .load() == static_cast<uint64_t>(refused_at_once) &&
           s.sources.load() == 2;
  }));
  const std::string text = prometheus::TextSerializer().Serialize(
      server_->ScrapeCollectable()->Collect());
  EXPECT_THAT(text, HasSubstr("zeitgeber_nts_ke_connections_rejected_total{"
                              "reason=\"rate_limited\"}"));
}

// Every slot held by idle connections of one source: a new source is
// served, the flood's idlest connection cut for it; the flood's own next
// connection is refused (it holds the most).
TEST_F(NtsKeServerTest, AFloodingSourceGivesUpASlotToAnother) {
  config_.max_connections = 4;
  StartServer();
  std::vector<std::unique_ptr<KeClient>> flood;
  for (int i = 0; i < 4; ++i) {
    flood.push_back(std::make_unique<KeClient>());
    ASSERT_TRUE(flood.back()->Connect(port_, false, "127.0.0.7"));
  }
  ASSERT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.connections_active.load() == 4; }));
  KeClientOptions o = Options();
  o.source_ip = "127.0.0.8";
  const KeClientResult r = RunKeClient(port_, o);
  EXPECT_EQ(Parse(r.response).cookies.size(), 8u);
  EXPECT_EQ(server_->stats().connections_cut.load(), 1u);
  int closed = 0;
  for (auto& c : flood) {
    timeval tv{0, 200'000};
    setsockopt(c->fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char x;
    closed += recv(c->fd(), &x, 1, 0) == 0;
  }
  EXPECT_EQ(closed, 1);
  // Full again (the flood 3, the other source 1): the flood's next one is
  // refused, it holds the most.
  KeClient other;
  ASSERT_TRUE(other.Connect(port_, false, "127.0.0.8"));
  ASSERT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.connections_active.load() == 4; }));
  KeClient more;
  ASSERT_TRUE(more.Connect(port_, false, "127.0.0.7"));
  char x;
  EXPECT_EQ(recv(more.fd(), &x, 1, 0), 0);
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.connections_rejected[static_cast<size_t>(
                                      core::NtsKeRefusal::kFull)]
               .load() == 1;
  }));
}

TEST_F(NtsKeServerTest, ConcurrentClientsAmidConnectAndDropNoise) {
  StartServer();
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        const KeClientResult r = RunKeClient(port_, Options());
        core::NtsKeResponse resp;
        if (core::ParseNtsKeResponse(r.response, &resp) ==
                core::NtsKeResponseParse::kComplete &&
            resp.cookies.size() == 8) {
          ++good;
        }
      }
    });
  }
  for (int i = 0; i < 50; ++i) {  // connect and vanish, some mid-ClientHello
    KeClient noise;
    if (noise.Connect(port_) && i % 2 == 0) {
      const uint8_t junk[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
      send(noise.fd(), junk, sizeof(junk), 0);
    }
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(good.load(), 30);
  EXPECT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.connections_active.load() == 0 && s.cookies_issued.load() == 240;
  }));
}

// Clients that reset (SO_LINGER 0) right after their request: the server's
// writes then fail with EPIPE, which must not raise SIGPIPE and kill the
// process.
TEST_F(NtsKeServerTest, ClientsThatResetDoNotKillTheServer) {
  StartServer();
  for (int i = 0; i < 100; ++i) {
    KeClient c;
    ASSERT_TRUE(c.Connect(port_));
    ASSERT_TRUE(c.Handshake(Options()));
    c.Send(testing_nts::StandardRequest());
    const linger hard{1, 0};
    setsockopt(c.fd(), SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
    shutdown(c.fd(), SHUT_RDWR);
  }
  EXPECT_EQ(Parse(RunKeClient(port_, Options()).response).cookies.size(), 8u);
}

// Out of descriptors (EMFILE on accept): the server stops watching its
// listener for a moment instead of spinning, and accepts the waiting
// connections once descriptors are back.
TEST_F(NtsKeServerTest, AcceptPausesWhileOutOfDescriptors) {
  StartServer();
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) fds.push_back(socket(AF_INET, SOCK_STREAM, 0));
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  const int probe = dup(0);  // the lowest free descriptor: the count in use
  close(probe);
  rlimit tight = saved;
  tight.rlim_cur = static_cast<rlim_t>(probe);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &tight), 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port_);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int fd : fds) {
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  }
  absl::SleepFor(absl::Milliseconds(300));  // accept failed: EMFILE
  EXPECT_EQ(server_->stats().connections_active.load(), 0u);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_TRUE(WaitFor(
      [](const NtsKeStats& s) { return s.connections_active.load() == 4; }));
  for (int fd : fds) close(fd);
  EXPECT_EQ(Parse(RunKeClient(port_, Options()).response).cookies.size(), 8u);
}

TEST_F(NtsKeServerTest, ReloadSwapsTheCertificateForNewConnections) {
  StartServer();
  KeClientOptions o = Options();
  KeClient old_conn;
  ASSERT_TRUE(old_conn.Connect(port_));
  ASSERT_TRUE(old_conn.Handshake(o));
  EXPECT_THAT(old_conn.PeerSubject(), HasSubstr("CN=ke-a"));

  ASSERT_TRUE(server_->ReloadCertificate(pki_->cert_b, pki_->key_b).ok());
  const KeClientResult fresh = RunKeClient(port_, o);
  ASSERT_TRUE(fresh.handshake_ok);
  EXPECT_THAT(fresh.peer_subject, HasSubstr("CN=ke-b"));
  EXPECT_EQ(Parse(fresh.response).cookies.size(), 8u);

  // The established connection completes on the old context.
  ASSERT_TRUE(old_conn.Send(testing_nts::StandardRequest()));
  EXPECT_EQ(Parse(old_conn.ReadAll()).cookies.size(), 8u);

  // A bad pair is refused and the one in force stays.
  const absl::Status bad = server_->ReloadCertificate(pki_->cert, pki_->key_b);
  EXPECT_THAT(bad.message(), HasSubstr("does not match"));
  EXPECT_THAT(RunKeClient(port_, o).peer_subject, HasSubstr("CN=ke-b"));
}

TEST_F(NtsKeServerTest, StartUpErrorsNameTheFile) {
  config_.cert_path = dir_->File("missing.pem");
  auto s = NtsKeServer::Start(config_, [this] { return keystore_; });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("--nts_cert"));
  EXPECT_THAT(s.status().message(), HasSubstr("missing.pem"));

  config_.cert_path = pki_->cert;
  config_.key_path = pki_->key_b;
  s = NtsKeServer::Start(config_, [this] { return keystore_; });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("does not match"));
  EXPECT_THAT(s.status().message(), HasSubstr(pki_->key_b));

  config_.key_path = pki_->key;
  config_.max_connections = 1u << 30;  // more descriptors than allowed
  s = NtsKeServer::Start(config_, [this] { return keystore_; });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("ulimit -n"));
  config_.max_connections = 256;

  config_.key_path = pki_->cert;  // a certificate is not a key
  s = NtsKeServer::Start(config_, [this] { return keystore_; });
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("--nts_key"));
}

TEST_F(NtsKeServerTest, ListensOnIpv4AndIpv6) {
  config_.addresses = {{"127.0.0.1", 0}, {"::1", 0}};
  StartServer();
  ASSERT_EQ(server_->ports().size(), 2u);
  EXPECT_NE(server_->ports()[1], 0);
  EXPECT_EQ(Parse(RunKeClient(port_, Options()).response).cookies.size(), 8u);
  KeClientOptions o = Options();
  o.ipv6 = true;
  EXPECT_EQ(Parse(RunKeClient(server_->ports()[1], o).response).cookies.size(),
            8u);
  server_->Stop();
  server_->Stop();  // idempotent
  KeClient late;
  EXPECT_FALSE(late.Connect(port_));
}

// `promtool check metrics` on an exposition; "" when it passes.
std::string PromtoolProblems(const std::string& body) {
  const std::string path = ::testing::TempDir() + "/zg_ntske_metrics_" +
                           std::to_string(getpid()) + ".txt";
  std::ofstream(path) << body;
  FILE* p = popen(("promtool check metrics < " + path + " 2>&1").c_str(), "r");
  if (p == nullptr) return "cannot run promtool";
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  const int rc = pclose(p);
  std::remove(path.c_str());
  return rc == 0 ? "" : "promtool check metrics:\n" + out;
}

// The families are read when scraped: nothing copies them on a timer, and
// a collectable taken before the traffic sees it, even after the server
// is gone.
TEST_F(NtsKeServerTest, MetricsCountWhatHappened) {
  StartServer();
  const std::shared_ptr<prometheus::Collectable> metrics =
      server_->ScrapeCollectable();
  RunKeClient(port_, Options());
  KeClientOptions o = Options();
  o.alpn = "";
  RunKeClient(port_, o);
  o = Options();
  o.request = {0x80, 0x00, 0x00, 0x00};  // End of Message alone
  RunKeClient(port_, o);
  ASSERT_TRUE(WaitFor([](const NtsKeStats& s) {
    return s.handshakes_failed.load() == 1 && s.record_errors[1].load() == 1 &&
           s.connections_active.load() == 0;
  }));
  server_.reset();
  const std::string text =
      prometheus::TextSerializer().Serialize(metrics->Collect());
  for (const char* want : {
           "zeitgeber_nts_ke_handshakes_total{result=\"ok\"} 2",
           "zeitgeber_nts_ke_handshakes_total{result=\"failed\"} 1",
           "zeitgeber_nts_ke_connections_active 0",
           "zeitgeber_nts_ke_records_errors_total{code=\"bad_request\"} 1",
           "zeitgeber_nts_ke_responses_total{result=\"cookies\"} 1",
           "zeitgeber_nts_ke_responses_total{result=\"error\"} 1",
           "zeitgeber_nts_ke_cookies_issued_total 8",
           "zeitgeber_nts_ke_timeouts_total{phase=\"handshake\"} 0",
       }) {
    EXPECT_THAT(text, HasSubstr(want));
  }
  if (system("command -v promtool >/dev/null 2>&1") == 0) {
    EXPECT_EQ(PromtoolProblems(text), "");
  }
}

}  // namespace
}  // namespace nts_ke_server_test
}  // namespace zg::dataplane
