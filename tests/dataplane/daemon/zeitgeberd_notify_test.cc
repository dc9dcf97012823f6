// SPDX-License-Identifier: Apache-2.0
// zeitgeberd under a service manager, as systemd sees it: NOTIFY_SOCKET
// points at a datagram socket this test reads (sd_notify(3)'s protocol).
// READY=1 with STATUS= arrives once the workers poll, STATUS= keeps coming,
// WATCHDOG=1 comes every half WATCHDOG_USEC; a worker stalled through the
// test hook (--test_stall_file) stops WATCHDOG=1 after the reason is
// logged, and its release brings it back; SIGTERM sends STOPPING=1. A port
// that fails to start never sends READY=1. zeitgeberd runs on an in-process
// net_ring port (no root, no NIC, no hugepages).
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/deadline.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg {
namespace zeitgeberd_notify_test {
namespace {

using ::testing::HasSubstr;

// The watchdog timeout given to zeitgeberd: it feeds it every half.
constexpr absl::Duration kWatchdog = absl::Milliseconds(600);

// A datagram socket bound to a path, as systemd's notify socket is.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    bound_ =
        fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) close(fd_);
  }
  bool bound() const { return bound_; }

  // Every message received so far, one per datagram, in order.
  const std::vector<std::string>& Drain() {
    char buf[4096];
    for (;;) {
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      messages_.emplace_back(buf, static_cast<size_t>(n));
    }
    return messages_;
  }
  // Messages holding the line `key=...` (e.g. "WATCHDOG"), from `from` on.
  size_t Count(const std::string& key, size_t from = 0) {
    size_t n = 0;
    const std::vector<std::string>& all = Drain();
    for (size_t i = from; i < all.size(); ++i) {
      for (absl::string_view line : absl::StrSplit(all[i], '\n')) {
        if (absl::StartsWith(line, key + "=")) ++n;
      }
    }
    return n;
  }
  // The value of the last `key=` line received.
  std::string Last(const std::string& key) {
    std::string value;
    for (const std::string& m : Drain()) {
      for (absl::string_view line : absl::StrSplit(m, '\n')) {
        if (absl::StartsWith(line, key + "=")) {
          value = std::string(line.substr(key.size() + 1));
        }
      }
    }
    return value;
  }
  size_t size() { return Drain().size(); }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
  std::vector<std::string> messages_;
};

class ZeitgeberdNotifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    zeitgeberd_ =
        std::getenv("ZG_ZEITGEBERD") ? std::getenv("ZG_ZEITGEBERD") : "";
    ASSERT_FALSE(zeitgeberd_.empty()) << "run through meson test";
    auto dir = testutil::TempDir::Create("notify");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<testutil::TempDir>(*std::move(dir));
    notify_ = std::make_unique<NotifySocket>(dir_->File("notify"));
    ASSERT_TRUE(notify_->bound()) << std::strerror(errno);
    stall_file_ = dir_->File("stall");
  }

  std::unique_ptr<testutil::Subprocess> Start(
      const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {
        zeitgeberd_,
        "--no-huge",
        "-m",
        "256",
        "--no-shconf",
        "--no-pci",
        "--no-telemetry",
        "--file-prefix",
        absl::StrCat("zgnotify", getpid(), "_", ++runs_),
        "--log-level=lib.eal:error",
        "-l",
        "0-1",
        "--vdev=net_ring0",
        "--",
        "--metrics_address=",
        "--status_address=",
        "--control_socket=",
        "--source=sim:lab,interval=200ms,uncertainty=1us",
        "--stats_interval=200ms",
        "--worker_stall_limit=300ms",
        "--idle_sleep=50us",
        "--test_stall_file=" + stall_file_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    testutil::SubprocessOptions o;
    o.env = {
        "NOTIFY_SOCKET=" + dir_->File("notify"),
        absl::StrCat("WATCHDOG_USEC=", absl::ToInt64Microseconds(kWatchdog))};
    auto p = testutil::Subprocess::Start(argv, o);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : nullptr;
  }

  bool WaitFor(absl::Duration d, std::function<bool()> done) {
    return testutil::PollUntil(testutil::DeadlineIn(d), std::move(done),
                               absl::Milliseconds(20));
  }

  std::string zeitgeberd_;
  std::unique_ptr<testutil::TempDir> dir_;
  std::unique_ptr<NotifySocket> notify_;
  std::string stall_file_;
  int runs_ = 0;
};

TEST_F(ZeitgeberdNotifyTest, ReadyStatusWatchdogAndAStalledWorker) {
  auto zg = Start({});
  ASSERT_NE(zg, nullptr);
  ASSERT_TRUE(WaitFor(absl::Seconds(60), [&] {
    return notify_->Count("READY") > 0 || !zg->Running();
  }));
  ASSERT_EQ(notify_->Count("READY"), 1u) << zg->Stderr();
  EXPECT_THAT(zg->Stderr(), HasSubstr("zeitgeberd running"))
      << "READY=1 before the workers were launched";
  // READY=1 comes with the first STATUS=, and more follow.
  EXPECT_THAT(notify_->Last("STATUS"), HasSubstr(", class "));
  ASSERT_TRUE(WaitFor(absl::Seconds(20),
                      [&] {
                        return notify_->Count("STATUS") >= 3 &&
                               notify_->Count("WATCHDOG") >= 3 &&
                               absl::StrContains(notify_->Last("STATUS"),
                                                 " to sim:lab, class ");
                      }))
      << zg->Stderr() << "\nlast STATUS=" << notify_->Last("STATUS");
  const std::string status = notify_->Last("STATUS");
  EXPECT_THAT(status, HasSubstr("; NTP 0/s, PTP 0/s; 1 worker"));
  EXPECT_EQ(status.find('\n'), std::string::npos);

  // The hook stalls worker 0: the reason is logged, then no WATCHDOG=1.
  { std::ofstream(stall_file_) << "0\n"; }
  ASSERT_TRUE(WaitFor(absl::Seconds(20), [&] {
    return absl::StrContains(zg->Stderr(),
                             "worker 0 (lcore 1) has not passed its poll loop");
  })) << zg->Stderr();
  EXPECT_THAT(zg->Stderr(), HasSubstr("TEST HOOK: worker 0 stalled"));
  // Every WATCHDOG=1 sent before that line is queued by now (sd_notify is
  // synchronous, and the line comes first on the same thread).
  const size_t mark = notify_->size();
  absl::SleepFor(3 * kWatchdog);
  EXPECT_EQ(notify_->Count("WATCHDOG", mark), 0u)
      << "WATCHDOG=1 while a worker is stalled";
  ASSERT_TRUE(zg->Running());

  // Released, the worker passes its loop again and the watchdog is fed.
  ASSERT_EQ(std::remove(stall_file_.c_str()), 0);
  ASSERT_TRUE(WaitFor(absl::Seconds(20), [&] {
    return notify_->Count("WATCHDOG", mark) >= 2;
  })) << zg->Stderr();
  EXPECT_THAT(zg->Stderr(),
              HasSubstr("worker 0 (lcore 1) passes its poll loop again"));

  ASSERT_EQ(kill(zg->pid(), SIGTERM), 0);
  const testutil::CommandResult done = zg->Wait(absl::Seconds(30));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;
  EXPECT_EQ(notify_->Count("STOPPING"), 1u);
  EXPECT_THAT(notify_->Last("STATUS"), HasSubstr("signal 15"));
  EXPECT_EQ(notify_->Count("READY"), 1u);
}

TEST_F(ZeitgeberdNotifyTest, NoReadyWhenThePortFails) {
  auto zg = Start({"--port=net_nope"});
  ASSERT_NE(zg, nullptr);
  const testutil::CommandResult done = zg->Wait(absl::Seconds(60));
  EXPECT_EQ(done.exit_code, 3) << done.stderr_text;
  EXPECT_THAT(done.stderr_text, HasSubstr("no DPDK port named 'net_nope'"));
  EXPECT_EQ(notify_->Count("READY"), 0u);
  EXPECT_EQ(notify_->Count("WATCHDOG"), 0u);
}

}  // namespace
}  // namespace zeitgeberd_notify_test
}  // namespace zg
