// SPDX-License-Identifier: Apache-2.0
// The control socket against bad clients (control_server.h): malformed
// JSON, unknown versions and commands, a 1 MiB request, 1000 connections at
// once, a client that never reads, one that leaves mid-reply, one that never
// sends, pipelined requests; each gets a clear error or is cut off, the
// server keeps one thread and answers the next client. Also: changes go
// through the control-thread queue (and time out if it never runs), and
// the socket file's mode, group and stale/live handling.
#include "servo/api/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "servo/api/status_commands.h"
#include "tests/util/temp_dir.h"
#include "tests/util/unix_client.h"

namespace zg::servo {
namespace control_server_test {
namespace {

using nlohmann::json;

constexpr size_t kMaxConnections = 16;

int ThreadCount() {
  int n = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++n;
  }
  return n;
}

std::string Request(const std::string& command, json args = json::object()) {
  return FormatRequest(command, args);
}

json Parse(const std::string& line) {
  return json::parse(line, nullptr, false);
}

// The control plane's snapshots, fixed.
class FixedSnapshots : public ControlSnapshots {
 public:
  std::shared_ptr<const ControlPlaneStatus> Status() const override {
    return status;
  }
  std::shared_ptr<const AlarmTable> Alarms() const override { return alarms; }
  std::shared_ptr<const ControlPlaneStatus> status;
  std::shared_ptr<const AlarmTable> alarms;
};

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("ctl");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<testutil::TempDir>(std::move(*dir));
    path_ = dir_->File("zg.sock");
    auto status = std::make_shared<ControlPlaneStatus>();
    status->discipline.state = core::SyncState::kLocked;
    snapshots_.status = status;
    board_.control = &snapshots_;
    ASSERT_TRUE(AddStatusCommands(table_, board_, {}).ok());
    // A reply of 3 MiB: more than the socket buffers hold.
    ASSERT_TRUE(
        table_
            .Add({.name = "big",
                  .run = [](const CommandCall&) -> CommandOutcome {
                    return Reply::Ok({{"blob", std::string(3 << 20, 'x')}});
                  }})
            .ok());
    ASSERT_TRUE(
        table_
            .Add({.name = "change",
                  .access = CommandAccess::kChange,
                  .run = [this](const CommandCall& c) -> CommandOutcome {
                    return queue_.Post(
                        [this] {
                          changes_.fetch_add(1);
                          return Reply::Ok({{"changed", true}});
                        },
                        c.wake);
                  }})
            .ok());
  }
  void TearDown() override {
    stop_control_ = true;
    if (control_.joinable()) control_.join();
  }

  void StartServer(ControlServerOptions o = {}) {
    o.path = path_;
    o.max_connections = kMaxConnections;
    if (o.idle_timeout_ns == ControlServerOptions{}.idle_timeout_ns) {
      o.idle_timeout_ns = 2'000'000'000;
    }
    o.write_timeout_ns = 1'000'000'000;
    o.reply_timeout_ns = 1'000'000'000;
    absl::StatusOr<std::unique_ptr<ControlServer>> s =
        ControlServer::Start(o, &table_);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
  }

  // The "control thread": runs posted changes every 10 ms.
  void StartControlThread() {
    control_ = std::thread([this] {
      while (!stop_control_) {
        queue_.RunPending();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }

  // One request on a fresh connection.
  json Call(const std::string& command, json args = json::object()) {
    const int fd = testutil::ConnectUnix(path_);
    EXPECT_GE(fd, 0);
    EXPECT_TRUE(testutil::SendAll(fd, Request(command, std::move(args))));
    const json r = Parse(testutil::ReadLine(fd));
    close(fd);
    return r;
  }

  std::unique_ptr<testutil::TempDir> dir_;
  std::string path_;
  FixedSnapshots snapshots_;
  StatusBoard board_;
  CommandTable table_{geteuid()};
  ControlRequestQueue queue_;
  std::atomic<int> changes_{0};
  std::atomic<bool> stop_control_{false};
  std::thread control_;
  std::unique_ptr<ControlServer> server_;  // last: stops first
};

TEST_F(ControlServerTest, AnswersRequestsOnOneConnection) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(testutil::SendAll(fd, Request("tracking")));
    const json r = Parse(testutil::ReadLine(fd));
    EXPECT_EQ(r["ok"], true);
    EXPECT_EQ(r["version"], 1);
    EXPECT_EQ(r["command"], "tracking");
    EXPECT_EQ(r["data"]["state"], "LOCKED");
  }
  close(fd);
}

TEST_F(ControlServerTest, MalformedJsonGetsAnErrorAndTheConnectionStays) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  ASSERT_TRUE(testutil::SendAll(fd, "{\"version\":1,\"command\n"));
  json r = Parse(testutil::ReadLine(fd));
  EXPECT_EQ(r["ok"], false);
  EXPECT_EQ(r["error"]["code"], "bad_request");
  ASSERT_TRUE(testutil::SendAll(fd, "\x01\x02\xff garbage\n"));
  EXPECT_EQ(Parse(testutil::ReadLine(fd))["error"]["code"], "bad_request");
  ASSERT_TRUE(testutil::SendAll(fd, R"({"version":9,"command":"tracking"})"
                                    "\n"));
  r = Parse(testutil::ReadLine(fd));
  EXPECT_EQ(r["error"]["code"], "unsupported_version");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("version 1"),
            std::string::npos);
  ASSERT_TRUE(testutil::SendAll(fd, Request("trackign")));
  r = Parse(testutil::ReadLine(fd));
  EXPECT_EQ(r["error"]["code"], "unknown_command");
  ASSERT_TRUE(testutil::SendAll(fd, Request("tracking", {{"verbose", true}})));
  EXPECT_EQ(Parse(testutil::ReadLine(fd))["error"]["code"], "bad_argument");
  ASSERT_TRUE(testutil::SendAll(fd, Request("tracking")));
  EXPECT_EQ(Parse(testutil::ReadLine(fd))["ok"], true);
  close(fd);
  EXPECT_EQ(server_->stats().errors.load(), 5u);
}

TEST_F(ControlServerTest, AOneMebibyteRequestIsRefusedAndCut) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  std::thread sender([fd] {
    // The server stops reading at 64 KiB: the rest may fail (EPIPE).
    testutil::SendAll(fd, std::string(1 << 20, 'a'));
  });
  const json r = Parse(testutil::ReadLine(fd));
  EXPECT_EQ(r["error"]["code"], "too_large");
  EXPECT_TRUE(testutil::ClosedWithin(fd, absl::Seconds(5)));
  shutdown(fd, SHUT_RDWR);
  sender.join();
  close(fd);
  EXPECT_EQ(server_->stats().too_large.load(), 1u);
  EXPECT_EQ(Call("tracking")["ok"], true);
}

TEST_F(ControlServerTest, AThousandConnectionsAtOnce) {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < 1200 && lim.rlim_max >= 1200) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, 4096);
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  ASSERT_GE(lim.rlim_cur, 1100u) << "RLIMIT_NOFILE too low for the test";
  StartServer();
  const int threads = ThreadCount();
  std::vector<int> fds;
  int connect_refused = 0;
  for (int i = 0; i < 1000; ++i) {
    const int fd = testutil::ConnectUnix(path_, /*nonblocking=*/true);
    if (fd < 0) {
      ++connect_refused;  // the kernel's backlog was full (EAGAIN)
    } else {
      fds.push_back(fd);
    }
  }
  EXPECT_EQ(ThreadCount(), threads);
  EXPECT_LE(server_->stats().active.load(), kMaxConnections);
  const std::string req = Request("tracking");
  for (int fd : fds) {
    [[maybe_unused]] const ssize_t n =
        send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  }
  int ok = 0, too_many = 0, other = 0;
  for (int fd : fds) {
    fcntl(fd, F_SETFL, 0);
    const json r = Parse(testutil::ReadLine(fd, absl::Seconds(10)));
    if (r.is_object() && r["ok"] == true) {
      ++ok;
    } else if (r.is_object() && r["error"]["code"] == "too_many_connections") {
      ++too_many;
    } else {
      ++other;
    }
    close(fd);
  }
  // The first 16 are served, every other one is told why it is refused.
  EXPECT_EQ(ok, static_cast<int>(kMaxConnections));
  EXPECT_EQ(too_many + connect_refused, 1000 - ok);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(server_->stats().refused.load(), static_cast<uint64_t>(too_many));
  EXPECT_EQ(ThreadCount(), threads);
  EXPECT_EQ(Call("tracking")["ok"], true);
}

TEST_F(ControlServerTest, AClientThatNeverReadsIsCutOffAndBlocksNoOne) {
  StartServer();
  const int stuck = testutil::ConnectUnix(path_);
  ASSERT_TRUE(testutil::SendAll(stuck, Request("big")));
  // Meanwhile others are served.
  EXPECT_EQ(Call("tracking")["ok"], true);
  EXPECT_TRUE(testutil::ClosedWithin(stuck, absl::Seconds(0)) == false);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (server_->stats().write_timeouts.load() == 0 &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(server_->stats().write_timeouts.load(), 1u);
  close(stuck);
  EXPECT_EQ(Call("tracking")["ok"], true);
}

TEST_F(ControlServerTest, AClientGoneMidReplyIsCountedAndForgotten) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  ASSERT_TRUE(testutil::SendAll(fd, Request("big")));
  char buf[1024];
  ASSERT_GT(recv(fd, buf, sizeof(buf), 0), 0);  // the reply has begun
  close(fd);
  // The server counts the disconnect, then closes the connection: wait for
  // both.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while ((server_->stats().disconnects.load() == 0 ||
          server_->stats().active.load() != 0) &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(server_->stats().disconnects.load(), 1u);
  EXPECT_EQ(server_->stats().active.load(), 0u);
  EXPECT_EQ(Call("tracking")["ok"], true);
}

TEST_F(ControlServerTest, AClientThatNeverSendsIsClosed) {
  StartServer({.idle_timeout_ns = 300'000'000});
  const int fd = testutil::ConnectUnix(path_);
  ASSERT_TRUE(testutil::SendAll(fd, "{\"version\":1,"));  // and nothing more
  EXPECT_TRUE(testutil::ClosedWithin(fd, absl::Seconds(10)));
  close(fd);
  EXPECT_EQ(server_->stats().idle_timeouts.load(), 1u);
}

TEST_F(ControlServerTest, PipelinedRequestsAreAnsweredInOrder) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  std::string many;
  constexpr int kRequests = 1500;  // ~60 KiB: under the request limit
  for (int i = 0; i < kRequests; ++i) {
    many +=
        R"({"version":1,"command":"status","id":)" + std::to_string(i) + "}\n";
  }
  ASSERT_LT(many.size(), kMaxControlRequestBytes);
  std::thread sender([&] { testutil::SendAll(fd, many); });
  std::string in;
  char buf[65536];
  int i = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (i < kRequests && absl::Now() < deadline) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    ASSERT_GT(n, 0);
    in.append(buf, static_cast<size_t>(n));
    for (size_t nl; (nl = in.find('\n')) != std::string::npos; ++i) {
      const json r = Parse(in.substr(0, nl));
      in.erase(0, nl + 1);
      ASSERT_EQ(r["id"], i);
      // No ServiceStatus was published: a clear "not yet".
      ASSERT_EQ(r["error"]["code"], "unavailable");
    }
  }
  EXPECT_EQ(i, kRequests);
  sender.join();
  close(fd);
}

TEST_F(ControlServerTest, ALastRequestWithoutNewlineBeforeShutdown) {
  StartServer();
  const int fd = testutil::ConnectUnix(path_);
  const std::string req = Request("tracking");
  ASSERT_TRUE(testutil::SendAll(fd, req.substr(0, req.size() - 1)));
  shutdown(fd, SHUT_WR);
  EXPECT_EQ(Parse(testutil::ReadLine(fd))["ok"], true);
  EXPECT_TRUE(testutil::ClosedWithin(fd, absl::Seconds(5)));
  close(fd);
}

TEST_F(ControlServerTest, ChangesRunOnTheControlThread) {
  StartServer();
  StartControlThread();
  const json r = Call("change");
  EXPECT_EQ(r["ok"], true);
  EXPECT_EQ(r["data"]["changed"], true);
  EXPECT_EQ(changes_.load(), 1);
}

TEST_F(ControlServerTest, AChangeTheControlThreadNeverRunsTimesOut) {
  StartServer();  // no control thread
  const json r = Call("change");
  EXPECT_EQ(r["error"]["code"], "timeout");
  EXPECT_EQ(server_->stats().reply_timeouts.load(), 1u);
}

TEST_F(ControlServerTest, TheSocketHasItsModeAndGroup) {
  StartServer({.group = std::to_string(getegid())});
  struct stat st {};
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(st.st_gid, getegid());
  server_.reset();
  EXPECT_NE(access(path_.c_str(), F_OK), 0);  // removed at stop
}

TEST_F(ControlServerTest, AStaleSocketIsReplacedALiveOneIsNot) {
  // Stale: a socket file nobody listens on.
  {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.data(), path_.size());
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
  }
  StartServer();
  EXPECT_EQ(Call("tracking")["ok"], true);
  // Live: a second server on the same path is refused, the first unharmed.
  absl::StatusOr<std::unique_ptr<ControlServer>> second =
      ControlServer::Start({.path = path_}, &table_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("another process"),
            std::string::npos)
      << second.status();
  EXPECT_EQ(Call("tracking")["ok"], true);
}

TEST_F(ControlServerTest, APathThatIsNotASocketIsLeftAlone) {
  { std::ofstream(path_) << "precious"; }
  absl::StatusOr<std::unique_ptr<ControlServer>> s =
      ControlServer::Start({.path = path_}, &table_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("not a socket"), std::string::npos);
  std::ifstream in(path_);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "precious");
}

TEST_F(ControlServerTest, AnUnknownGroupIsAnError) {
  absl::StatusOr<std::unique_ptr<ControlServer>> s = ControlServer::Start(
      {.path = path_, .group = "no-such-group-zg"}, &table_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("no such group"), std::string::npos);
}

}  // namespace
}  // namespace control_server_test
}  // namespace zg::servo
