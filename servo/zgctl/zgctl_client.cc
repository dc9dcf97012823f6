// SPDX-License-Identifier: Apache-2.0
// zgctl's connection to zeitgeberd (zgctl_client.h).
#include "servo/zgctl/zgctl_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::zgctl {
namespace {

int64_t MonoMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1'000'000;
}

ClientResult Fail(int code, std::string message) {
  ClientResult r;
  r.exit_code = code;
  r.message = std::move(message);
  return r;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Waits for `events` on `fd` until `deadline_ms`; false on timeout.
bool WaitFor(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    const int64_t left = deadline_ms - MonoMs();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let the I/O report it
  }
}

}  // namespace

int ExitCodeFor(servo::ErrorCode code) {
  switch (code) {
    case servo::ErrorCode::kBadRequest:
    case servo::ErrorCode::kUnsupportedVersion:
    case servo::ErrorCode::kUnknownCommand:
    case servo::ErrorCode::kBadArgument:
    case servo::ErrorCode::kTooLarge:
      return kZgctlUsage;
    case servo::ErrorCode::kPermissionDenied:
      return kZgctlPermission;
    case servo::ErrorCode::kShuttingDown:
      return kZgctlNotRunning;
    case servo::ErrorCode::kTooManyConnections:
    case servo::ErrorCode::kTimeout:
    case servo::ErrorCode::kUnavailable:
    case servo::ErrorCode::kFailed:
      break;
  }
  return kZgctlFailed;
}

ClientResult ZgctlClient::Call(const std::string& command,
                               const nlohmann::json& args, int version) const {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path_.empty() || path_.size() >= sizeof(addr.sun_path)) {
    return Fail(kZgctlUsage,
                absl::StrCat("--socket=", path_, ": not a socket path"));
  }
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  Fd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return Fail(kZgctlFailed, absl::StrCat("socket: ", std::strerror(errno)));
  }
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr),
              sizeof(addr)) != 0) {
    const int err = errno;
    switch (err) {
      case ENOENT:
        return Fail(kZgctlNotRunning,
                    absl::StrCat("zeitgeberd is not running: no control "
                                 "socket at ",
                                 path_, " (see --socket)"));
      case ECONNREFUSED:
        return Fail(kZgctlNotRunning,
                    absl::StrCat("zeitgeberd is not running: nothing "
                                 "listens on ",
                                 path_));
      case EACCES:
      case EPERM:
        return Fail(kZgctlPermission,
                    absl::StrCat("permission denied on ", path_,
                                 ": run zgctl as a member of the socket's "
                                 "group (zeitgeberd --control_group) or as "
                                 "root"));
      default:
        return Fail(kZgctlNotRunning, absl::StrCat("cannot connect to ", path_,
                                                   ": ", std::strerror(err)));
    }
  }
  const int64_t deadline = MonoMs() + timeout_ms_;
  const std::string request = servo::FormatRequest(command, args, version);
  size_t sent = 0;
  while (sent < request.size()) {
    if (!WaitFor(fd.get(), POLLOUT, deadline)) {
      return Fail(kZgctlNotRunning,
                  "zeitgeberd did not take the request in "
                  "time");
    }
    const ssize_t n = send(fd.get(), request.data() + sent,
                           request.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Fail(kZgctlNotRunning,
                  absl::StrCat("zeitgeberd closed the connection: ",
                               std::strerror(errno)));
    }
    sent += static_cast<size_t>(n);
  }
  std::string line;
  char buf[65536];
  for (;;) {
    if (!WaitFor(fd.get(), POLLIN, deadline)) {
      return Fail(kZgctlNotRunning,
                  absl::StrCat("no reply from zeitgeberd within ",
                               timeout_ms_ / 1000, " s"));
    }
    const ssize_t n = recv(fd.get(), buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Fail(
          kZgctlNotRunning,
          absl::StrCat("zeitgeberd closed the connection before its "
                       "reply was complete (",
                       n == 0 ? "did it stop?" : std::strerror(errno), ")"));
    }
    line.append(buf, static_cast<size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  line.resize(line.find('\n'));
  std::optional<servo::Reply> reply = servo::ParseReply(line);
  if (!reply) {
    return Fail(kZgctlProtocol,
                "zeitgeberd's reply is not the control protocol (a different "
                "zgctl version?)");
  }
  ClientResult r;
  r.reply = std::move(*reply);
  if (!r.reply.ok) {
    r.exit_code = ExitCodeFor(r.reply.code);
    r.message = absl::StrCat(command, ": ", r.reply.message);
  }
  return r;
}

}  // namespace zg::zgctl
