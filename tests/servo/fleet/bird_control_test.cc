// SPDX-License-Identifier: Apache-2.0
// BirdControl against a real BIRD 2 (bird2), started by the test on a
// control socket in a temporary directory (no network, no BGP session: a
// static protocol is what the driver enables and disables): announce and
// withdraw as `birdc` sees them, BIRD absent, killed and restarted (the
// driver puts the route back as wanted), a protocol BIRD does not know, and
// a socket that never answers (bounded by the I/O timeout, also at stop).
#include "servo/fleet/bird_control.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/deadline.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::servo {
namespace {

using ::testing::HasSubstr;
using testutil::PollUntil;

constexpr char kConf[] = R"(router id 192.0.2.1;
protocol static zg_anycast {
  disabled;
  ipv4;
  route 192.0.2.123/32 unreachable;
}
)";

class BirdControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::ProgramAvailable("bird") ||
        !testutil::ProgramAvailable("birdc")) {
      GTEST_SKIP() << "needs bird and birdc (bird2)";
    }
    auto dir = testutil::TempDir::Create("bird");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*dir));
    std::ofstream(dir_->File("bird.conf")) << kConf;
    socket_ = dir_->File("bird.ctl");
  }

  void StartBird() {
    auto b = testutil::Subprocess::Start({"bird", "-f", "-c",
                                          dir_->File("bird.conf"), "-s",
                                          socket_, "-P", dir_->File("pid")});
    ASSERT_TRUE(b.ok()) << b.status();
    bird_ = std::move(*b);
    ASSERT_TRUE(PollUntil(testutil::DeadlineIn(absl::Seconds(10)),
                          [&] { return access(socket_.c_str(), F_OK) == 0; }));
  }

  // The protocol's state as birdc (not our driver) reports it.
  std::string BirdcState() {
    auto r = testutil::RunCommand(
        {"birdc", "-s", socket_, "show", "protocols", "zg_anycast"},
        absl::Seconds(5));
    if (!r.ok() || !r->ok()) return "?";
    for (const char* s : {" up ", " down "}) {
      if (r->stdout_text.find(s) != std::string::npos) {
        return std::string(s + 1, std::strlen(s) - 2);
      }
    }
    return r->stdout_text;
  }

  std::unique_ptr<BirdControl> Driver(
      const std::string& protocol = "zg_anycast") {
    auto d = BirdControl::Start({.socket_path = socket_,
                                 .protocol = protocol,
                                 .check_interval = absl::Milliseconds(100),
                                 .io_timeout = absl::Milliseconds(500)});
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? std::move(*d) : nullptr;
  }

  static bool Settled(const BirdControl& d, bool announced) {
    auto s = d.Status();
    return s != nullptr && s->reachable && s->in_effect &&
           s->announced == announced && s->want_announce == announced;
  }

  std::unique_ptr<testutil::TempDir> dir_;
  std::string socket_;
  std::unique_ptr<testutil::Subprocess> bird_;
};

TEST_F(BirdControlTest, AnnouncesAndWithdraws) {
  StartBird();
  auto d = Driver();
  ASSERT_NE(d, nullptr);
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(20));
  ASSERT_TRUE(PollUntil(deadline, [&] { return Settled(*d, false); }));
  EXPECT_EQ(BirdcState(), "down");
  d->Want(true);
  ASSERT_TRUE(PollUntil(deadline, [&] { return Settled(*d, true); }));
  EXPECT_EQ(BirdcState(), "up");
  auto s = d->Status();
  EXPECT_EQ(s->state, "up");
  EXPECT_THAT(s->version, HasSubstr("BIRD 2"));
  EXPECT_EQ(s->error, "");
  EXPECT_GT(s->in_effect_mono_ns, 0);
  d->Want(false);
  ASSERT_TRUE(PollUntil(deadline, [&] { return Settled(*d, false); }));
  EXPECT_EQ(BirdcState(), "down");
  EXPECT_EQ(d->Status()->connects, 1u);  // one connection throughout
}

TEST_F(BirdControlTest, AbsentKilledAndRestartedBird) {
  auto d = Driver();
  ASSERT_NE(d, nullptr);
  d->Want(true);
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(30));
  ASSERT_TRUE(PollUntil(deadline, [&] {
    auto s = d->Status();
    return s != nullptr && !s->reachable && s->failures > 0;
  }));
  EXPECT_THAT(d->Status()->error, HasSubstr("connect " + socket_));
  StartBird();  // bird.conf says disabled: the driver enables it
  ASSERT_TRUE(PollUntil(deadline, [&] { return Settled(*d, true); }));
  EXPECT_EQ(BirdcState(), "up");
  bird_->Stop();
  ASSERT_TRUE(PollUntil(deadline, [&] { return !d->Status()->reachable; }));
  EXPECT_FALSE(d->Status()->in_effect);
  StartBird();  // comes back withdrawn; put right within a check interval
  ASSERT_TRUE(PollUntil(deadline, [&] { return Settled(*d, true); }));
  EXPECT_EQ(BirdcState(), "up");
  EXPECT_GE(d->Status()->connects, 2u);
}

TEST_F(BirdControlTest, UnknownProtocolIsAnError) {
  StartBird();
  auto d = Driver("zg_nosuch");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    auto s = d->Status();
    return s != nullptr && s->failures > 0;
  }));
  auto s = d->Status();
  EXPECT_FALSE(s->reachable);
  EXPECT_THAT(s->error, HasSubstr("disable zg_nosuch"));
  EXPECT_THAT(s->error, HasSubstr("syntax error"));
}

TEST(BirdControlSilentTest, SilentSocketTimesOutAndStopsPromptly) {
  auto dir = testutil::TempDir::Create("bird-silent");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("silent.ctl");
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 8), 0);  // connects succeed; nothing ever answers
  auto d = BirdControl::Start({.socket_path = path,
                               .protocol = "zg_anycast",
                               .check_interval = absl::Milliseconds(50),
                               .io_timeout = absl::Milliseconds(200)});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_TRUE(PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    auto s = (*d)->Status();
    return s != nullptr && s->failures > 0;
  }));
  EXPECT_THAT((*d)->Status()->error, HasSubstr("no welcome line"));
  (*d)->Want(true);  // returns at once whatever BIRD does
  const absl::Time t0 = absl::Now();
  d->reset();
  // Bounded by the I/O timeout (not a speed assertion: a generous bound).
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
  close(fd);
}

TEST(BirdControlOptionsTest, Rejected) {
  EXPECT_FALSE(BirdControl::Start({.socket_path = "", .protocol = "p"}).ok());
  EXPECT_FALSE(
      BirdControl::Start({.socket_path = "/x", .protocol = "a;b"}).ok());
  EXPECT_FALSE(BirdControl::Start(
                   {.socket_path = std::string(200, 'x'), .protocol = "p"})
                   .ok());
}

}  // namespace
}  // namespace zg::servo
