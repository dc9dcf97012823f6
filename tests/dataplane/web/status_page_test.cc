// SPDX-License-Identifier: Apache-2.0
// The status page server (dataplane/web/status_page.h) on loopback, with a
// fixed backend: its routes, the audit download byte for byte, and every
// bad input the page must hold against — oversized and malformed requests,
// slow clients, path traversal, too many connections, repeated wrong
// passwords — each answered with a clear HTTP error while other clients are
// still served. HTTPS against a test CA with curl, the certificate reloaded
// in place, and plain HTTP away from loopback refused at start.
#include "dataplane/web/status_page.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace status_page_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// htpasswd -nbB -C 5 ops 'correct horse'
constexpr char kUsers[] =
    "ops:$2y$05$MNLGfhqf87huJsBVN2JNk.4amtl8vaCEAZbUNrjrYYnPf09LkHqrS\n";

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void SendAll(int fd, absl::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads until the peer closes or `timeout` passes.
std::string ReadAll(int fd, absl::Duration timeout = absl::Seconds(5)) {
  std::string out;
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    pollfd p{.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Whether the server closed `fd` within `timeout`.
bool ClosedWithin(int fd, absl::Duration timeout) {
  const absl::Time end = absl::Now() + timeout;
  while (absl::Now() < end) {
    pollfd p{.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    if (recv(fd, buf, sizeof(buf), 0) <= 0) return true;
  }
  return false;
}

std::string Raw(int port, absl::string_view request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  SendAll(fd, request);
  std::string r = ReadAll(fd);
  close(fd);
  return r;
}

std::string Get(int port, absl::string_view path,
                absl::string_view extra = "") {
  return Raw(port, absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: t\r\n", extra,
                                "\r\n"));
}

int StatusOf(const std::string& response) {
  int code = 0;
  if (sscanf(response.c_str(), "HTTP/1.%*d %d", &code) != 1) return 0;
  return code;
}

std::string BodyOf(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

std::string Basic(absl::string_view user, absl::string_view password) {
  return absl::StrCat("Authorization: Basic ",
                      absl::Base64Escape(absl::StrCat(user, ":", password)),
                      "\r\n");
}

class StatusPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("page");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
    options_.address = "127.0.0.1:0";
    options_.request_timeout_ms = 600;
    options_.audit_log_path = dir_->File("audit.jsonl");
    options_.guard.max_connections_per_client = 3;
    options_.guard.max_failures = 4;
    if (const char* shim = std::getenv("ZG_CIVETWEB_SSL_SHIM")) {
      options_.tls_shim_paths = {shim};
    }
  }

  StatusPageBackend Backend() {
    StatusPageBackend b;
    b.read_commands = {"tracking", "sources"};
    b.change_commands = {"drain"};
    b.read = [](const std::string& c, const nlohmann::json& args) {
      return ApiReply{200, nlohmann::json{{"version", 1},
                                          {"command", c},
                                          {"ok", true},
                                          {"data", {{"args", args}}}}
                               .dump()};
    };
    b.change = [this](const std::string& c, const nlohmann::json&,
                      const std::string& user, const std::string& client) {
      changes_.push_back(absl::StrCat(c, " by ", user, " at ", client));
      return ApiReply{200, R"({"version":1,"ok":true,"data":{}})"};
    };
    b.sample = [] {
      return HistorySample{.utc_s = absl::ToUnixSeconds(absl::Now()),
                           .offset_ns = 12.5,
                           .frequency_ppb = -3,
                           .error_bound_ns = 800};
    };
    b.audit = [this](const WebAccessEvent& e) {
      std::lock_guard<std::mutex> lock(audit_mu_);
      audit_.push_back(e);
    };
    return b;
  }

  void StartPage() {
    absl::StatusOr<std::unique_ptr<StatusPage>> page =
        StatusPage::Start(options_, Backend());
    ASSERT_TRUE(page.ok()) << page.status();
    page_ = std::move(*page);
    port_ = page_->port();
    ASSERT_GT(port_, 0);
  }

  void WriteUsers() {
    options_.users_path = dir_->File("users");
    std::ofstream(options_.users_path) << kUsers;
    chmod(options_.users_path.c_str(), 0600);
  }

  std::optional<testutil::TempDir> dir_;
  StatusPageOptions options_;
  std::unique_ptr<StatusPage> page_;
  int port_ = 0;
  std::vector<std::string> changes_;
  std::mutex audit_mu_;
  std::vector<WebAccessEvent> audit_;
};

TEST_F(StatusPageTest, ServesThePageAndTheCommandsReplies) {
  StartPage();
  const std::string index = Get(port_, "/");
  EXPECT_EQ(StatusOf(index), 200);
  EXPECT_THAT(index, HasSubstr("Content-Security-Policy: default-src 'self'"));
  EXPECT_THAT(index, HasSubstr("<script src=\"/app.js\">"));
  EXPECT_EQ(StatusOf(Get(port_, "/app.js")), 200);
  EXPECT_EQ(StatusOf(Get(port_, "/style.css")), 200);
  const std::string r =
      Get(port_, "/api/tracking?verbose=true&top=5&who=a%20b");
  EXPECT_EQ(StatusOf(r), 200);
  const nlohmann::json j = nlohmann::json::parse(BodyOf(r));
  EXPECT_EQ(j["command"], "tracking");
  EXPECT_EQ(j["data"]["args"],
            (nlohmann::json{{"verbose", true}, {"top", 5}, {"who", "a b"}}));
  const std::string session = Get(port_, "/api/session");
  EXPECT_EQ(StatusOf(session), 200);
  EXPECT_THAT(BodyOf(session), HasSubstr("\"poll_interval_ms\":2000"));
  const std::string unknown = Get(port_, "/api/nope");
  EXPECT_EQ(StatusOf(unknown), 404);
  EXPECT_THAT(unknown, HasSubstr("unknown_command"));
  EXPECT_EQ(StatusOf(Get(port_, "/nothing/here")), 404);
  EXPECT_EQ(StatusOf(Raw(port_, "DELETE / HTTP/1.1\r\nHost: t\r\n\r\n")), 405);
}

TEST_F(StatusPageTest, HistoryHasPointsFromTheSampler) {
  StartPage();
  absl::SleepFor(absl::Milliseconds(2200));
  const std::string r = Get(port_, "/api/history?range=hour");
  ASSERT_EQ(StatusOf(r), 200);
  const nlohmann::json j = nlohmann::json::parse(BodyOf(r));
  ASSERT_GE(j["data"]["points"].size(), 1u);
  EXPECT_EQ(j["data"]["points"][0][1], 12.5);
  EXPECT_EQ(StatusOf(Get(port_, "/api/history?range=year")), 400);
}

TEST_F(StatusPageTest, AuditDownloadIsTheFileByteForByte) {
  std::string lines;
  for (int i = 0; i < 5000; ++i) {
    lines += absl::StrCat(R"({"seq":)", i, R"(,"event":"start","utf8":"时间"})",
                          "\n");
  }
  std::ofstream(options_.audit_log_path, std::ios::binary) << lines;
  StartPage();
  const std::string r = Get(port_, "/audit.jsonl");
  ASSERT_EQ(StatusOf(r), 200);
  EXPECT_THAT(r, HasSubstr("Content-Disposition: attachment"));
  EXPECT_EQ(BodyOf(r), lines);
}

TEST_F(StatusPageTest, PathTraversalFindsNothing) {
  std::ofstream(options_.audit_log_path) << "{}\n";
  StartPage();
  for (const char* path :
       {"/../../../../etc/passwd", "/audit.jsonl/../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/audit.jsonl%2f..%2f..%2f..%2fetc%2fpasswd", "/./audit.jsonl/..",
        "/api/../../etc/passwd", "/app.js/../../../etc/shadow", "//etc/passwd",
        "/..%5c..%5cetc%5cpasswd"}) {
    const std::string r = Get(port_, path);
    const int status = StatusOf(r);
    EXPECT_TRUE(status == 404 || status == 400) << path << ": " << status;
    EXPECT_THAT(r, Not(HasSubstr("root:"))) << path;
  }
}

TEST_F(StatusPageTest, OversizedAndMalformedRequestsGetClearErrors) {
  StartPage();
  const std::string huge = absl::StrCat(
      "GET / HTTP/1.1\r\nHost: t\r\nX-Big: ", std::string(64 * 1024, 'a'),
      "\r\n\r\n");
  const int big = StatusOf(Raw(port_, huge));
  EXPECT_TRUE(big == 413 || big == 400) << big;  // civetweb: 400
  EXPECT_EQ(StatusOf(Raw(port_, "NONSENSE\r\n\r\n")), 400);
  EXPECT_EQ(
      StatusOf(Raw(port_, "GET / HTTP/1.1\r\nBroken header line\r\n\r\n")),
      400);
  const std::string long_query =
      absl::StrCat("/api/tracking?x=", std::string(4000, 'q'));
  EXPECT_EQ(StatusOf(Get(port_, long_query)), 414);
  EXPECT_EQ(StatusOf(Get(port_, "/api/tracking?%zz=1")), 400);
  // Still serving.
  EXPECT_EQ(StatusOf(Get(port_, "/api/tracking")), 200);
}

TEST_F(StatusPageTest, SlowClientsAreDroppedAndOthersStillServed) {
  StartPage();
  std::vector<int> slow;
  for (int i = 0; i < 2; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0);
    SendAll(fd, "GET / HTTP/1.1\r\nHost: t\r\n");  // and never the end
    slow.push_back(fd);
  }
  EXPECT_EQ(StatusOf(Get(port_, "/api/tracking")), 200);
  // request_timeout_ms = 600: dropped well within 3 s.
  for (int fd : slow) {
    EXPECT_TRUE(ClosedWithin(fd, absl::Seconds(3)));
    close(fd);
  }
}

TEST_F(StatusPageTest, TooManyConnectionsFromOneAddressGet503) {
  // Three requests in progress (changes whose bodies never come), held for
  // the request timeout; the fourth from the same address is refused.
  options_.request_timeout_ms = 3000;
  WriteUsers();
  StartPage();
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0);
    SendAll(fd, absl::StrCat("POST /api/drain HTTP/1.1\r\nHost: t\r\n",
                             Basic("ops", "correct horse"),
                             "X-Zeitgeber-Change: 1\r\nContent-Length: 100\r\n"
                             "\r\n{"));
    held.push_back(fd);
  }
  absl::SleepFor(absl::Milliseconds(500));
  const std::string r =
      Get(port_, "/api/tracking", Basic("ops", "correct horse"));
  EXPECT_EQ(StatusOf(r), 503);
  EXPECT_THAT(r, HasSubstr("too_many_connections"));
  EXPECT_THAT(r, HasSubstr("Retry-After: 1"));
  for (int fd : held) close(fd);
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(
      StatusOf(Get(port_, "/api/tracking", Basic("ops", "correct horse"))),
      200);
  EXPECT_TRUE(changes_.empty());
}

TEST_F(StatusPageTest, WrongPasswordsAreThrottledAndAudited) {
  WriteUsers();
  StartPage();
  EXPECT_EQ(StatusOf(Get(port_, "/api/tracking")), 401);
  const std::string challenge = Get(port_, "/");
  EXPECT_THAT(challenge, HasSubstr("WWW-Authenticate: Basic realm="));
  EXPECT_EQ(
      StatusOf(Get(port_, "/api/tracking", Basic("ops", "correct horse"))),
      200);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(StatusOf(Get(port_, "/api/tracking", Basic("ops", "guess"))),
              401);
  }
  const std::string locked = Get(port_, "/api/tracking", Basic("ops", "guess"));
  EXPECT_EQ(StatusOf(locked), 429);
  EXPECT_THAT(locked, HasSubstr("Retry-After: 30"));
  // While locked out even the right password waits.
  EXPECT_EQ(
      StatusOf(Get(port_, "/api/tracking", Basic("ops", "correct horse"))),
      429);
  std::lock_guard<std::mutex> lock(audit_mu_);
  ASSERT_EQ(audit_.size(), 4u);
  EXPECT_EQ(audit_[0].client, "127.0.0.1");
  EXPECT_EQ(audit_[0].user, "ops");
  EXPECT_EQ(audit_[3].failures, 4);
  EXPECT_EQ(audit_[3].locked_s, 30);
}

TEST_F(StatusPageTest, ChangesNeedAUserAndTheHeader) {
  const std::string post =
      "POST /api/drain HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n";
  StartPage();
  const std::string no_users =
      Raw(port_, absl::StrCat(post, "X-Zeitgeber-Change: 1\r\n\r\n{}"));
  EXPECT_EQ(StatusOf(no_users), 403);
  EXPECT_THAT(no_users, HasSubstr("--status_users"));
  page_.reset();
  WriteUsers();
  StartPage();
  const std::string auth = Basic("ops", "correct horse");
  EXPECT_EQ(StatusOf(Raw(port_, absl::StrCat(post, auth, "\r\n{}"))), 403);
  EXPECT_EQ(
      StatusOf(Raw(
          port_, absl::StrCat(post, auth, "X-Zeitgeber-Change: 1\r\n\r\n{}"))),
      200);
  EXPECT_EQ(changes_, std::vector<std::string>{"drain by ops at 127.0.0.1"});
  EXPECT_EQ(StatusOf(Raw(port_,
                         absl::StrCat("POST /api/drain HTTP/1.1\r\nHost: t\r\n",
                                      "Content-Length: 100000\r\n", auth,
                                      "X-Zeitgeber-Change: 1\r\n\r\n{}"))),
            413);
  EXPECT_EQ(
      StatusOf(Raw(
          port_, absl::StrCat(post, auth, "X-Zeitgeber-Change: 1\r\n\r\n[]"))),
      400);
  EXPECT_EQ(StatusOf(Raw(
                port_, absl::StrCat("POST /api/tracking HTTP/1.1\r\nHost: t\r\n"
                                    "Content-Length: 2\r\n",
                                    auth, "X-Zeitgeber-Change: 1\r\n\r\n{}"))),
            404);
}

TEST_F(StatusPageTest, PlainHttpAwayFromLoopbackIsRefusedAtStart) {
  options_.address = "0.0.0.0:0";
  absl::StatusOr<std::unique_ptr<StatusPage>> page =
      StatusPage::Start(options_, Backend());
  ASSERT_FALSE(page.ok());
  EXPECT_THAT(page.status().message(), HasSubstr("HTTPS only"));
  EXPECT_THAT(page.status().message(), HasSubstr("--status_cert"));
  options_.address = "[::1]:0";
  EXPECT_FALSE(StatusPage::Start(options_, Backend()).ok());
  options_.address = "127.0.0.1";
  EXPECT_THAT(StatusPage::Start(options_, Backend()).status().message(),
              HasSubstr("HOST:PORT"));
}

// A CA and a server certificate for 127.0.0.1 made with the openssl CLI.
void MakeCert(const testutil::TempDir& dir, const std::string& cn,
              const std::string& name) {
  const auto run = [](std::vector<std::string> argv) {
    absl::StatusOr<testutil::CommandResult> r =
        testutil::RunCommand(argv, absl::Seconds(30));
    ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->Describe() : "");
  };
  if (access(dir.File("ca.pem").c_str(), F_OK) != 0) {
    run({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
         "ec_paramgen_curve:P-256", "-nodes", "-keyout", dir.File("ca.key"),
         "-out", dir.File("ca.pem"), "-days", "2", "-subj", "/CN=zg test CA"});
  }
  run({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
       "-nodes", "-keyout", dir.File(name + ".key"), "-out",
       dir.File(name + ".csr"), "-subj", "/CN=" + cn});
  std::ofstream(dir.File("ext")) << "subjectAltName=IP:127.0.0.1\n";
  run({"openssl", "x509", "-req", "-in", dir.File(name + ".csr"), "-CA",
       dir.File("ca.pem"), "-CAkey", dir.File("ca.key"), "-CAcreateserial",
       "-days", "2", "-extfile", dir.File("ext"), "-out",
       dir.File(name + ".pem")});
  chmod(dir.File(name + ".key").c_str(), 0600);
}

TEST_F(StatusPageTest, HttpsWithTheTestCaAndACertificateReloadedInPlace) {
  MakeCert(*dir_, "first.zg.test", "server");
  options_.cert_path = dir_->File("server.pem");
  options_.key_path = dir_->File("server.key");
  StartPage();
  ASSERT_TRUE(page_->https());
  const std::string url =
      absl::StrCat("https://127.0.0.1:", port_, "/api/session");
  const auto curl = [&] {
    absl::StatusOr<testutil::CommandResult> r = testutil::RunCommand(
        {"curl", "-sS", "-v", "--cacert", dir_->File("ca.pem"), url},
        absl::Seconds(20));
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : testutil::CommandResult{};
  };
  testutil::CommandResult first = curl();
  ASSERT_TRUE(first.ok()) << first.Describe();
  EXPECT_THAT(first.stdout_text, HasSubstr("\"https\":true"));
  EXPECT_THAT(first.stderr_text, HasSubstr("CN=first.zg.test"));
  EXPECT_THAT(first.stderr_text, HasSubstr("Strict-Transport-Security"));
  // Plain HTTP on the HTTPS port gets no page.
  EXPECT_THAT(Get(port_, "/api/session"), Not(HasSubstr("\"https\"")));
  // A new pair under the same names, then SIGHUP's Reload.
  MakeCert(*dir_, "second.zg.test", "server");
  ASSERT_TRUE(page_->Reload().ok());
  testutil::CommandResult second = curl();
  ASSERT_TRUE(second.ok()) << second.Describe();
  EXPECT_THAT(second.stderr_text, HasSubstr("CN=second.zg.test"));
  // A key that does not match keeps the pair in use.
  MakeCert(*dir_, "third.zg.test", "other");
  std::ifstream other(dir_->File("other.pem"));
  std::ofstream(options_.cert_path) << other.rdbuf();
  EXPECT_THAT(page_->Reload().message(), HasSubstr("does not match"));
  EXPECT_THAT(curl().stderr_text, HasSubstr("CN=second.zg.test"));
}

}  // namespace
}  // namespace status_page_test
}  // namespace zg::dataplane
