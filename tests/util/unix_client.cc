// SPDX-License-Identifier: Apache-2.0
// A raw Unix stream client for tests (unix_client.h).
#include "tests/util/unix_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/time/clock.h"

namespace zg::testutil {

int ConnectUnix(const std::string& path, bool nonblocking) {
  sockaddr_un addr{};
  if (path.size() >= sizeof(addr.sun_path)) return -1;
  const int fd =
      socket(AF_UNIX,
             SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) !=
      0) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string ReadLine(int fd, absl::Duration timeout) {
  std::string line;
  const absl::Time deadline = absl::Now() + timeout;
  char buf[4096];
  while (absl::Now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    // Peek, then take up to the newline: what follows stays for the next
    // ReadLine.
    const ssize_t n = recv(fd, buf, sizeof(buf), MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return line;
    const char* nl = static_cast<const char*>(std::memchr(buf, '\n', n));
    const size_t take = nl != nullptr ? static_cast<size_t>(nl - buf) + 1
                                      : static_cast<size_t>(n);
    if (recv(fd, buf, take, 0) != static_cast<ssize_t>(take)) return line;
    line.append(buf, nl != nullptr ? take - 1 : take);
    if (nl != nullptr) return line;
  }
  return line;
}

bool ClosedWithin(int fd, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  char buf[4096];
  do {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
  } while (absl::Now() < deadline);
  return false;
}

}  // namespace zg::testutil
