// SPDX-License-Identifier: Apache-2.0
// StatusPage: civetweb set-up, routing, authentication and the download.
#include "dataplane/web/status_page.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/web/web_assets.h"

namespace zg::dataplane {
namespace {

using nlohmann::json;

constexpr int64_t kVerifiedTtlNs = 300'000'000'000;
constexpr size_t kMaxVerified = 64;
constexpr size_t kMaxQueryBytes = 2048;

int64_t MonoNs() { return absl::GetCurrentTimeNanos(); }

const char* StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
  }
  return "Error";
}

// Sends a whole response; `extra` is more header lines, each ending CRLF.
int Send(mg_connection* conn, int status, absl::string_view type,
         absl::string_view body, absl::string_view extra = {},
         bool head = false) {
  const mg_request_info* ri = mg_get_request_info(conn);
  std::string h = absl::StrCat(
      "HTTP/1.1 ", status, " ", StatusText(status), "\r\n",
      "Content-Type: ", type, "\r\n", "Content-Length: ", body.size(), "\r\n",
      "Connection: close\r\n",
      "Content-Security-Policy: default-src 'self'; img-src 'self' data:; "
      "frame-ancestors 'none'; form-action 'none'; base-uri 'none'\r\n",
      "X-Content-Type-Options: nosniff\r\n", "X-Frame-Options: DENY\r\n",
      "Referrer-Policy: no-referrer\r\n", "Cache-Control: no-store\r\n");
  if (ri != nullptr && ri->is_ssl) {
    h += "Strict-Transport-Security: max-age=31536000\r\n";
  }
  h.append(extra.data(), extra.size());
  h += "\r\n";
  mg_write(conn, h.data(), h.size());
  if (!head && !body.empty()) mg_write(conn, body.data(), body.size());
  return status;
}

// The control socket's error object, so that the page reads one shape.
std::string ErrorBody(absl::string_view command, absl::string_view code,
                      absl::string_view message) {
  return json{{"version", 1},
              {"command", command},
              {"ok", false},
              {"error", {{"code", code}, {"message", message}}}}
      .dump();
}

int SendError(mg_connection* conn, int status, absl::string_view command,
              absl::string_view code, absl::string_view message,
              absl::string_view extra = {}) {
  return Send(conn, status, "application/json",
              ErrorBody(command, code, message), extra);
}

// Every '%' followed by two hex digits.
bool EscapesWellFormed(absl::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || !absl::ascii_isxdigit(s[i + 1]) ||
        !absl::ascii_isxdigit(s[i + 2])) {
      return false;
    }
    i += 2;
  }
  return true;
}

// ?a=1&b=true&c=x -> {"a":1,"b":true,"c":"x"} (the arguments zgctl sends).
std::optional<json> QueryArgs(const char* query) {
  json args = json::object();
  if (query == nullptr || *query == '\0') return args;
  if (!EscapesWellFormed(query)) return std::nullopt;
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const size_t eq = pair.find('=');
    const std::string raw_key(pair.substr(0, eq));
    const std::string raw_value(
        eq == absl::string_view::npos ? "" : pair.substr(eq + 1));
    std::string key(raw_key.size() + 1, '\0');
    std::string value(raw_value.size() + 1, '\0');
    const int kn =
        mg_url_decode(raw_key.data(), static_cast<int>(raw_key.size()),
                      key.data(), static_cast<int>(key.size()), 1);
    const int vn =
        mg_url_decode(raw_value.data(), static_cast<int>(raw_value.size()),
                      value.data(), static_cast<int>(value.size()), 1);
    if (kn < 0 || vn < 0) return std::nullopt;
    key.resize(static_cast<size_t>(kn));
    value.resize(static_cast<size_t>(vn));
    if (key.empty()) return std::nullopt;
    int64_t number = 0;
    json v;
    if (value == "true" || value == "false") {
      v = value == "true";
    } else if (absl::SimpleAtoi(value, &number)) {
      v = number;
    } else {
      v = value;
    }
    // A repeated key is a list: kind=a&kind=b -> {"kind":["a","b"]}.
    if (!args.contains(key)) {
      args[key] = std::move(v);
    } else {
      if (!args[key].is_array()) args[key] = json::array({args[key]});
      args[key].push_back(std::move(v));
    }
  }
  return args;
}

std::string Sha256Hex(absl::string_view a, absl::string_view b) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx, a.data(), a.size());
  EVP_DigestUpdate(ctx, "\0", 1);
  EVP_DigestUpdate(ctx, b.data(), b.size());
  EVP_DigestFinal_ex(ctx, md, &n);
  EVP_MD_CTX_free(ctx);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(md), n));
}

// Loads civetweb_ssl_shim.cc's library once per process, before civetweb
// loads "libssl.so".
absl::Status LoadTlsShim(const std::vector<std::string>& paths) {
  static std::mutex mu;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded) return absl::OkStatus();
  std::string tried;
  for (const std::string& path : paths) {
    if (access(path.c_str(), R_OK) != 0) {
      absl::StrAppend(&tried, " ", path, " (absent)");
      continue;
    }
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) {
      loaded = true;
      return absl::OkStatus();
    }
    absl::StrAppend(&tried, " ", path, " (", dlerror(), ")");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "HTTPS for the status page needs libzgcivetwebssl.so (installed with "
      "zeitgeberd); tried:",
      tried));
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

StatusPage::StatusPage(StatusPageOptions options, StatusPageBackend backend)
    : options_(std::move(options)),
      backend_(std::move(backend)),
      guard_(options_.guard) {}

absl::Status CheckStatusPageOptions(const StatusPageOptions& options) {
  const std::string& address = options.address;
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_address=", address, ": expected HOST:PORT (127.0.0.1:9124)"));
  }
  const std::string host = address.substr(0, colon);
  if (absl::StartsWith(host, "[")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--status_address=", address,
                     ": this build's civetweb has no IPv6; give an IPv4 "
                     "address"));
  }
  in_addr v4;
  if (host != "localhost" && inet_pton(AF_INET, host.c_str(), &v4) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_address=", address, ": HOST must be an IPv4 address"));
  }
  const bool tls_asked =
      !options.cert_path.empty() || !options.key_path.empty();
  if (tls_asked && (options.cert_path.empty() || options.key_path.empty())) {
    return absl::InvalidArgumentError(
        "--status_cert and --status_key go together: give both or neither");
  }
  if (!tls_asked && !IsLoopbackHost(host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_address=", address,
        " is not loopback, and away from loopback the status page is served "
        "over HTTPS only: give --status_cert and --status_key, or serve it on "
        "127.0.0.1"));
  }
  if (options.threads < 2 || options.threads > 64) {
    return absl::InvalidArgumentError("status page threads must be 2..64");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StatusPage>> StatusPage::Start(
    StatusPageOptions options, StatusPageBackend backend) {
  ZG_RETURN_IF_ERROR(CheckStatusPageOptions(options));
  const bool tls_asked =
      !options.cert_path.empty() || !options.key_path.empty();
  std::unique_ptr<StatusPage> page(
      new StatusPage(std::move(options), std::move(backend)));
  const StatusPageOptions& o = page->options_;
  if (tls_asked) {
    ZG_ASSIGN_OR_RETURN(page->tls_, WebTls::Load(o.cert_path, o.key_path));
    ZG_RETURN_IF_ERROR(LoadTlsShim(o.tls_shim_paths));
  }
  if (!o.users_path.empty()) {
    ZG_ASSIGN_OR_RETURN(WebUsers users, WebUsers::Load(o.users_path));
    page->users_ = std::make_shared<const WebUsers>(std::move(users));
  }
  if (!o.history_path.empty()) {
    const int64_t now_s = absl::ToUnixSeconds(absl::Now());
    // A damaged history must not keep the time server down: it starts
    // empty (Load leaves it so) and is overwritten at the next save.
    if (absl::Status s = page->history_.Load(o.history_path, now_s); !s.ok()) {
      fprintf(stderr, "status page: %s\n", std::string(s.message()).c_str());
    }
  }

  if (page->tls_ != nullptr) {
    if ((mg_init_library(MG_FEATURES_TLS) & MG_FEATURES_TLS) == 0) {
      return absl::FailedPreconditionError(
          "civetweb could not load OpenSSL for the status page's HTTPS");
    }
  } else {
    mg_init_library(0);
  }
  const std::string ports = absl::StrCat(o.address, page->tls_ ? "s" : "");
  const std::string threads = absl::StrCat(o.threads);
  const std::string timeout = absl::StrCat(o.request_timeout_ms);
  const std::string max_request = absl::StrCat(o.max_request_bytes);
  const std::string queue = absl::StrCat(o.threads * 2);
  const char* cw_options[] = {"listening_ports",
                              ports.c_str(),
                              "num_threads",
                              threads.c_str(),
                              "request_timeout_ms",
                              timeout.c_str(),
                              "max_request_size",
                              max_request.c_str(),
                              "connection_queue",
                              queue.c_str(),
                              "listen_backlog",
                              queue.c_str(),
                              "enable_keep_alive",
                              "no",
                              "enable_directory_listing",
                              "no",
                              "enable_auth_domain_check",
                              "no",
                              "linger_timeout_ms",
                              "1000",
                              nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof(callbacks));
  callbacks.begin_request = &StatusPage::OnRequest;
  callbacks.connection_close = &StatusPage::OnConnectionClose;
  callbacks.init_ssl = &StatusPage::OnInitSsl;
  callbacks.log_message = &StatusPage::OnLog;
  page->ctx_ = mg_start(&callbacks, page.get(), cw_options);
  if (page->ctx_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve the status page on ", o.address,
        ": the address is in use or not this machine's (--status_address)"));
  }
  mg_server_port server_ports[2];
  std::memset(server_ports, 0, sizeof(server_ports));
  if (mg_get_server_ports(page->ctx_, 2, server_ports) >= 1) {
    page->port_ = server_ports[0].port;
  }
  page->sampler_ = std::thread([p = page.get()] { p->SampleLoop(); });
  return page;
}

StatusPage::~StatusPage() { Stop(); }

void StatusPage::Stop() {
  {
    std::lock_guard<std::mutex> lock(sampler_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  sampler_cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
  if (ctx_ != nullptr) {
    // civetweb's listener polls with a 2 s timeout before it sees the stop
    // flag; one connection wakes it, so that zeitgeberd stops promptly.
    std::thread waker([this] {
      absl::SleepFor(absl::Milliseconds(20));
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port_));
      const std::string host =
          options_.address.substr(0, options_.address.rfind(':'));
      if (host == "localhost" || host == "0.0.0.0" ||
          inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      }
      if (fd >= 0) {
        connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
        close(fd);
      }
    });
    mg_stop(ctx_);
    waker.join();
    ctx_ = nullptr;
  }
  if (!options_.history_path.empty()) {
    if (absl::Status s = history_.Save(options_.history_path); !s.ok()) {
      fprintf(stderr, "status page: %s\n", std::string(s.message()).c_str());
    }
  }
}

absl::Status StatusPage::Reload() {
  if (tls_ != nullptr) ZG_RETURN_IF_ERROR(tls_->Reload());
  if (!options_.users_path.empty()) {
    ZG_ASSIGN_OR_RETURN(WebUsers users, WebUsers::Load(options_.users_path));
    {
      std::lock_guard<std::mutex> lock(users_mu_);
      users_ = std::make_shared<const WebUsers>(std::move(users));
    }
    std::lock_guard<std::mutex> lock(verified_mu_);
    verified_.clear();
  }
  return absl::OkStatus();
}

void StatusPage::SampleLoop() {
  int64_t next_save_s =
      absl::ToUnixSeconds(absl::Now()) + options_.history_save_interval_s;
  std::unique_lock<std::mutex> lock(sampler_mu_);
  while (!stopping_) {
    // Wake at the top of each second.
    const absl::Time now = absl::Now();
    const absl::Time next = absl::FromUnixSeconds(absl::ToUnixSeconds(now) + 1);
    sampler_cv_.wait_for(lock, absl::ToChronoNanoseconds(next - now));
    if (stopping_) break;
    lock.unlock();
    if (backend_.sample) {
      if (std::optional<HistorySample> s = backend_.sample()) history_.Add(*s);
    }
    const int64_t now_s = absl::ToUnixSeconds(absl::Now());
    if (!options_.history_path.empty() && now_s >= next_save_s) {
      next_save_s = now_s + options_.history_save_interval_s;
      if (absl::Status s = history_.Save(options_.history_path); !s.ok()) {
        fprintf(stderr, "status page: %s\n", std::string(s.message()).c_str());
      }
    }
    lock.lock();
  }
}

int StatusPage::OnInitSsl(void* ssl_ctx, void* user_data) {
  auto* self = static_cast<StatusPage*>(user_data);
  if (self->tls_ == nullptr) return -1;
  self->tls_->Install(static_cast<SSL_CTX*>(ssl_ctx));
  return 1;
}

int StatusPage::OnLog(const mg_connection*, const char*) {
  return 1;  // civetweb's own messages (peer resets, timeouts) are noise
}

void StatusPage::OnConnectionClose(const mg_connection* conn) {
  if (mg_get_user_connection_data(conn) == nullptr) return;
  auto* self = static_cast<StatusPage*>(mg_get_user_data(mg_get_context(conn)));
  self->guard_.Disconnected(mg_get_request_info(conn)->remote_addr);
}

int StatusPage::OnRequest(mg_connection* conn) {
  auto* self = static_cast<StatusPage*>(mg_get_user_data(mg_get_context(conn)));
  return self->Handle(conn);
}

std::optional<std::string> StatusPage::Authenticate(mg_connection* conn,
                                                    const std::string& client) {
  std::shared_ptr<const WebUsers> users;
  {
    std::lock_guard<std::mutex> lock(users_mu_);
    users = users_;
  }
  if (users == nullptr) return std::string();
  const int64_t now = MonoNs();
  if (int64_t wait_s = guard_.LockedFor(client, now); wait_s > 0) {
    SendError(conn, 429, "login", "throttled",
              absl::StrCat("too many wrong passwords from ", client,
                           ": try again in ", wait_s, " s"),
              absl::StrCat("Retry-After: ", wait_s, "\r\n"));
    return std::nullopt;
  }
  const char* header = mg_get_header(conn, "Authorization");
  absl::string_view value = header == nullptr ? "" : header;
  std::string decoded;
  const bool basic = absl::ConsumePrefix(&value, "Basic ") &&
                     absl::Base64Unescape(value, &decoded) &&
                     decoded.find(':') != std::string::npos;
  const std::string user = basic ? decoded.substr(0, decoded.find(':')) : "";
  const std::string password =
      basic ? decoded.substr(decoded.find(':') + 1) : "";
  constexpr absl::string_view kChallenge =
      "WWW-Authenticate: Basic realm=\"zeitgeber\", charset=\"UTF-8\"\r\n";
  if (!basic) {
    SendError(conn, 401, "login", "unauthorized",
              "this page needs a user (--status_users)", kChallenge);
    return std::nullopt;
  }
  const std::string key = Sha256Hex(user, password);
  {
    std::lock_guard<std::mutex> lock(verified_mu_);
    auto it = verified_.find(key);
    if (it != verified_.end() && it->second > now) return user;
  }
  if (users->Verify(user, password)) {
    guard_.Succeeded(client);
    std::lock_guard<std::mutex> lock(verified_mu_);
    if (verified_.size() >= kMaxVerified) verified_.clear();
    verified_[key] = now + kVerifiedTtlNs;
    return user;
  }
  const WebGuard::Failure f = guard_.Failed(client, MonoNs());
  if (backend_.audit) {
    backend_.audit({.client = client,
                    .user = user,
                    .failures = f.failures,
                    .locked_s = f.locked_s});
  }
  if (f.locked_s > 0) {
    SendError(conn, 429, "login", "throttled",
              absl::StrCat("too many wrong passwords from ", client,
                           ": try again in ", f.locked_s, " s"),
              absl::StrCat("Retry-After: ", f.locked_s, "\r\n"));
  } else {
    SendError(conn, 401, "login", "unauthorized", "wrong user or password",
              kChallenge);
  }
  return std::nullopt;
}

int StatusPage::Handle(mg_connection* conn) {
  const mg_request_info* ri = mg_get_request_info(conn);
  const std::string client = ri->remote_addr;
  // Counted from here (a whole request head received; civetweb gives no
  // peer address before) to OnConnectionClose. Connections still sending
  // their head are bounded by the thread pool and request_timeout_ms.
  const int held = guard_.Connected(client);
  mg_set_user_connection_data(conn, this);
  if (guard_.OverConnectionLimit(held)) {
    return SendError(conn, 503, "", "too_many_connections",
                     absl::StrCat(client, " holds more than ",
                                  options_.guard.max_connections_per_client,
                                  " connections to this page"),
                     "Retry-After: 1\r\n");
  }
  const std::string method = ri->request_method ? ri->request_method : "";
  const bool get = method == "GET";
  const bool head = method == "HEAD";
  const bool post = method == "POST";
  if (!get && !head && !post) {
    return SendError(conn, 405, "", "bad_request",
                     absl::StrCat(method, " is not served here"),
                     "Allow: GET, HEAD, POST\r\n");
  }
  if (ri->query_string != nullptr &&
      std::strlen(ri->query_string) > kMaxQueryBytes) {
    return SendError(conn, 414, "", "too_large", "query string too long");
  }
  const std::string uri = ri->local_uri_raw ? ri->local_uri_raw : "";
  std::optional<std::string> user = Authenticate(conn, client);
  if (!user) return 401;

  if (absl::StartsWith(uri, "/api/")) {
    return ServeApi(conn, uri.substr(5), post, *user, client);
  }
  if (post) {
    return SendError(conn, 405, "", "bad_request", "POST only under /api/",
                     "Allow: GET, HEAD\r\n");
  }
  if (uri == "/audit.jsonl") return ServeAudit(conn, head);
  const WebAsset* asset = FindWebAsset(uri == "/" ? "/index.html" : uri);
  if (asset == nullptr) {
    return SendError(conn, 404, "", "not_found",
                     absl::StrCat("no page ", uri.substr(0, 200)));
  }
  return Send(conn, 200, asset->content_type,
              absl::string_view(asset->data, asset->size), {}, head);
}

int StatusPage::ServeApi(mg_connection* conn, const std::string& name,
                         bool post, const std::string& user,
                         const std::string& client) {
  std::shared_ptr<const WebUsers> users;
  {
    std::lock_guard<std::mutex> lock(users_mu_);
    users = users_;
  }
  if (!post && name == "session") {
    json views = json::array();
    for (const std::string& c : backend_.read_commands) views.push_back(c);
    json changes = json::array();
    if (users != nullptr) {
      for (const std::string& c : backend_.change_commands)
        changes.push_back(c);
    }
    return Send(conn, 200, "application/json",
                json{{"version", 1},
                     {"command", "session"},
                     {"ok", true},
                     {"data",
                      {{"user", user.empty() ? json(nullptr) : json(user)},
                       {"https", tls_ != nullptr},
                       {"poll_interval_ms", options_.poll_interval_ms},
                       {"commands", views},
                       {"changes", changes},
                       {"audit_download", !options_.audit_log_path.empty()}}}}
                    .dump());
  }
  if (!post && name == "history") {
    const mg_request_info* ri = mg_get_request_info(conn);
    std::optional<json> args = QueryArgs(ri->query_string);
    std::optional<HistoryRange> range = HistoryRange::kHour;
    if (args && args->contains("range") && (*args)["range"].is_string()) {
      range = ParseHistoryRange((*args)["range"].get<std::string>());
    }
    if (!args || !range) {
      return SendError(conn, 400, "history", "bad_argument",
                       "range must be hour, day or week");
    }
    return Send(conn, 200, "application/json",
                json{{"version", 1},
                     {"command", "history"},
                     {"ok", true},
                     {"data", history_.Json(*range)}}
                    .dump());
  }
  if (post) {
    if (!backend_.change_commands.contains(name)) {
      return SendError(
          conn, 404, name, "unknown_command",
          absl::StrCat("no change ", name.substr(0, 64), " on this page"));
    }
    if (users == nullptr || user.empty()) {
      return SendError(conn, 403, name, "permission_denied",
                       "changes from the page need a user: start zeitgeberd "
                       "with --status_users");
    }
    // A page of another site cannot set this header without a CORS
    // preflight, which this server never grants.
    const char* marker = mg_get_header(conn, "X-Zeitgeber-Change");
    if (marker == nullptr || absl::string_view(marker) != "1") {
      return SendError(conn, 403, name, "permission_denied",
                       "a change needs the header X-Zeitgeber-Change: 1");
    }
    const mg_request_info* ri = mg_get_request_info(conn);
    if (ri->content_length < 0 ||
        static_cast<size_t>(ri->content_length) > options_.max_body_bytes) {
      return SendError(
          conn, 413, name, "too_large",
          absl::StrCat("a change's body is at most ", options_.max_body_bytes,
                       " bytes with a Content-Length"));
    }
    std::string body(static_cast<size_t>(ri->content_length), '\0');
    size_t got = 0;
    while (got < body.size()) {
      const int n = mg_read(conn, body.data() + got, body.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got != body.size()) {
      return SendError(conn, 400, name, "bad_request", "body cut short");
    }
    json args =
        body.empty() ? json::object() : json::parse(body, nullptr, false);
    if (!args.is_object()) {
      return SendError(conn, 400, name, "bad_request",
                       "the body must be a JSON object of arguments");
    }
    const ApiReply r = backend_.change(name, args, user, client);
    return Send(conn, r.http_status, "application/json", r.body);
  }
  if (!backend_.read_commands.contains(name)) {
    return SendError(conn, 404, name, "unknown_command",
                     absl::StrCat("no view ", name.substr(0, 64)));
  }
  std::optional<json> args = QueryArgs(mg_get_request_info(conn)->query_string);
  if (!args) {
    return SendError(conn, 400, name, "bad_request", "malformed query string");
  }
  const ApiReply r = backend_.read(name, *args);
  return Send(conn, r.http_status, "application/json", r.body);
}

int StatusPage::ServeAudit(mg_connection* conn, bool head) {
  if (options_.audit_log_path.empty()) {
    return SendError(conn, 404, "audit", "unavailable",
                     "zeitgeberd runs without --audit_log");
  }
  const int fd = ::open(options_.audit_log_path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return SendError(
        conn, 503, "audit", "unavailable",
        absl::StrCat("the audit log cannot be read: ", std::strerror(err)));
  }
  // The file as it is now: records appended during the download come in
  // the next one.
  const size_t size = static_cast<size_t>(st.st_size);
  const std::string h = absl::StrCat(
      "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n",
      "Content-Disposition: attachment; filename=\"zeitgeber-audit.jsonl\"\r\n",
      "Content-Length: ", size, "\r\nConnection: close\r\n",
      "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n");
  mg_write(conn, h.data(), h.size());
  if (!head) {
    char buf[64 * 1024];
    size_t sent = 0;
    while (sent < size) {
      const ssize_t n = ::pread(fd, buf, std::min(sizeof(buf), size - sent),
                                static_cast<off_t>(sent));
      if (n <= 0 || mg_write(conn, buf, static_cast<size_t>(n)) <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return 200;
}

}  // namespace zg::dataplane
