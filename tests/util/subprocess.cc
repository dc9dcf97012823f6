// SPDX-License-Identifier: Apache-2.0
#include "tests/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"

extern char** environ;

namespace zg::testutil {
namespace {

constexpr size_t kDescribeTailBytes = 2000;

std::string Tail(const std::string& s) {
  if (s.size() <= kDescribeTailBytes) return s;
  return "..." + s.substr(s.size() - kDescribeTailBytes);
}

std::string QuoteArgv(const std::vector<std::string>& argv) {
  return absl::StrJoin(argv, " ", [](std::string* out, const std::string& a) {
    if (a.empty() || a.find_first_of(" \t'\"$") != std::string::npos) {
      absl::StrAppend(out, "'", a, "'");
    } else {
      absl::StrAppend(out, a);
    }
  });
}

// The parent's environment with `overrides` ("NAME=value") applied.
std::vector<std::string> BuildEnv(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(
        overrides.begin(), overrides.end(),
        [&](const std::string& o) { return absl::StartsWith(o, name + "="); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void ExecChild(pid_t parent, int out_fd, int err_fd, int in_fd,
                            int errno_fd, const char* cwd, char** argv,
                            char** envp) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent already died
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0 ||
      (cwd != nullptr && chdir(cwd) != 0)) {
    const int e = errno;
    (void)!write(errno_fd, &e, sizeof(e));
    _exit(127);
  }
  execvpe(argv[0], argv, envp);
  const int e = errno;
  (void)!write(errno_fd, &e, sizeof(e));
  _exit(127);
}

}  // namespace

std::string CommandResult::Describe() const {
  std::string what;
  if (timed_out) {
    what = "timed out and was killed";
  } else if (term_signal != 0) {
    what = absl::StrCat("was killed by signal ", term_signal, " (",
                        strsignal(term_signal), ")");
  } else {
    what = absl::StrCat("exited with status ", exit_code);
  }
  std::string out = absl::StrCat("`", QuoteArgv(argv), "` ", what);
  if (!stderr_text.empty()) {
    absl::StrAppend(&out, "; stderr: ", Tail(stderr_text));
  } else if (!stdout_text.empty()) {
    absl::StrAppend(&out, "; stdout: ", Tail(stdout_text));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(
    std::vector<std::string> argv, const SubprocessOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("empty argv");
  ZG_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("proc"));
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  const int out_fd = open(dir.File("stdout").c_str(), flags, 0600);
  const int err_fd = open(dir.File("stderr").c_str(), flags, 0600);
  const int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int errno_pipe[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {out_fd, err_fd, in_fd, errno_pipe[0], errno_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
  };
  if (out_fd < 0 || err_fd < 0 || in_fd < 0 || pipe2(errno_pipe, O_CLOEXEC)) {
    const int e = errno;
    close_all();
    return absl::InternalError(absl::StrCat("setting up output files in ",
                                            dir.path(), ": ", strerror(e)));
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = BuildEnv(options.env);
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_env = CStrings(env);
  const char* cwd = options.cwd.empty() ? nullptr : options.cwd.c_str();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close_all();
    return absl::ResourceExhaustedError(absl::StrCat("fork: ", strerror(e)));
  }
  if (pid == 0) {
    ExecChild(parent, out_fd, err_fd, in_fd, errno_pipe[1], cwd, c_args.data(),
              c_env.data());
  }
  setpgid(pid, pid);  // also done by the child; whichever runs first wins
  CleanupRegistration group = CleanupRegistration::ProcessGroup(pid);
  close(errno_pipe[1]);
  errno_pipe[1] = -1;
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(errno_pipe[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  close_all();
  if (n == sizeof(child_errno)) {
    group.Release();  // before the reap: its pid may be reused after
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot run `", QuoteArgv(argv), "`: ", strerror(child_errno),
        child_errno == ENOENT ? " (is the package installed? see "
                                "scripts/bootstrap.sh)"
                              : ""));
  }
  return std::unique_ptr<Subprocess>(
      new Subprocess(std::move(argv), std::move(dir), pid, std::move(group)));
}

Subprocess::Subprocess(std::vector<std::string> argv, TempDir dir, pid_t pid,
                       CleanupRegistration group)
    : argv_(std::move(argv)),
      dir_(std::move(dir)),
      pid_(pid),
      group_(std::move(group)) {
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));  // -1: polling
}

Subprocess::~Subprocess() {
  if (!result_) Stop(absl::ZeroDuration());
}

bool Subprocess::WaitExited(absl::Time deadline) {
  for (;;) {
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    const int rc = waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid_) return true;
    if (rc < 0 && errno != EINTR) return true;  // ECHILD: nothing to wait for
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    const int ms = static_cast<int>(
        absl::ToInt64Milliseconds(std::min(left, absl::Milliseconds(100))) + 1);
    if (pidfd_ >= 0) {
      pollfd p = {.fd = pidfd_, .events = POLLIN, .revents = 0};
      poll(&p, 1, ms);
    } else {
      usleep(static_cast<useconds_t>(std::min(ms, 5)) * 1000);
    }
  }
}

void Subprocess::SignalGroup(int sig) {
  // The leader is not reaped before Finish(), so its pid (the group id)
  // cannot have been reused: this signals only our own processes.
  kill(-pid_, sig);
}

CommandResult Subprocess::Finish(bool timed_out) {
  SignalGroup(SIGKILL);  // stragglers; the leader is a zombie or about to be
  group_.Release();      // before the reap: its pid may be reused after
  int status = 0;
  pid_t rc;
  do {
    rc = waitpid(pid_, &status, 0);
  } while (rc < 0 && errno == EINTR);
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  CommandResult r;
  r.argv = argv_;
  r.timed_out = timed_out;
  if (rc == pid_ && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (rc == pid_ && WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  r.stdout_text = Stdout();
  r.stderr_text = Stderr();
  result_ = r;
  return r;
}

bool Subprocess::Running() {
  if (result_) return false;
  return !WaitExited(absl::InfinitePast());
}

CommandResult Subprocess::Wait(absl::Duration timeout, absl::Duration grace) {
  if (result_) return *result_;
  if (WaitExited(absl::Now() + timeout)) return Finish(/*timed_out=*/false);
  SignalGroup(SIGTERM);
  WaitExited(absl::Now() + grace);
  return Finish(/*timed_out=*/true);
}

CommandResult Subprocess::Stop(absl::Duration grace) {
  if (result_) return *result_;
  SignalGroup(SIGTERM);
  WaitExited(absl::Now() + grace);
  return Finish(/*timed_out=*/false);
}

std::string Subprocess::Stdout() const {
  return ReadFileToString(dir_.File("stdout")).value_or("");
}

std::string Subprocess::Stderr() const {
  return ReadFileToString(dir_.File("stderr")).value_or("");
}

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout,
                                         const SubprocessOptions& options) {
  ZG_ASSIGN_OR_RETURN(std::unique_ptr<Subprocess> p,
                      Subprocess::Start(argv, options));
  return p->Wait(timeout);
}

bool ProgramAvailable(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0;
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) path = "/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = absl::StrCat(dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace zg::testutil
