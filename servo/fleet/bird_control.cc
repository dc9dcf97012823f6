// SPDX-License-Identifier: Apache-2.0
// The BIRD control-socket driver's thread (bird_control.h).
#include "servo/fleet/bird_control.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

int64_t MonoNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void DrainEventFd(int fd) {
  uint64_t v = 0;
  while (read(fd, &v, sizeof(v)) == sizeof(v)) {
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<BirdControl>> BirdControl::Start(
    Options options) {
  if (options.socket_path.empty()) {
    return absl::InvalidArgumentError("BIRD control socket path is empty");
  }
  if (options.socket_path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BIRD control socket path ", options.socket_path, " is too long"));
  }
  if (absl::Status s = ValidateBirdSymbol(options.protocol); !s.ok()) {
    return s;
  }
  if (options.check_interval <= absl::ZeroDuration() ||
      options.io_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "BIRD check interval and I/O timeout must be positive");
  }
  std::unique_ptr<BirdControl> b(new BirdControl(std::move(options)));
  b->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (b->wake_fd_ < 0) {
    return absl::InternalError(
        absl::StrCat("eventfd for the BIRD thread: ", std::strerror(errno)));
  }
  b->thread_ = std::thread([p = b.get()] { p->Run(); });
  return b;
}

BirdControl::~BirdControl() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  Disconnect();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void BirdControl::Want(bool announce) {
  want_.store(announce);
  want_gen_.fetch_add(1);
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));  // never blocks (non-blocking)
}

void BirdControl::Run() {
  BirdStatus st;
  bool was_reachable = true;  // so the first failure is logged
  while (!stop_.load()) {
    const uint64_t gen = want_gen_.load();
    const bool want = want_.load();
    if (gen != st.want_generation || want != st.want_announce) {
      st.in_effect = false;
    }
    st.want_generation = gen;
    st.want_announce = want;
    Round(st, want);
    if (st.reachable != was_reachable) {
      Log(st.reachable ? absl::StrCat("BIRD at ", options_.socket_path,
                                      " reachable: ", st.version)
                       : absl::StrCat("BIRD at ", options_.socket_path,
                                      " unreachable: ", st.error));
      was_reachable = st.reachable;
    }
    status_.Publish(std::make_shared<const BirdStatus>(st));
    if (stop_.load()) break;
    // Until the next check, or at once when Want() or the destructor wakes.
    pollfd p{wake_fd_, POLLIN, 0};
    if (want_gen_.load() == gen) {
      poll(
          &p, 1,
          static_cast<int>(absl::ToInt64Milliseconds(options_.check_interval)));
    }
    DrainEventFd(wake_fd_);
  }
}

void BirdControl::Round(BirdStatus& st, bool want) {
  if (sock_ < 0 && !Connect(st)) return;
  BirdReply reply;
  const std::string command =
      absl::StrCat(want ? "enable " : "disable ", options_.protocol);
  if (!Exchange(st, command, reply)) return;
  if (!reply.ok()) {
    Fail(st, absl::StrCat("\"", command, "\": ", reply.Text()));
    return;
  }
  if (!Exchange(st, absl::StrCat("show protocols ", options_.protocol),
                reply)) {
    return;
  }
  const std::optional<std::string> state =
      BirdProtocolState(reply, options_.protocol);
  if (!reply.ok() || !state.has_value()) {
    Fail(st, absl::StrCat("no protocol ", options_.protocol,
                          " in BIRD: ", reply.Text()));
    return;
  }
  st.reachable = true;
  st.error.clear();
  st.state = *state;
  st.announced = *state == "up";
  const bool in_effect = st.announced == want;
  if (in_effect && !st.in_effect) st.in_effect_mono_ns = MonoNs();
  st.in_effect = in_effect;
}

bool BirdControl::Connect(BirdStatus& st) {
  sock_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (sock_ < 0) return Fail(st, absl::StrCat("socket: ", strerror(errno)));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, options_.socket_path.data(),
              options_.socket_path.size());
  // A Unix socket connects at once or fails (EAGAIN: BIRD's backlog full).
  if (connect(sock_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) !=
      0) {
    return Fail(st, absl::StrCat("connect ", options_.socket_path, ": ",
                                 strerror(errno)));
  }
  ++st.connects;
  inbuf_.clear();
  BirdReplyReader reader;
  std::string line;
  const int64_t deadline =
      MonoNs() + absl::ToInt64Nanoseconds(options_.io_timeout);
  BirdReplyReader::Result r = BirdReplyReader::kMore;
  while (r == BirdReplyReader::kMore) {
    if (!ReadLine(line, deadline)) {
      return Fail(st, "no welcome line from BIRD within the I/O timeout");
    }
    r = reader.Feed(line);
  }
  const BirdReply welcome = reader.Take();
  if (r != BirdReplyReader::kDone || welcome.code != 1) {
    return Fail(st, absl::StrCat("not BIRD's welcome: ", welcome.Text()));
  }
  st.version = welcome.Text();
  return true;
}

void BirdControl::Disconnect() {
  if (sock_ >= 0) close(sock_);
  sock_ = -1;
  inbuf_.clear();
}

bool BirdControl::Fail(BirdStatus& st, std::string error) {
  Disconnect();
  st.reachable = false;
  st.in_effect = false;
  st.state.clear();
  st.error = std::move(error);
  ++st.failures;
  return false;
}

bool BirdControl::Exchange(BirdStatus& st, const std::string& command,
                           BirdReply& reply) {
  const std::string out = command + "\n";
  const int64_t deadline =
      MonoNs() + absl::ToInt64Nanoseconds(options_.io_timeout);
  size_t sent = 0;
  while (sent < out.size()) {
    const ssize_t n =
        send(sock_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return Fail(st, absl::StrCat("send to BIRD: ", strerror(errno)));
    }
    const int64_t left = deadline - MonoNs();
    pollfd p{sock_, POLLOUT, 0};
    if (left <= 0 || poll(&p, 1, static_cast<int>(left / 1'000'000) + 1) <= 0) {
      return Fail(st, "BIRD did not take the command within the I/O timeout");
    }
  }
  BirdReplyReader reader;
  std::string line;
  BirdReplyReader::Result r = BirdReplyReader::kMore;
  while (r == BirdReplyReader::kMore) {
    if (!ReadLine(line, deadline)) {
      return Fail(st, absl::StrCat("no reply from BIRD to \"", command,
                                   "\" within the I/O timeout"));
    }
    r = reader.Feed(line);
  }
  if (r == BirdReplyReader::kMalformed) {
    return Fail(st,
                absl::StrCat("malformed reply from BIRD to \"", command, "\""));
  }
  reply = reader.Take();
  ++st.exchanges;
  return true;
}

bool BirdControl::ReadLine(std::string& line, int64_t deadline_mono_ns) {
  for (;;) {
    const size_t nl = inbuf_.find('\n');
    if (nl != std::string::npos) {
      line.assign(inbuf_, 0, nl);
      inbuf_.erase(0, nl + 1);
      return true;
    }
    if (inbuf_.size() > kMaxBirdLineBytes) return false;
    char buf[1024];
    const ssize_t n = recv(sock_, buf, sizeof(buf), 0);
    if (n > 0) {
      inbuf_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) return false;
    const int64_t left = deadline_mono_ns - MonoNs();
    if (left <= 0 || stop_.load()) return false;
    // In slices, so that the destructor's stop is seen within 100 ms.
    pollfd p{sock_, POLLIN, 0};
    const int64_t slice_ms = std::min<int64_t>(left / 1'000'000 + 1, 100);
    if (poll(&p, 1, static_cast<int>(slice_ms)) < 0 && errno != EINTR) {
      return false;
    }
  }
}

}  // namespace zg::servo
