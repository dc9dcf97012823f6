// SPDX-License-Identifier: Apache-2.0
// The control socket's thread (control_server.h).
#include "servo/api/control_server.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

constexpr uint64_t kListenerId = 0;
constexpr uint64_t kWakeId = 1;

int64_t MonoNow() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

absl::Status Errno(const std::string& what, int err) {
  return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(err)));
}

absl::StatusOr<sockaddr_un> Address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--control_socket=", path, ": a path of 1..",
                     sizeof(addr.sun_path) - 1, " bytes is needed"));
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

absl::StatusOr<gid_t> ResolveGroup(const std::string& name) {
  gid_t gid = 0;
  if (absl::SimpleAtoi(name, &gid)) return gid;
  std::vector<char> buf(16384);
  struct group g {};
  struct group* found = nullptr;
  const int err = getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found);
  if (err != 0 || found == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("--control_group=", name,
                     ": no such group (create it, or give a group number)"));
  }
  return found->gr_gid;
}

// A path already there: a live socket is another server (error), a dead one
// is left over from a crash (removed), anything else is not ours to touch.
absl::Status ClearStale(const std::string& path, const sockaddr_un& addr) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return Errno(absl::StrCat("control socket ", path), errno);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::AlreadyExistsError(
        absl::StrCat("control socket ", path,
                     " exists and is not a socket; remove it or give "
                     "--control_socket another path"));
  }
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return Errno("socket", errno);
  const int rc =
      connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  const int err = errno;
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (rc == 0) getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &cred, &len);
  close(probe);
  if (rc == 0) {
    return absl::AlreadyExistsError(absl::StrCat(
        "control socket ", path, ": another process (pid ", cred.pid,
        ") is serving it; stop that zeitgeberd or give --control_socket "
        "another path"));
  }
  if (err != ECONNREFUSED) {
    return Errno(absl::StrCat("control socket ", path), err);
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Errno(absl::StrCat("removing the stale control socket ", path),
                 errno);
  }
  return absl::OkStatus();
}

}  // namespace

// An eventfd the control thread writes to when a deferred reply is done.
// Shared with the replies' wake callbacks, so a late completion after the
// server stopped writes to this (still open) eventfd, never to a reused fd.
class ControlServer::Wake {
 public:
  Wake() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Wake() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  void Signal() const {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = write(fd_, &one, sizeof(one));
  }
  void Drain() const {
    uint64_t v = 0;
    [[maybe_unused]] const ssize_t n = read(fd_, &v, sizeof(v));
  }

 private:
  int fd_;
};

struct ControlServer::Conn {
  enum class State { kReading, kWaiting, kWriting };
  uint64_t id = 0;
  int fd = -1;
  Caller caller;
  State state = State::kReading;
  std::string in;
  std::string out;
  size_t out_off = 0;
  int64_t deadline = 0;
  bool close_after_write = false;
  bool eof = false;
  uint32_t watching = 0;
  std::shared_ptr<DeferredReply> pending;
  std::string command;
  nlohmann::json id_field;
};

absl::StatusOr<std::unique_ptr<ControlServer>> ControlServer::Start(
    ControlServerOptions options, const CommandTable* table) {
  std::unique_ptr<ControlServer> s(
      new ControlServer(std::move(options), table));
  if (s->wake_->fd() < 0) return Errno("eventfd", errno);
  if (absl::Status b = s->Bind(); !b.ok()) return b;
  s->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (s->epoll_fd_ < 0) return Errno("epoll_create1", errno);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerId;
  epoll_ctl(s->epoll_fd_, EPOLL_CTL_ADD, s->listen_fd_, &ev);
  ev.data.u64 = kWakeId;
  epoll_ctl(s->epoll_fd_, EPOLL_CTL_ADD, s->wake_->fd(), &ev);
  s->thread_ = std::thread([p = s.get()] { p->Run(); });
  return s;
}

ControlServer::ControlServer(ControlServerOptions options,
                             const CommandTable* table)
    : options_(std::move(options)),
      table_(table),
      wake_(std::make_shared<Wake>()) {}

ControlServer::~ControlServer() {
  stop_.store(true, std::memory_order_relaxed);
  wake_->Signal();
  if (thread_.joinable()) thread_.join();
  for (auto& [id, c] : conns_) close(c->fd);
  conns_.clear();
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    struct stat st {};
    if (lstat(options_.path.c_str(), &st) == 0 &&
        static_cast<uint64_t>(st.st_ino) == socket_inode_) {
      unlink(options_.path.c_str());
    }
  }
}

absl::Status ControlServer::Bind() {
  absl::StatusOr<sockaddr_un> addr = Address(options_.path);
  if (!addr.ok()) return addr.status();
  std::optional<gid_t> gid;
  if (!options_.group.empty()) {
    absl::StatusOr<gid_t> g = ResolveGroup(options_.group);
    if (!g.ok()) return g.status();
    gid = *g;
  }
  const size_t slash = options_.path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = options_.path.substr(0, slash);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return Errno(absl::StrCat("control socket directory ", dir), errno);
    }
  }
  if (absl::Status s = ClearStale(options_.path, *addr); !s.ok()) return s;
  // Bound under a temporary name, then renamed: the socket never exists at
  // its path with the umask's permissions.
  const std::string tmp = absl::StrCat(options_.path, ".", getpid(), ".tmp");
  absl::StatusOr<sockaddr_un> tmp_addr = Address(tmp);
  if (!tmp_addr.ok()) return tmp_addr.status();
  unlink(tmp.c_str());
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Errno("socket", errno);
  auto fail = [&](const std::string& what) {
    const int err = errno;
    unlink(tmp.c_str());
    return Errno(absl::StrCat(what, " ", options_.path), err);
  };
  if (bind(listen_fd_, reinterpret_cast<const sockaddr*>(&*tmp_addr),
           sizeof(*tmp_addr)) != 0) {
    return fail("binding the control socket");
  }
  if (chmod(tmp.c_str(), options_.mode) != 0) {
    return fail("chmod of the control socket");
  }
  if (gid && chown(tmp.c_str(), static_cast<uid_t>(-1), *gid) != 0) {
    return fail(absl::StrCat("chown to group ", options_.group, " of"));
  }
  if (listen(listen_fd_, 128) != 0) return fail("listen on");
  if (rename(tmp.c_str(), options_.path.c_str()) != 0) {
    return fail("renaming into place the control socket");
  }
  struct stat st {};
  if (lstat(options_.path.c_str(), &st) == 0) {
    socket_inode_ = static_cast<uint64_t>(st.st_ino);
  }
  return absl::OkStatus();
}

void ControlServer::Run() {
  epoll_event events[64];
  while (!stop_.load(std::memory_order_relaxed)) {
    const int n = epoll_wait(epoll_fd_, events, 64, 100);
    const int64_t now = MonoNow();
    for (int i = 0; i < n; ++i) {
      const uint64_t id = events[i].data.u64;
      if (id == kListenerId) {
        Accept(now);
      } else if (id == kWakeId) {
        wake_->Drain();
      } else if (auto it = conns_.find(id); it != conns_.end()) {
        OnEvents(*it->second, events[i].events, now);
      }
    }
    Sweep(MonoNow());
    while (!ready_.empty()) {
      const uint64_t id = ready_.back();
      ready_.pop_back();
      auto it = conns_.find(id);
      if (it != conns_.end() && it->second->state == Conn::State::kReading) {
        ReadRequests(*it->second, MonoNow());
      }
    }
  }
}

void ControlServer::Accept(int64_t now) {
  for (;;) {
    const int fd =
        accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        // Out of descriptors: stop accepting for a while rather than spin
        // on a listener that stays readable.
        if (options_.log) {
          options_.log(
              absl::StrCat("control socket: accept: ", std::strerror(errno),
                           "; pausing accepts for 100 ms"));
        }
        epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accept_paused_until_ = now + 100'000'000;
      }
      return;
    }
    if (conns_.size() >= options_.max_connections) {
      const std::string line = FormatReply(
          Reply::Error(ErrorCode::kTooManyConnections,
                       absl::StrCat("zeitgeberd serves at most ",
                                    options_.max_connections,
                                    " control connections at once; try "
                                    "again")),
          "", nullptr);
      [[maybe_unused]] const ssize_t w =
          send(fd, line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      close(fd);
      stats_.refused.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    auto c = std::make_unique<Conn>();
    c->id = next_id_++;
    c->fd = fd;
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
      c->caller = {cred.pid, cred.uid, cred.gid};
    } else {
      // Unknown peer: treat as nobody.
      c->caller = {0, static_cast<uid_t>(-1), static_cast<gid_t>(-1)};
    }
    c->deadline = now + options_.idle_timeout_ns;
    Conn& ref = *c;
    conns_.emplace(c->id, std::move(c));
    stats_.accepted.fetch_add(1, std::memory_order_relaxed);
    stats_.active.store(conns_.size(), std::memory_order_relaxed);
    Watch(ref, EPOLLIN | EPOLLRDHUP);
  }
}

void ControlServer::Watch(Conn& c, uint32_t events) {
  if (c.watching == events) return;
  if (events == 0) {
    // Not even EPOLLHUP (always reported while registered) may wake us
    // while a reply is being prepared: a gone client is found at write.
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  } else {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = c.id;
    epoll_ctl(epoll_fd_, c.watching == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd,
              &ev);
  }
  c.watching = events;
}

void ControlServer::Close(uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  if (it->second->watching != 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second->fd, nullptr);
  }
  close(it->second->fd);
  conns_.erase(it);
  stats_.active.store(conns_.size(), std::memory_order_relaxed);
}

void ControlServer::OnEvents(Conn& c, uint32_t events, int64_t now) {
  if (c.state == Conn::State::kWriting && (events & (EPOLLOUT | EPOLLERR))) {
    Flush(c, now);
    return;
  }
  if (c.state == Conn::State::kReading &&
      (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
    ReadRequests(c, now);
  }
}

void ControlServer::ReadRequests(Conn& c, int64_t now) {
  const uint64_t id = c.id;
  char buf[16384];
  while (c.state == Conn::State::kReading) {
    const size_t nl = c.in.find('\n');
    if (nl != std::string::npos) {
      std::string line = c.in.substr(0, nl + 1);
      c.in.erase(0, nl + 1);
      Process(c, std::move(line), now);
      if (conns_.find(id) == conns_.end()) return;  // closed
      continue;
    }
    if (c.in.size() >= options_.max_request_bytes) {
      stats_.too_large.fetch_add(1, std::memory_order_relaxed);
      c.in.clear();
      c.close_after_write = true;
      QueueReply(
          c,
          Reply::Error(ErrorCode::kTooLarge,
                       absl::StrCat("request over ", options_.max_request_bytes,
                                    " bytes without a newline")),
          now);
      return;
    }
    if (c.eof) {
      if (!c.in.empty()) {
        // A last request without its newline (e.g. `printf ... | socat`).
        c.close_after_write = true;
        std::string line = std::move(c.in);
        c.in.clear();
        Process(c, std::move(line), now);
      } else {
        Close(id);
      }
      return;
    }
    const size_t room =
        std::min(sizeof(buf), options_.max_request_bytes - c.in.size());
    const ssize_t n = recv(c.fd, buf, room, MSG_DONTWAIT);
    if (n > 0) {
      c.in.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      c.eof = true;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      return;
    } else {
      Close(id);
      return;
    }
  }
}

void ControlServer::Process(Conn& c, std::string line, int64_t now) {
  stats_.requests.fetch_add(1, std::memory_order_relaxed);
  ParsedRequest p = ParseControlRequest(line);
  c.command = p.command;
  c.id_field = p.id;
  if (!p.request) {
    QueueReply(c, p.error, now);
    return;
  }
  std::weak_ptr<Wake> wake = wake_;
  CommandOutcome o = table_->Run(*p.request, c.caller, [wake] {
    if (std::shared_ptr<Wake> w = wake.lock()) w->Signal();
  });
  if (Reply* r = std::get_if<Reply>(&o)) {
    QueueReply(c, *r, now);
    return;
  }
  c.pending = std::get<std::shared_ptr<DeferredReply>>(std::move(o));
  c.state = Conn::State::kWaiting;
  c.deadline = now + options_.reply_timeout_ns;
  Watch(c, 0);  // Sweep sends the reply once it is done
}

void ControlServer::QueueReply(Conn& c, const Reply& reply, int64_t now) {
  if (!reply.ok) stats_.errors.fetch_add(1, std::memory_order_relaxed);
  c.out = FormatReply(reply, c.command, c.id_field);
  if (c.out.size() > options_.max_reply_bytes) {
    stats_.errors.fetch_add(1, std::memory_order_relaxed);
    c.out = FormatReply(
        Reply::Error(
            ErrorCode::kTooLarge,
            absl::StrCat("the reply would be ", c.out.size(),
                         " bytes, over the limit of ", options_.max_reply_bytes,
                         "; narrow the query (audit: --limit, "
                         "--since, --kind)")),
        c.command, c.id_field);
  }
  c.out_off = 0;
  c.state = Conn::State::kWriting;
  c.deadline = now + options_.write_timeout_ns;
  Flush(c, now);
}

void ControlServer::Flush(Conn& c, int64_t now) {
  const uint64_t id = c.id;
  while (c.out_off < c.out.size()) {
    const ssize_t n =
        send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off,
             MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      c.out_off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      Watch(c, EPOLLOUT);
      return;
    }
    stats_.disconnects.fetch_add(1, std::memory_order_relaxed);
    Close(id);
    return;
  }
  c.out.clear();
  c.out.shrink_to_fit();  // a large reply's buffer is not kept for idling
  c.out_off = 0;
  c.pending.reset();
  if (c.close_after_write) {
    Close(id);
    return;
  }
  c.state = Conn::State::kReading;
  c.deadline = now + options_.idle_timeout_ns;
  Watch(c, EPOLLIN | EPOLLRDHUP);
  // A request that came while we were busy is read by the caller's loop
  // (ReadRequests) or, after an EPOLLOUT or a deferred reply, by Run's
  // (never recursively: a client's pipelined requests cost no stack).
  if (!c.in.empty() || c.eof) ready_.push_back(id);
}

void ControlServer::Sweep(int64_t now) {
  if (accept_paused_until_ != 0 && now >= accept_paused_until_) {
    accept_paused_until_ = 0;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenerId;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  }
  std::vector<uint64_t> ids;
  ids.reserve(conns_.size());
  for (const auto& [id, c] : conns_) ids.push_back(id);
  for (uint64_t id : ids) {
    auto it = conns_.find(id);
    if (it == conns_.end()) continue;
    Conn& c = *it->second;
    if (c.state == Conn::State::kWaiting && c.pending->done()) {
      const Reply reply = c.pending->reply();
      QueueReply(c, reply, now);
      continue;
    }
    if (now < c.deadline) continue;
    switch (c.state) {
      case Conn::State::kReading:
        stats_.idle_timeouts.fetch_add(1, std::memory_order_relaxed);
        Close(id);
        break;
      case Conn::State::kWriting:
        stats_.write_timeouts.fetch_add(1, std::memory_order_relaxed);
        Close(id);
        break;
      case Conn::State::kWaiting:
        stats_.reply_timeouts.fetch_add(1, std::memory_order_relaxed);
        QueueReply(c,
                   Reply::Error(ErrorCode::kTimeout,
                                "the control thread did not run the request "
                                "in time; it may still run: check the audit "
                                "log"),
                   now);
        break;
    }
  }
}

}  // namespace zg::servo
