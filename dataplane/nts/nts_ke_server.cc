#include "dataplane/nts/nts_ke_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/log.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {

enum class ConnPhase : uint8_t { kHandshake, kRequest, kResponse };

struct NtsKeServer::Conn {
  uint64_t id = 0;
  int fd = -1;
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

// The exported series and the totals they were last advanced to.
struct NtsKeServer::Series {
  prometheus::Counter* handshakes_ok = nullptr;
  prometheus::Counter* handshakes_failed = nullptr;
  prometheus::Gauge* active = nullptr;
  prometheus::Counter* rejected = nullptr;
  prometheus::Counter* timeouts_handshake = nullptr;
  prometheus::Counter* timeouts_request = nullptr;
  prometheus::Counter* record_errors[core::kNtsKeErrorCodeCount] = {};
  prometheus::Counter* responses_cookies = nullptr;
  prometheus::Counter* responses_no_common = nullptr;
  prometheus::Counter* responses_error = nullptr;
  prometheus::Counter* cookies = nullptr;
  std::vector<double> last = std::vector<double>(16, 0.0);
};

namespace {

constexpr uint64_t kStopTag = 0;
constexpr uint64_t kFirstConnId = uint64_t{1} << 32;  // below: listeners

void Bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
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
      keystore_(std::move(keystore)) {}

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
  stats_.connections_active.store(0, std::memory_order_relaxed);
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
  absl::Duration wait = absl::Seconds(1);
  const absl::Time now = absl::Now();
  for (const auto& c : conns_) wait = std::min(wait, c->deadline - now);
  return static_cast<int>(
      std::max<int64_t>(1, absl::ToInt64Milliseconds(wait) + 1));
}

void NtsKeServer::Loop() {
  epoll_event events[64];
  while (true) {
    const int n = epoll_wait(epoll_fd_, events, 64, WaitMs());
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag == kStopTag) return;
      if (tag < kFirstConnId) {
        Accept(listeners_[tag - 1]);
        continue;
      }
      auto it = std::find_if(conns_.begin(), conns_.end(),
                             [tag](const auto& c) { return c->id == tag; });
      if (it != conns_.end()) Drive(**it);
    }
    ExpireTimeouts();
  }
}

void NtsKeServer::Accept(int listen_fd) {
  while (true) {
    const int fd =
        accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a connection reset before accept
    if (conns_.size() >= config_.max_connections) {
      close(fd);
      Bump(stats_.connections_rejected);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->id = kFirstConnId + next_id_++;
    {
      std::lock_guard<std::mutex> lock(ctx_mu_);
      c->ssl.reset(SSL_new(ctx_.get()));
    }
    if (c->ssl == nullptr || SSL_set_fd(c->ssl.get(), fd) != 1) {
      LogWarning(absl::StrCat("NTS-KE: SSL_new: ", SslErrors()));
      continue;  // ~Conn closes fd
    }
    SSL_set_accept_state(c->ssl.get());
    c->deadline = absl::Now() + config_.handshake_timeout;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = c->id;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    conns_.push_back(std::move(c));
    stats_.connections_active.store(conns_.size(), std::memory_order_relaxed);
  }
}

void NtsKeServer::Watch(Conn& c, bool want_write) {
  if (c.want_write == want_write) return;
  c.want_write = want_write;
  epoll_event ev{};
  ev.events = want_write ? EPOLLOUT : EPOLLIN;
  ev.data.u64 = c.id;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
}

// Each step returns false when the connection is finished (closed by it).
bool NtsKeServer::Handshake(Conn& c) {
  const int r = SSL_do_handshake(c.ssl.get());
  if (r == 1) {
    Bump(stats_.handshakes_ok);
    c.phase = ConnPhase::kRequest;
    c.deadline = absl::Now() + config_.request_timeout;
    return true;
  }
  const int err = SSL_get_error(c.ssl.get(), r);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    Watch(c, err == SSL_ERROR_WANT_WRITE);
    return false;
  }
  ERR_clear_error();
  Bump(stats_.handshakes_failed);
  Close(c.id);
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
      Close(c.id);  // the client closed or broke off mid-request
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
    c.out = AnswerNtsKeRequest(p, keys, records_, ks.get(), &stats_);
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
      Close(c.id);
      return false;
    }
    c.out_off += static_cast<size_t>(r);
  }
  SSL_shutdown(c.ssl.get());  // close_notify; we do not wait for the reply
  ERR_clear_error();
  Close(c.id);
  return false;
}

void NtsKeServer::Drive(Conn& c) {
  if (c.phase == ConnPhase::kHandshake && !Handshake(c)) return;
  if (c.phase == ConnPhase::kRequest && !ReadRequest(c)) return;
  if (c.phase == ConnPhase::kResponse) WriteResponse(c);
}

void NtsKeServer::Close(uint64_t id) {
  auto it = std::find_if(conns_.begin(), conns_.end(),
                         [id](const auto& c) { return c->id == id; });
  if (it == conns_.end()) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, (*it)->fd, nullptr);
  std::swap(*it, conns_.back());
  conns_.pop_back();
  stats_.connections_active.store(conns_.size(), std::memory_order_relaxed);
}

void NtsKeServer::ExpireTimeouts() {
  const absl::Time now = absl::Now();
  for (size_t i = 0; i < conns_.size();) {
    Conn& c = *conns_[i];
    if (c.deadline > now) {
      ++i;
      continue;
    }
    Bump(c.phase == ConnPhase::kHandshake ? stats_.timeouts_handshake
                                          : stats_.timeouts_request);
    Close(c.id);  // swaps the last one into slot i
  }
}

absl::Status NtsKeServer::AddMetrics(prometheus::Registry& registry) {
  series_ = std::make_unique<Series>();
  Series& s = *series_;
  auto& hs = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_handshakes_total")
                 .Help("NTS-KE TLS handshakes finished, by result")
                 .Register(registry);
  s.handshakes_ok = &hs.Add({{"result", "ok"}});
  s.handshakes_failed = &hs.Add({{"result", "failed"}});
  s.active = &prometheus::BuildGauge()
                  .Name("zeitgeber_nts_ke_connections_active")
                  .Help("NTS-KE connections open")
                  .Register(registry)
                  .Add({});
  s.rejected = &prometheus::BuildCounter()
                    .Name("zeitgeber_nts_ke_connections_rejected_total")
                    .Help(
                        "NTS-KE connections closed at accept: over "
                        "--nts_ke_max_connections")
                    .Register(registry)
                    .Add({});
  auto& to = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_timeouts_total")
                 .Help("NTS-KE connections cut off at a timeout, by phase")
                 .Register(registry);
  s.timeouts_handshake = &to.Add({{"phase", "handshake"}});
  s.timeouts_request = &to.Add({{"phase", "request"}});
  auto& re = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_records_errors_total")
                 .Help("NTS-KE Error records sent, by error code")
                 .Register(registry);
  for (size_t i = 0; i < core::kNtsKeErrorCodeCount; ++i) {
    s.record_errors[i] = &re.Add(
        {{"code",
          core::NtsKeErrorCodeName(static_cast<core::NtsKeErrorCode>(i))}});
  }
  auto& rs = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_responses_total")
                 .Help("NTS-KE responses sent, by kind")
                 .Register(registry);
  s.responses_cookies = &rs.Add({{"result", "cookies"}});
  s.responses_no_common = &rs.Add({{"result", "no_common"}});
  s.responses_error = &rs.Add({{"result", "error"}});
  s.cookies = &prometheus::BuildCounter()
                   .Name("zeitgeber_nts_ke_cookies_issued_total")
                   .Help("NTS cookies issued in NTS-KE responses")
                   .Register(registry)
                   .Add({});
  UpdateMetrics();
  return absl::OkStatus();
}

void NtsKeServer::UpdateMetrics() {
  if (series_ == nullptr) return;
  Series& s = *series_;
  uint64_t errors = 0;
  for (const auto& e : stats_.record_errors) errors += e.load();
  const std::pair<prometheus::Counter*, uint64_t> counters[] = {
      {s.handshakes_ok, stats_.handshakes_ok.load()},
      {s.handshakes_failed, stats_.handshakes_failed.load()},
      {s.rejected, stats_.connections_rejected.load()},
      {s.timeouts_handshake, stats_.timeouts_handshake.load()},
      {s.timeouts_request, stats_.timeouts_request.load()},
      {s.record_errors[0], stats_.record_errors[0].load()},
      {s.record_errors[1], stats_.record_errors[1].load()},
      {s.record_errors[2], stats_.record_errors[2].load()},
      {s.responses_cookies, stats_.responses_cookies.load()},
      {s.responses_no_common, stats_.responses_no_common.load()},
      {s.responses_error, errors},
      {s.cookies, stats_.cookies_issued.load()},
  };
  for (size_t i = 0; i < std::size(counters); ++i) {
    const double v = static_cast<double>(counters[i].second);
    if (v > s.last[i]) counters[i].first->Increment(v - s.last[i]);
    s.last[i] = v;
  }
  s.active->Set(static_cast<double>(stats_.connections_active.load()));
}

void NtsKeServer::Report() {
  LogInfo(absl::StrCat("NTS-KE: handshakes ok=", stats_.handshakes_ok.load(),
                       " failed=", stats_.handshakes_failed.load(),
                       " rejected=", stats_.connections_rejected.load(),
                       " timeouts handshake=", stats_.timeouts_handshake.load(),
                       " request=", stats_.timeouts_request.load(),
                       " cookies=", stats_.cookies_issued.load()));
}

}  // namespace zg::dataplane
