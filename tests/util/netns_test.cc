// SPDX-License-Identifier: Apache-2.0
// e2e (root): the C++ rig helpers create what scripts/netns.sh promises,
// run commands in the namespaces with a timeout, and leave nothing behind.
#include "tests/util/netns.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/deadline.h"
#include "tests/util/temp_dir.h"

namespace zg::testutil {
namespace {

using ::testing::HasSubstr;

bool NamespaceExists(const std::string& ns) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"ip", "netns", "list"}, absl::Seconds(10));
  EXPECT_TRUE(r.ok() && r->ok());
  for (absl::string_view line : absl::StrSplit(r->stdout_text, '\n')) {
    if (absl::StartsWith(line, ns + " ") || line == ns) return true;
  }
  return false;
}

bool LinkExists(const std::string& ifname) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"ip", "link", "show", "dev", ifname}, absl::Seconds(10));
  return r.ok() && r->ok();
}

class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CanCreateNamespaces()) GTEST_SKIP() << "needs root";
  }
};

TEST_F(NetnsTest, RigHasAddressesAndIsRemoved) {
  std::string ns, host_if;
  {
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create({});
    ASSERT_TRUE(rig.ok()) << rig.status();
    ns = (*rig)->ns();
    host_if = (*rig)->host_if();
    EXPECT_EQ(host_if, ns + "h");
    EXPECT_EQ((*rig)->server_ip(), "10.99.0.1");
    EXPECT_EQ((*rig)->client_ip6(), "fd99::2");
    EXPECT_TRUE(NamespaceExists(ns));
    EXPECT_TRUE(LinkExists(host_if));  // root-namespace side, for DPDK
    absl::StatusOr<CommandResult> r =
        (*rig)->Run({"ip", "-o", "addr", "show", "dev", (*rig)->client_if()},
                    absl::Seconds(10));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->ok()) << r->Describe();
    EXPECT_THAT(r->stdout_text, HasSubstr("10.99.0.2/24"));
    EXPECT_THAT(r->stdout_text, HasSubstr("fd99::2/64"));
  }  // destructor: zg_rig_down
  EXPECT_FALSE(NamespaceExists(ns));
  EXPECT_FALSE(LinkExists(host_if));
}

TEST_F(NetnsTest, PairPeersReachEachOther) {
  absl::StatusOr<std::unique_ptr<NetnsPair>> pair = NetnsPair::Create({});
  ASSERT_TRUE(pair.ok()) << pair.status();
  const NetnsPair& p = **pair;
  for (const std::string& dst : {p.ip_a(), p.ip6_a()}) {
    absl::StatusOr<CommandResult> r = RunInNamespace(
        p.ns_b(), {"ping", "-c", "1", "-W", "2", dst}, absl::Seconds(10));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->ok()) << r->Describe();
  }
  const std::string a = p.ns_a(), b = p.ns_b();
  ASSERT_TRUE((*pair)->Destroy().ok());
  EXPECT_TRUE((*pair)->Destroy().ok());  // idempotent
  EXPECT_FALSE(NamespaceExists(a));
  EXPECT_FALSE(NamespaceExists(b));
}

TEST_F(NetnsTest, TimeoutKillsTheCommandInsideTheNamespace) {
  absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create({});
  ASSERT_TRUE(rig.ok()) << rig.status();
  absl::StatusOr<CommandResult> r =
      (*rig)->Run({"sh", "-c", "sleep 60 & sleep 60"}, absl::Milliseconds(500));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->timed_out);
  // SIGKILL is asynchronous; a dead process may linger a moment.
  std::string left;
  const bool empty = PollUntil(DeadlineIn(absl::Seconds(5)), [&] {
    absl::StatusOr<CommandResult> pids =
        RunCommand({"ip", "netns", "pids", (*rig)->ns()}, absl::Seconds(2));
    left = pids.ok() ? pids->stdout_text : pids.status().ToString();
    return pids.ok() && pids->ok() && left.empty();
  });
  EXPECT_TRUE(empty) << "processes left in " << (*rig)->ns() << ": " << left;
}

TEST_F(NetnsTest, BackgroundPeerTalksAndStops) {
  absl::StatusOr<std::unique_ptr<NetnsPair>> pair = NetnsPair::Create({});
  ASSERT_TRUE(pair.ok()) << pair.status();
  absl::StatusOr<std::unique_ptr<Subprocess>> ping =
      StartInNamespace((*pair)->ns_a(), {"ping", "-i", "0.2", (*pair)->ip_b()});
  ASSERT_TRUE(ping.ok()) << ping.status();
  EXPECT_TRUE(PollUntil(DeadlineIn(absl::Seconds(10)), [&] {
    return absl::StrContains((*ping)->Stdout(), "icmp_seq=2");
  })) << "no second ping reply within 10 s";
  EXPECT_TRUE((*ping)->Running());
  CommandResult r = (*ping)->Stop();
  EXPECT_FALSE(r.timed_out);
  EXPECT_THAT(r.stdout_text, HasSubstr("icmp_seq=2"));
}

bool ProcessAlive(pid_t pid) {
  // A zombie (killed, not reaped yet) counts as dead.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         line[paren + 2] != 'Z';
}

// What meson's timeout does to a test (SIGTERM to it, SIGKILL 0.5 s later)
// must leave nothing behind: a child process (a test binary of its own
// after the fork) builds a rig and a pair, starts a process in the rig's
// namespace that escapes its process group (setsid), a process group with
// a grandchild in the root namespace, and a temporary directory; SIGTERM
// must remove all of it, within 0.5 s, and exit with 128 + SIGTERM.
TEST_F(NetnsTest, SigtermRemovesEverythingTheTestMade) {
  int info[2];
  ASSERT_EQ(pipe(info), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(info[0]);
    auto fail = [&](const std::string& why) {
      const std::string line = "ERROR " + why + "\n";
      (void)!write(info[1], line.data(), line.size());
      _exit(1);
    };
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create({});
    if (!rig.ok()) fail(rig.status().ToString());
    absl::StatusOr<std::unique_ptr<NetnsPair>> pair = NetnsPair::Create({});
    if (!pair.ok()) fail(pair.status().ToString());
    absl::StatusOr<TempDir> dir = TempDir::Create("sigterm");
    if (!dir.ok()) fail(dir.status().ToString());
    std::ofstream(dir->File("file")) << "x";
    // In the rig's namespace, out of every process group we know of.
    absl::StatusOr<std::unique_ptr<Subprocess>> escaped = (*rig)->Start(
        {"sh", "-c", "setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!"});
    // In the root namespace: a group with a grandchild.
    absl::StatusOr<std::unique_ptr<Subprocess>> group =
        Subprocess::Start({"sh", "-c", "sleep 600 & echo $!; wait"});
    if (!escaped.ok() || !group.ok()) fail("cannot start the processes");
    std::string escaped_pid, grandchild_pid;
    const absl::Time deadline = DeadlineIn(absl::Seconds(10));
    PollUntil(deadline, [&] {
      escaped_pid =
          std::string(absl::StripAsciiWhitespace((*escaped)->Stdout()));
      grandchild_pid =
          std::string(absl::StripAsciiWhitespace((*group)->Stdout()));
      return !escaped_pid.empty() && !grandchild_pid.empty();
    });
    const std::string line =
        absl::StrCat((*rig)->ns(), " ", (*rig)->host_if(), " ", (*pair)->ns_a(),
                     " ", (*pair)->ns_b(), " ", dir->path(), " ", escaped_pid,
                     " ", grandchild_pid, " ", (*group)->pid(), "\n");
    (void)!write(info[1], line.data(), line.size());
    for (;;) pause();  // until the signal
  }
  close(info[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(info[0], buf, sizeof(buf))) > 0;) {
    text.append(buf, static_cast<size_t>(n));
    if (text.find('\n') != std::string::npos) break;
  }
  close(info[0]);
  std::vector<std::string> f =
      absl::StrSplit(absl::StripAsciiWhitespace(text), ' ');
  if (f.size() != 8) {
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    FAIL() << "the child did not set up: " << text;
  }
  const std::string &rig_ns = f[0], &host_if = f[1], &ns_a = f[2], &ns_b = f[3],
                    &dir = f[4];
  std::vector<pid_t> pids;
  for (size_t i = 5; i < 8; ++i) {
    int pid = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[i], &pid)) << text;
    pids.push_back(pid);
    EXPECT_TRUE(ProcessAlive(pid)) << pid;
  }
  EXPECT_TRUE(NamespaceExists(rig_ns));
  EXPECT_TRUE(LinkExists(host_if));

  const absl::Time sent = absl::Now();
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  const bool exited = PollUntil(
      DeadlineIn(absl::Seconds(5)),
      [&] { return waitpid(child, &status, WNOHANG) == child; },
      absl::Milliseconds(5));
  const absl::Duration took = absl::Now() - sent;
  if (!exited) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_TRUE(exited) << "still running 5 s after SIGTERM";
  std::printf("exited %.0f ms after SIGTERM\n",
              absl::ToDoubleMilliseconds(took));
  EXPECT_LT(took, absl::Milliseconds(500)) << "meson SIGKILLs at 0.5 s";
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  for (const std::string& ns : {rig_ns, ns_a, ns_b}) {
    EXPECT_FALSE(NamespaceExists(ns)) << ns;
  }
  EXPECT_FALSE(LinkExists(host_if));
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
  // SIGKILL takes effect asynchronously; the dead are reaped by init.
  for (pid_t pid : pids) {
    EXPECT_TRUE(PollUntil(DeadlineIn(absl::Seconds(2)),
                          [&] { return !ProcessAlive(pid); }))
        << "process " << pid << " survived";
  }
}

// The way e2e tests will use it: a real server in one namespace (chronyd,
// never touching the host clock: -x), a real client in the other.
TEST_F(NetnsTest, ChronydServerAnswersNtpdigAcrossThePair) {
  if (!ProgramAvailable("chronyd") || !ProgramAvailable("ntpdig")) {
    GTEST_SKIP() << "chrony or ntpsec-ntpdate not installed";
  }
  absl::StatusOr<std::unique_ptr<NetnsPair>> pair = NetnsPair::Create({});
  ASSERT_TRUE(pair.ok()) << pair.status();
  absl::StatusOr<TempDir> dir = TempDir::Create("chronyd");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string conf = dir->File("chronyd.conf");
  std::ofstream(conf) << "local stratum 1\nallow all\ncmdport 0\n"
                      << "pidfile " << dir->File("chronyd.pid") << "\n"
                      << "bindcmdaddress " << dir->File("chronyd.sock") << "\n";
  absl::StatusOr<std::unique_ptr<Subprocess>> server = StartInNamespace(
      (*pair)->ns_a(), {"chronyd", "-x", "-d", "-u", "root", "-f", conf});
  ASSERT_TRUE(server.ok()) << server.status();
  // Wait until chronyd listens on UDP 123.
  const absl::Time deadline = DeadlineIn(absl::Seconds(10));
  for (;;) {
    absl::StatusOr<CommandResult> ss =
        RunInNamespace((*pair)->ns_a(), {"ss", "-Hlun", "sport = :123"},
                       TimeLeft(deadline, absl::Seconds(5)));
    ASSERT_TRUE(ss.ok()) << ss.status();
    if (!ss->stdout_text.empty()) break;
    ASSERT_LT(absl::Now(), deadline)
        << "chronyd not listening on UDP 123 within 10 s: "
        << (*server)->Stderr();
    absl::SleepFor(absl::Milliseconds(50));
  }
  absl::StatusOr<CommandResult> r =
      RunInNamespace((*pair)->ns_b(), {"ntpdig", "-t", "2", (*pair)->ip_a()},
                     absl::Seconds(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->Describe();
  EXPECT_THAT(r->stdout_text, HasSubstr((*pair)->ip_a() + " s1 "));
  CommandResult stopped = (*server)->Stop();
  EXPECT_THAT(stopped.stderr_text,
              HasSubstr("Disabled control of system clock"));
}

}  // namespace
}  // namespace zg::testutil
