// SPDX-License-Identifier: Apache-2.0
#include "dataplane/nts/nts_ke_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

enum class ConnPhase : uint8_t { kHandshake, kRequest, kResponse };

struct NtsKeServer::Conn {
  size_t slot = 0;      // index in conns_
  bool closed = false;  // in dead_: events still queued for it are ignored
  int fd = -1;
  core::NtsKeSource source;
  absl::Time last_active;  // accepted, or the latest event
  SslPtr ssl;
  ConnPhase phase = ConnPhase::kHandshake;
  absl::Time deadline;
  bool want_write = false;  // what epoll watches: EPOLLOUT, else EPOLLIN
  std::vector<uint8_t> in;
  std::vector<uint8_t> out;
  size_t out_off = 0;
  ~Conn() {
    ssl.reset();
    if (fd >= 0) close(fd);
  }
};

namespace {

// epoll tags: 0 the stop eventfd, 1..L the listeners, else a Conn*.
constexpr uint64_t kStopTag = 0;
constexpr uint64_t kMaxTag = 4096;  // no Conn* is this low
// How often the deadlines are scanned (O(connections)).
constexpr absl::Duration kScanInterval = absl::Milliseconds(20);
// How long accepting stops when the process is out of descriptors.
constexpr absl::Duration kAcceptPause = absl::Milliseconds(100);

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// The source of an accepted connection's peer address.
core::NtsKeSource SourceOf(const sockaddr_storage& peer) {
  if (peer.ss_family == AF_INET6) {
    const auto& a6 = reinterpret_cast<const sockaddr_in6&>(peer);
    core::Ipv6Addr a;
    std::memcpy(a.b.data(), &a6.sin6_addr, 16);
    // An IPv4 client on a dual-stack socket is its IPv4 address.
    static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                            0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(a.b.data(), kMapped, 12) == 0) {
      return core::NtsKeSource::V4(core::Ipv4Addr::Load(a.b.data() + 12));
    }
    return core::NtsKeSource::V6(a);
  }
  const auto& a4 = reinterpret_cast<const sockaddr_in&>(peer);
  return core::NtsKeSource::V4(
      core::Ipv4Addr::Load(reinterpret_cast<const uint8_t*>(&a4.sin_addr)));
}

core::NtsKeAdmission::Config AdmissionConfig(const NtsKeConfig& c) {
  core::NtsKeAdmission::Config a;
  a.rate = c.rate;
  a.rate_limit = c.rate_limit;
  a.max_connections = c.max_connections;
  return a;
}

absl::StatusOr<int> BindListener(const NtsKeListenAddress& a, uint16_t* bound) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  const bool v6 = a.ip.find(':') != std::string::npos;
  if (v6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(a.port);
    if (inet_pton(AF_INET6, a.ip.c_str(), &s6->sin6_addr) != 1)
      len = 0;
    else
      len = sizeof(*s6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(a.port);
    if (inet_pton(AF_INET, a.ip.c_str(), &s4->sin_addr) != 1)
      len = 0;
    else
      len = sizeof(*s4);
  }
  if (len == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_ke_address=", a.ToString(), ": not an IPv4/IPv6 address"));
  }
  const int fd =
      socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("NTS-KE socket: ", std::strerror(errno)));
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 ||
      listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        "--nts_ke_address=", a.ToString(), ": ", std::strerror(err)));
  }
  sockaddr_storage got{};
  socklen_t got_len = sizeof(got);
  getsockname(fd, reinterpret_cast<sockaddr*>(&got), &got_len);
  *bound = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&got)->sin6_port
                    : reinterpret_cast<sockaddr_in*>(&got)->sin_port);
  return fd;
}

}  // namespace

std::string NtsKeListenAddress::ToString() const {
  return ip.find(':') != std::string::npos ? absl::StrCat("[", ip, "]:", port)
                                           : absl::StrCat(ip, ":", port);
}

std::vector<uint8_t> AnswerNtsKeRequest(const core::NtsKeRequestParse& parse,
                                        const core::NtsKeys& keys,
                                        const core::NtsKeServerRecords& server,
                                        const core::NtsCookieKeystore* keystore,
                                        NtsKeStats* stats) {
  core::NtsKeErrorCode error = parse.error;
  if (parse.state == core::NtsKeParseState::kComplete) {
    if (!parse.request.Accepted()) {
      if (stats != nullptr) Bump(stats->responses_no_common);
      return core::BuildNtsKeResponse(parse.request, server, {});
    }
    std::array<core::NtsKeCookie, core::kNtsKeCookiesPerResponse> cookies;
    uint8_t nonces[core::kNtsKeCookiesPerResponse][16];
    if (keystore != nullptr && RAND_bytes(&nonces[0][0], sizeof(nonces)) == 1) {
      for (size_t i = 0; i < cookies.size(); ++i) {
        keystore->Seal(keys, nonces[i], cookies[i].data());
      }
      if (stats != nullptr) {
        Bump(stats->responses_cookies);
        Bump(stats->cookies_issued, cookies.size());
      }
      return core::BuildNtsKeResponse(parse.request, server, cookies);
    }
    error = core::NtsKeErrorCode::kInternalServerError;
  }
  if (stats != nullptr) Bump(stats->record_errors[static_cast<size_t>(error)]);
  return core::BuildNtsKeErrorResponse(error);
}

NtsKeServer::NtsKeServer(const NtsKeConfig& config, NtsKeystoreSource keystore)
    : config_(config),
      records_{config.ntp_server, config.ntp_port},
      keystore_(std::move(keystore)),
      admission_(AdmissionConfig(config)) {}

absl::StatusOr<std::unique_ptr<NtsKeServer>> NtsKeServer::Start(
    const NtsKeConfig& config, NtsKeystoreSource keystore) {
  if (config.addresses.empty()) {
    return absl::InvalidArgumentError("NTS-KE: no --nts_ke_address");
  }
  if (config.cert_path.empty() || config.key_path.empty()) {
    return absl::InvalidArgumentError(
        "--nts_ke_address needs --nts_cert (PEM chain) and --nts_key (PEM)");
  }
  if (!keystore) {
    return absl::InvalidArgumentError(
        "--nts_ke_address needs the cookie keystore (--nts_master_key)");
  }
  if (config.max_connections == 0) {
    return absl::InvalidArgumentError("--nts_ke_max_connections must be >= 1");
  }
  // Every connection is a descriptor: running out of them mid-flood would
  // leave accept() failing on a listener epoll keeps reporting.
  rlimit nofile{};
  constexpr uint64_t kSpareFds = 128;  // the daemon's own, DPDK's
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
      nofile.rlim_cur != RLIM_INFINITY &&
      config.max_connections + kSpareFds > nofile.rlim_cur) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--nts_ke_max_connections=", config.max_connections, " needs ",
        config.max_connections + kSpareFds,
        " file descriptors, but the limit (ulimit -n, LimitNOFILE=) is ",
        nofile.rlim_cur, ": raise it or lower the flag"));
  }
  std::unique_ptr<NtsKeServer> s(new NtsKeServer(config, std::move(keystore)));
  ZG_ASSIGN_OR_RETURN(s->ctx_,
                      BuildNtsKeSslCtx(config.cert_path, config.key_path));
  ZG_RETURN_IF_ERROR(s->Listen());
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  return s;
}

absl::Status NtsKeServer::Listen() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || stop_fd_ < 0) {
    return absl::InternalError(
        absl::StrCat("NTS-KE: epoll/eventfd: ", std::strerror(errno)));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kStopTag;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &ev);
  for (const NtsKeListenAddress& a : config_.addresses) {
    uint16_t port = 0;
    ZG_ASSIGN_OR_RETURN(const int fd, BindListener(a, &port));
    listeners_.push_back(fd);
    ports_.push_back(port);
    ev.data.u64 = listeners_.size();  // 1..L
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    LogInfo(absl::StrCat("NTS-KE listening on ",
                         NtsKeListenAddress{a.ip, port}.ToString()));
  }
  return absl::OkStatus();
}

NtsKeServer::~NtsKeServer() { Stop(); }

void NtsKeServer::Stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof(one)) < 0) {
      LogWarning(absl::StrCat("NTS-KE stop: ", std::strerror(errno)));
    }
    thread_.join();
  }
  conns_.clear();
  dead_.clear();
  stats_->connections_active.store(0, std::memory_order_relaxed);
  for (int fd : listeners_) close(fd);
  listeners_.clear();
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
  epoll_fd_ = stop_fd_ = -1;
}

absl::Status NtsKeServer::ReloadCertificate(const std::string& cert_path,
                                            const std::string& key_path) {
  ZG_ASSIGN_OR_RETURN(SslCtxPtr next, BuildNtsKeSslCtx(cert_path, key_path));
  std::lock_guard<std::mutex> lock(ctx_mu_);
  ctx_ = std::move(next);  // connections keep their own reference
  return absl::OkStatus();
}

absl::Status NtsKeServer::Reload(const ReloadArgs& reload) {
  const NtsKeConfig& c = reload.config->nts_ke;
  ZG_ASSIGN_OR_RETURN(SslCtxPtr next,
                      BuildNtsKeSslCtx(c.cert_path, c.key_path));
  reload.plan->Stage(
      absl::StrCat("NTS-KE certificate ", c.cert_path, ", key ", c.key_path),
      [this, next = std::move(next)]() mutable {
        std::lock_guard<std::mutex> lock(ctx_mu_);
        ctx_ = std::move(next);
      });
  return absl::OkStatus();
}

int NtsKeServer::WaitMs() const {
  const absl::Duration wait = std::clamp(
      next_deadline_ - absl::Now(), absl::ZeroDuration(), absl::Seconds(1));
  return static_cast<int>(absl::ToInt64Milliseconds(wait) + 1);
}

void NtsKeServer::Loop() {
  // OpenSSL's socket BIO writes with write(2), not send(MSG_NOSIGNAL): a
  // client that resets before our response would raise SIGPIPE and kill
  // the daemon. SIGPIPE goes to the thread that wrote; blocked here, the
  // write fails with EPIPE instead (the connection is closed).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  epoll_event events[64];
  absl::Time next_scan = absl::Now();
  while (true) {
    const int n = epoll_wait(epoll_fd_, events, 64, WaitMs());
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag == kStopTag) return;
      if (tag < kMaxTag) {
        Accept(listeners_[tag - 1]);
        continue;
      }
      Conn* c = reinterpret_cast<Conn*>(static_cast<uintptr_t>(tag));
      if (!c->closed) Drive(*c);
    }
    const absl::Time now = absl::Now();
    if (now >= next_scan || now >= next_deadline_) {
      ExpireTimeouts();
      ReportRefusals(now);
      next_scan = now + kScanInterval;
    }
    if (accept_paused_until_ != absl::InfinitePast() &&
        now >= accept_paused_until_) {
      accept_paused_until_ = absl::InfinitePast();
      SetListening(true);
    }
    dead_.clear();  // no event of this batch refers to them any more
  }
}

void NtsKeServer::Accept(int listen_fd) {
  while (true) {
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof(peer);
    const int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer),
                           &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // EAGAIN: done; a connection reset before accept: next one. Out of
      // descriptors or memory: the listener stays readable, so stop
      // watching it for a moment rather than spin.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        PauseAccepting(absl::StrCat("accept: ", std::strerror(errno)));
      } else if (errno == ECONNABORTED || errno == EPROTO || errno == EINTR) {
        continue;
      }
      return;
    }
    // Decided before any TLS work: the source's rate, then a fair slot.
    const absl::Time now = absl::Now();
    const core::NtsKeSource source = SourceOf(peer);
    const core::NtsKeAdmission::Decision d = admission_.Admit(
        source, absl::ToInt64Nanoseconds(now - absl::UnixEpoch()));
    if (d.refusal != core::NtsKeRefusal::kNone) {
      close(fd);
      Refused(d.refusal, now);
      continue;
    }
    if (d.cut) {
      if (Conn* victim = Idlest(d.cut_source); victim != nullptr) {
        Close(*victim);
        Bump(stats_->connections_cut);
      }
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->source = source;
    c->last_active = now;
    {
      std::lock_guard<std::mutex> lock(ctx_mu_);
      c->ssl.reset(SSL_new(ctx_.get()));
    }
    if (c->ssl == nullptr || SSL_set_fd(c->ssl.get(), fd) != 1) {
      LogWarning(absl::StrCat("NTS-KE: SSL_new: ", SslErrors()));
      continue;  // ~Conn closes fd
    }
    SSL_set_accept_state(c->ssl.get());
    c->deadline = now + config_.handshake_timeout;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = reinterpret_cast<uintptr_t>(c.get());
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    next_deadline_ = std::min(next_deadline_, c->deadline);
    c->slot = conns_.size();
    conns_.push_back(std::move(c));
    admission_.Opened(source);
    stats_->connections_active.store(conns_.size(), std::memory_order_relaxed);
    stats_->sources.store(admission_.sources(), std::memory_order_relaxed);
  }
}

NtsKeServer::Conn* NtsKeServer::Idlest(const core::NtsKeSource& source) {
  Conn* idlest = nullptr;
  for (const std::unique_ptr<Conn>& c : conns_) {
    if (!(c->source == source)) continue;
    // A connection still in its handshake first, then the one whose last
    // event is the oldest.
    const bool better = idlest == nullptr ||
                        (c->phase == ConnPhase::kHandshake) >
                            (idlest->phase == ConnPhase::kHandshake) ||
                        ((c->phase == ConnPhase::kHandshake) ==
                             (idlest->phase == ConnPhase::kHandshake) &&
                         c->last_active < idlest->last_active);
    if (better) idlest = c.get();
  }
  return idlest;
}

void NtsKeServer::Refused(core::NtsKeRefusal reason, absl::Time now) {
  Bump(stats_->connections_rejected[static_cast<size_t>(reason)]);
  stats_->sources.store(admission_.sources(), std::memory_order_relaxed);
  if (refused_since_report_++ == 0) first_unreported_ = now;
  ReportRefusals(now);
}

void NtsKeServer::ReportRefusals(absl::Time now) {
  if (refused_since_report_ == 0 ||
      now - last_refusal_report_ < kRefusalReportEvery) {
    return;
  }
  const core::NtsKeAdmission::TopRefused top = admission_.TakeTopRefused();
  {
    std::lock_guard<std::mutex> lock(top_refused_mu_);
    top_refused_ = top.source.ToString();
  }
  LogWarning(absl::StrCat(
      "NTS-KE: refused ", refused_since_report_, " connection(s) since ",
      absl::FormatTime("%H:%M:%S", first_unreported_, absl::UTCTimeZone()),
      " (rate_limited ",
      stats_
          ->connections_rejected[static_cast<size_t>(
              core::NtsKeRefusal::kRateLimited)]
          .load(),
      ", full ",
      stats_
          ->connections_rejected[static_cast<size_t>(core::NtsKeRefusal::kFull)]
          .load(),
      " in all); most from ", top.source.ToString(), " (", top.refused,
      "); --nts_ke_ratelimit, --nts_ke_max_connections"));
  last_refusal_report_ = now;
  refused_since_report_ = 0;
}

NtsKeServer::Refusals NtsKeServer::refusals() const {
  Refusals r;
  r.rate_limited = stats_
                       ->connections_rejected[static_cast<size_t>(
                           core::NtsKeRefusal::kRateLimited)]
                       .load(std::memory_order_relaxed);
  r.full =
      stats_
          ->connections_rejected[static_cast<size_t>(core::NtsKeRefusal::kFull)]
          .load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(top_refused_mu_);
  r.top_source = top_refused_;
  return r;
}

void NtsKeServer::PauseAccepting(const std::string& why) {
  const absl::Time now = absl::Now();
  if (now - last_pause_log_ >= absl::Seconds(10)) {  // at most every 10 s
    last_pause_log_ = now;
    LogWarning(absl::StrCat("NTS-KE: ", why, "; not accepting for ",
                            absl::FormatDuration(kAcceptPause)));
  }
  SetListening(false);
  accept_paused_until_ = now + kAcceptPause;
  next_deadline_ = std::min(next_deadline_, accept_paused_until_);
}

void NtsKeServer::SetListening(bool on) {
  for (size_t i = 0; i < listeners_.size(); ++i) {
    epoll_event ev{};
    ev.events = on ? static_cast<uint32_t>(EPOLLIN) : 0u;
    ev.data.u64 = i + 1;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listeners_[i], &ev);
  }
}

void NtsKeServer::Watch(Conn& c, bool want_write) {
  if (c.want_write == want_write) return;
  c.want_write = want_write;
  epoll_event ev{};
  ev.events = want_write ? EPOLLOUT : EPOLLIN;
  ev.data.u64 = reinterpret_cast<uintptr_t>(&c);
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
}

// Each step returns false when the connection is finished (closed by it).
bool NtsKeServer::Handshake(Conn& c) {
  const int r = SSL_do_handshake(c.ssl.get());
  if (r == 1) {
    Bump(stats_->handshakes_ok);
    c.phase = ConnPhase::kRequest;
    c.deadline = absl::Now() + config_.request_timeout;
    next_deadline_ = std::min(next_deadline_, c.deadline);
    return true;
  }
  const int err = SSL_get_error(c.ssl.get(), r);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    Watch(c, err == SSL_ERROR_WANT_WRITE);
    return false;
  }
  ERR_clear_error();
  Bump(stats_->handshakes_failed);
  Close(c);
  return false;
}

bool NtsKeServer::ReadRequest(Conn& c) {
  uint8_t buf[1024];
  while (true) {
    const int r = SSL_read(c.ssl.get(), buf, sizeof(buf));
    if (r <= 0) {
      const int err = SSL_get_error(c.ssl.get(), r);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        Watch(c, err == SSL_ERROR_WANT_WRITE);
        return false;
      }
      ERR_clear_error();
      Close(c);  // the client closed or broke off mid-request
      return false;
    }
    c.in.insert(c.in.end(), buf, buf + r);
    const core::NtsKeRequestParse p = core::ParseNtsKeRequest(c.in);
    if (p.state == core::NtsKeParseState::kIncomplete) continue;
    core::NtsKeys keys;
    std::shared_ptr<const core::NtsCookieKeystore> ks;
    if (p.state == core::NtsKeParseState::kComplete && p.request.Accepted() &&
        ExportNtsKeys(c.ssl.get(), &keys)) {
      ks = keystore_();
    }
    c.out = AnswerNtsKeRequest(p, keys, records_, ks.get(), stats_.get());
    c.phase = ConnPhase::kResponse;
    return true;
  }
}

bool NtsKeServer::WriteResponse(Conn& c) {
  while (c.out_off < c.out.size()) {
    const int r = SSL_write(c.ssl.get(), c.out.data() + c.out_off,
                            static_cast<int>(c.out.size() - c.out_off));
    if (r <= 0) {
      const int err = SSL_get_error(c.ssl.get(), r);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        Watch(c, err == SSL_ERROR_WANT_WRITE);
        return false;
      }
      ERR_clear_error();
      Close(c);
      return false;
    }
    c.out_off += static_cast<size_t>(r);
  }
  SSL_shutdown(c.ssl.get());  // close_notify; we do not wait for the reply
  ERR_clear_error();
  Close(c);
  return false;
}

void NtsKeServer::Drive(Conn& c) {
  c.last_active = absl::Now();
  if (c.phase == ConnPhase::kHandshake && !Handshake(c)) return;
  if (c.phase == ConnPhase::kRequest && !ReadRequest(c)) return;
  if (c.phase == ConnPhase::kResponse) WriteResponse(c);
}

void NtsKeServer::Close(Conn& c) {
  if (c.closed) return;
  c.closed = true;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd, nullptr);
  admission_.Closed(c.source);
  const size_t slot = c.slot;
  std::swap(conns_[slot], conns_.back());
  conns_[slot]->slot = slot;
  dead_.push_back(std::move(conns_.back()));  // freed after the batch
  conns_.pop_back();
  stats_->connections_active.store(conns_.size(), std::memory_order_relaxed);
}

void NtsKeServer::ExpireTimeouts() {
  const absl::Time now = absl::Now();
  next_deadline_ = now + absl::Seconds(1);
  for (size_t i = 0; i < conns_.size();) {
    Conn& c = *conns_[i];
    if (c.deadline > now) {
      next_deadline_ = std::min(next_deadline_, c.deadline);
      ++i;
      continue;
    }
    Bump(c.phase == ConnPhase::kHandshake ? stats_->timeouts_handshake
                                          : stats_->timeouts_request);
    Close(c);  // swaps the last one into slot i
  }
}

}  // namespace zg::dataplane
