// SPDX-License-Identifier: Apache-2.0
// Child processes for tests: run a tool (tshark, ntpdig, ip, chronyd, ...)
// with a deadline, capture its stdout and stderr, and never leave anything
// behind. Each child leads its own process group; on timeout, on Stop() and
// in the destructor the whole group gets SIGTERM, then SIGKILL after a grace
// period. When the leader exits, stragglers left in its group are killed too
// (so run daemons in the foreground: chronyd -d, ptp4l -m). The child also
// gets SIGKILL if the test process dies first (PR_SET_PDEATHSIG), and its
// whole group does if the test is killed by SIGTERM or SIGINT
// (tests/util/signal_cleanup.h): grandchildren too, which PR_SET_PDEATHSIG
// does not reach.
//
// Output goes to files in a private temporary directory (no pipe can fill
// up and stall a long-running peer); read it any time with Stdout().
//
//   ZG_ASSIGN_OR_RETURN(CommandResult r,
//       RunCommand({"ntpdig", "-t", "2", "10.99.0.1"}, absl::Seconds(5)));
//   if (!r.ok()) return absl::InternalError(r.Describe());
//
//   ZG_ASSIGN_OR_RETURN(auto server, Subprocess::Start({"chronyd", "-d",
//   ...}));
//   ...                                   // talk to it
//   CommandResult done = server->Stop();  // SIGTERM, then SIGKILL after 2 s
#ifndef ZG_TESTS_UTIL_SUBPROCESS_H_
#define ZG_TESTS_UTIL_SUBPROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/util/signal_cleanup.h"
#include "tests/util/temp_dir.h"

namespace zg::testutil {

struct CommandResult {
  std::vector<std::string> argv;
  int exit_code = -1;      // the exit status when the process exited, else -1
  int term_signal = 0;     // the signal that ended it, else 0
  bool timed_out = false;  // we killed it because its deadline passed
  std::string stdout_text;
  std::string stderr_text;

  // Exited by itself with status 0.
  bool ok() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  // "`tshark -r x` exited with status 2; stderr: ..." (stderr tail).
  std::string Describe() const;
};

struct SubprocessOptions {
  // Extra "NAME=value" entries added to (or replacing in) the environment.
  std::vector<std::string> env;
  // Working directory for the child; empty: inherit.
  std::string cwd;
};

class Subprocess {
 public:
  // Forks and execs argv[0] (searched in PATH). Fails if it cannot be run.
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(
      std::vector<std::string> argv, const SubprocessOptions& options = {});

  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();  // Stop(absl::ZeroDuration()) if still running

  pid_t pid() const { return pid_; }
  // True until the leader has exited (and been reaped by Wait/Stop).
  bool Running();

  // Waits up to `timeout` for the process to exit by itself; after that the
  // group is stopped (SIGTERM, `grace`, SIGKILL) and the result says
  // timed_out. Safe to call again: returns the stored result.
  CommandResult Wait(absl::Duration timeout,
                     absl::Duration grace = absl::Seconds(1));
  // Stops the group now (SIGTERM, up to `grace`, then SIGKILL). Not a
  // timeout: timed_out stays false.
  CommandResult Stop(absl::Duration grace = absl::Seconds(2));

  // Output so far (the files are still being written while it runs).
  std::string Stdout() const;
  std::string Stderr() const;

 private:
  Subprocess(std::vector<std::string> argv, TempDir dir, pid_t pid,
             CleanupRegistration group);
  // True once the leader has exited (left as a zombie, not reaped yet).
  bool WaitExited(absl::Time deadline);
  // Kills what is left of the group, reaps the leader, collects output.
  CommandResult Finish(bool timed_out);
  void SignalGroup(int sig);

  std::vector<std::string> argv_;
  TempDir dir_;
  pid_t pid_;
  CleanupRegistration group_;  // SIGKILLed by the fatal-signal handler
  int pidfd_ = -1;
  std::optional<CommandResult> result_;
};

// Runs argv to completion or until `timeout`, whichever comes first. An error
// status only when the command could not be started; a non-zero exit or a
// timeout is reported in the CommandResult.
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout,
                                         const SubprocessOptions& options = {});

// True if `program` is found in PATH (or is an executable path).
bool ProgramAvailable(const std::string& program);

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_SUBPROCESS_H_
