// SPDX-License-Identifier: Apache-2.0
#include "tests/util/signal_cleanup.h"

#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace zg::testutil {
namespace {

// Everything below the registration functions runs in the signal handler:
// system calls, fixed buffers and atomics only (no allocation, no locks, no
// stdio).

enum Kind : int { kProcessGroup = 1, kNetns, kLink, kDirectory };
enum State : int { kFree = 0, kWriting, kActive };

constexpr int kSlots = 256;
constexpr size_t kNameBytes = 256;

struct Slot {
  std::atomic<int> state{kFree};
  int kind = 0;
  pid_t pid = 0;
  char name[kNameBytes] = {};
};

Slot g_slots[kSlots];
std::atomic<bool> g_installed{false};
std::atomic<bool> g_tearing_down{false};
pid_t g_owner = 0;            // the process that installed the handler
int g_initial_netns_fd = -1;  // its network namespace, for link deletion

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

void Put(const char* s) { (void)!write(STDERR_FILENO, s, strlen(s)); }

void PutInt(long v) {
  char buf[24];
  int i = sizeof(buf);
  const bool neg = v < 0;
  unsigned long u =
      neg ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    buf[--i] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0 && i > 1);
  if (neg) buf[--i] = '-';
  (void)!write(STDERR_FILENO, buf + i, sizeof(buf) - i);
}

long MonotonicMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

// "/run/netns/" + name into buf (kNameBytes + 16).
void NetnsPath(const char* name, char* buf) {
  static const char kPrefix[] = "/run/netns/";
  memcpy(buf, kPrefix, sizeof(kPrefix) - 1);
  const size_t n = strnlen(name, kNameBytes - 1);
  memcpy(buf + sizeof(kPrefix) - 1, name, n);
  buf[sizeof(kPrefix) - 1 + n] = '\0';
}

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Calls fn(name, d_type) for each entry of the open directory `fd`.
template <typename Fn>
void ForEachEntry(int fd, Fn fn) {
  alignas(8) char buf[4096];
  for (;;) {
    const long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
    if (n <= 0) return;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const LinuxDirent64*>(buf + off);
      off += d->d_reclen;
      if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) {
        continue;
      }
      fn(d->d_name, d->d_type);
    }
  }
}

// SIGKILLs every process whose network namespace is (dev, ino); returns how
// many it signalled.
int KillNamespaceProcesses(dev_t dev, ino_t ino) {
  const int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return 0;
  int killed = 0;
  const pid_t self = getpid();
  ForEachEntry(proc, [&](const char* name, unsigned char) {
    pid_t pid = 0;
    for (const char* c = name; *c != '\0'; ++c) {
      if (*c < '0' || *c > '9') return;
      pid = pid * 10 + (*c - '0');
    }
    if (pid <= 1 || pid == self) return;
    char path[64] = "/proc/";
    size_t len = 6;
    for (const char* c = name; *c != '\0' && len < 40; ++c) path[len++] = *c;
    memcpy(path + len, "/ns/net", 8);
    struct stat st;
    if (stat(path, &st) != 0 || st.st_dev != dev || st.st_ino != ino) return;
    if (kill(pid, SIGKILL) == 0) ++killed;
  });
  close(proc);
  return killed;
}

// `ip netns del`, after killing what runs in the namespace (repeated for up
// to 200 ms: a process may fork while we scan; a killed one leaves the
// namespace as it dies, without waiting to be reaped).
void RemoveNetns(const char* name) {
  char path[kNameBytes + 16];
  NetnsPath(name, path);
  struct stat st;
  if (stat(path, &st) != 0) return;
  const long until = MonotonicMs() + 200;
  int killed = 0;
  for (;;) {
    const int n = KillNamespaceProcesses(st.st_dev, st.st_ino);
    killed += n;
    if (n == 0 || MonotonicMs() > until) break;
    const timespec pause = {0, 5'000'000};
    nanosleep(&pause, nullptr);
  }
  umount2(path, MNT_DETACH);
  unlink(path);
  Put("  namespace ");
  Put(name);
  Put(" removed (");
  PutInt(killed);
  Put(" processes killed)\n");
}

// `ip link del NAME` in the test's own network namespace, over rtnetlink.
void DeleteLink(const char* name) {
  struct {
    nlmsghdr nh;
    ifinfomsg ifi;
    char attrs[64];
  } req;
  memset(&req, 0, sizeof(req));
  const size_t len = strnlen(name, 15);
  req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(ifinfomsg));
  req.nh.nlmsg_type = RTM_DELLINK;
  req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  req.nh.nlmsg_seq = 1;
  req.ifi.ifi_family = AF_UNSPEC;
  auto* rta = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(&req) +
                                        NLMSG_ALIGN(req.nh.nlmsg_len));
  rta->rta_type = IFLA_IFNAME;
  rta->rta_len = static_cast<unsigned short>(RTA_LENGTH(len + 1));
  memcpy(RTA_DATA(rta), name, len);
  static_cast<char*>(RTA_DATA(rta))[len] = '\0';
  req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
  const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return;
  const timeval tv = {0, 500'000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  int error = -1;
  if (sendto(fd, &req, req.nh.nlmsg_len, 0,
             reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) > 0) {
    alignas(8) char buf[1024];
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    const auto* h = reinterpret_cast<const nlmsghdr*>(buf);
    if (n >= static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr))) &&
        h->nlmsg_type == NLMSG_ERROR) {
      error = -reinterpret_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
    }
  }
  close(fd);
  if (error == ENODEV) return;  // never made, or gone with its namespace
  Put("  link ");
  Put(name);
  Put(error == 0 ? " deleted\n" : " could not be deleted\n");
}

// rm -rf below the open directory `dirfd`, `depth` levels at most.
void RemoveTreeAt(int dirfd, const char* name, int depth) {
  if (unlinkat(dirfd, name, 0) == 0) return;
  const int fd =
      openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  if (depth > 0) {
    ForEachEntry(fd, [&](const char* child, unsigned char) {
      RemoveTreeAt(fd, child, depth - 1);
    });
  }
  close(fd);
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

// One kind of resource, every active slot of it.
template <typename Fn>
void ForEachActive(int kind, Fn fn) {
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == kActive && s.kind == kind) {
      fn(s);
    }
  }
}

void OnFatalSignal(int sig) {
  if (getpid() != g_owner) _exit(128 + sig);  // a child before its exec
  if (g_tearing_down.exchange(true)) {
    // Another thread is at it and will exit the process.
    for (;;) pause();
  }
  const int saved_errno = errno;
  Put("\nzg testutil: signal ");
  PutInt(sig);
  Put(": tearing down what this test created\n");
  // Links are named in the namespace the test started in, whichever thread
  // (some enter a rig's namespace for a moment) runs this.
  if (g_initial_netns_fd >= 0) setns(g_initial_netns_fd, CLONE_NEWNET);
  int groups = 0;
  ForEachActive(kProcessGroup, [&](Slot& s) {
    kill(-s.pid, SIGKILL);
    kill(s.pid, SIGKILL);  // in case it had not made its group yet
    ++groups;
  });
  Put("  ");
  PutInt(groups);
  Put(" process groups killed\n");
  ForEachActive(kNetns, [](Slot& s) { RemoveNetns(s.name); });
  ForEachActive(kLink, [](Slot& s) { DeleteLink(s.name); });
  ForEachActive(kDirectory, [](Slot& s) { RemoveTreeAt(AT_FDCWD, s.name, 8); });
  errno = saved_errno;
  _exit(128 + sig);
}

// In the child of a fork: what the parent registered is the parent's.
void ForgetInChild() {
  g_owner = getpid();
  g_tearing_down.store(false);
  for (Slot& s : g_slots) s.state.store(kFree, std::memory_order_relaxed);
}

void InstallOnce() {
  if (g_installed.exchange(true)) return;
  g_owner = getpid();
  pthread_atfork(nullptr, nullptr, ForgetInChild);
  g_initial_netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnFatalSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaddset(&sa.sa_mask, sig);
  for (int sig : kSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO) != 0) {
      continue;  // the program has its own, or ignores it (nohup)
    }
    sigaction(sig, &sa, nullptr);
  }
}

int Claim(int kind, pid_t pid, absl::string_view name) {
  InstallOnce();
  if (name.size() >= kNameBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kWriting)) {
      continue;
    }
    // Once the handler runs, nothing new is registered: it exits the
    // process soon.
    while (g_tearing_down.load()) pause();
    Slot& s = g_slots[i];
    s.kind = kind;
    s.pid = pid;
    memcpy(s.name, name.data(), name.size());
    s.name[name.size()] = '\0';
    s.state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;  // full: not covered
}

}  // namespace

CleanupRegistration CleanupRegistration::ProcessGroup(pid_t pgid) {
  return CleanupRegistration(Claim(kProcessGroup, pgid, ""));
}

CleanupRegistration CleanupRegistration::Netns(absl::string_view name) {
  return CleanupRegistration(Claim(kNetns, 0, name));
}

CleanupRegistration CleanupRegistration::Link(absl::string_view ifname) {
  return CleanupRegistration(Claim(kLink, 0, ifname));
}

CleanupRegistration CleanupRegistration::Directory(absl::string_view path) {
  return CleanupRegistration(Claim(kDirectory, 0, path));
}

CleanupRegistration& CleanupRegistration::operator=(
    CleanupRegistration&& o) noexcept {
  if (this != &o) {
    Release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void CleanupRegistration::Release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace zg::testutil
