// SPDX-License-Identifier: Apache-2.0
#include "tests/util/subprocess.h"

#include <signal.h>

#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::testutil {
namespace subprocess_test {
namespace {

using ::testing::HasSubstr;

// True if `pid` is gone or a zombie (dead, waiting for init to reap it).
bool Dead(int pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && line.size() > paren + 2 &&
         line[paren + 2] == 'Z';
}

// SIGKILL is delivered asynchronously: give the kernel a moment.
bool DiesSoon(int pid) {
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (!Dead(pid) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  return Dead(pid);
}

int ParsePid(const std::string& s) {
  int pid = 0;
  EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(s), &pid)) << s;
  return pid;
}

TEST(SubprocessTest, CapturesOutputAndExitStatus) {
  absl::StatusOr<CommandResult> r = RunCommand(
      {"sh", "-c", "echo out; echo err >&2; exit 3"}, absl::Seconds(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->term_signal, 0);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->stderr_text, "err\n");
  EXPECT_THAT(r->Describe(), HasSubstr("exited with status 3; stderr: err"));
}

TEST(SubprocessTest, PassesEnvironmentOverrides) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"sh", "-c", "echo \"$ZG_SUBPROCESS_TEST\""},
                 absl::Seconds(10), {.env = {"ZG_SUBPROCESS_TEST=hello"}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->Describe();
  EXPECT_EQ(r->stdout_text, "hello\n");
}

TEST(SubprocessTest, MissingProgramIsAStartError) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"zg-no-such-program-xyz"}, absl::Seconds(10));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("cannot run"));
  EXPECT_FALSE(ProgramAvailable("zg-no-such-program-xyz"));
  EXPECT_TRUE(ProgramAvailable("sh"));
}

TEST(SubprocessTest, TimeoutKillsTheWholeGroup) {
  const absl::Time start = absl::Now();
  // The shell prints its background child's pid, then waits forever.
  absl::StatusOr<CommandResult> r = RunCommand(
      {"sh", "-c", "sleep 60 & echo $!; wait"}, absl::Milliseconds(300));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->term_signal, SIGTERM);
  EXPECT_THAT(r->Describe(), HasSubstr("timed out"));
  const int child = ParsePid(r->stdout_text);
  EXPECT_TRUE(DiesSoon(child)) << "background child " << child << " survived";
}

TEST(SubprocessTest, StragglersAreKilledWhenTheLeaderExits) {
  absl::StatusOr<CommandResult> r =
      RunCommand({"sh", "-c", "sleep 60 & echo $!"}, absl::Seconds(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok()) << r->Describe();
  const int child = ParsePid(r->stdout_text);
  EXPECT_TRUE(DiesSoon(child)) << "straggler " << child << " survived";
}

TEST(SubprocessTest, StopEscalatesToSigkillWhenTermIsIgnored) {
  absl::StatusOr<std::unique_ptr<Subprocess>> p =
      Subprocess::Start({"sh", "-c", "trap '' TERM; echo ready; sleep 60"});
  ASSERT_TRUE(p.ok()) << p.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while ((*p)->Stdout() != "ready\n" && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE((*p)->Running());
  CommandResult r = (*p)->Stop(absl::Milliseconds(200));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_FALSE((*p)->Running());
  // A second call returns the stored result.
  EXPECT_EQ((*p)->Wait(absl::Seconds(1)).term_signal, SIGKILL);
}

TEST(SubprocessTest, DestructorKillsARunningProcess) {
  int pid = 0;
  {
    absl::StatusOr<std::unique_ptr<Subprocess>> p =
        Subprocess::Start({"sleep", "60"});
    ASSERT_TRUE(p.ok()) << p.status();
    pid = (*p)->pid();
    EXPECT_TRUE((*p)->Running());
  }
  EXPECT_TRUE(Dead(pid));  // reaped by the destructor
}

}  // namespace
}  // namespace subprocess_test
}  // namespace zg::testutil
