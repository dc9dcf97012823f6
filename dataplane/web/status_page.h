// SPDX-License-Identifier: Apache-2.0
// StatusPage: zeitgeberd's status page and its JSON endpoints, served by
// civetweb on threads of its own (never a worker, never the control
// thread), from the snapshots the control thread publishes.
//
//   GET  /, /index.html, /app.js, /style.css   the page (web_assets.h)
//   GET  /api/session                          who is logged in, what may be
//                                              changed, the poll interval
//   GET  /api/history?range=hour|day|week      the clock plots (ClockHistory)
//   GET  /api/<command>?arg=value...           a read command: the same
//                                              reply object as zgctl --json
//   POST /api/<command>  (JSON args body)      a change (drain, reload):
//                                              needs a user (--status_users)
//                                              and X-Zeitgeber-Change: 1
//   GET  /audit.jsonl                          the whole audit log file
//
// Where: --status_address (loopback by default). Away from loopback only
// HTTPS is served (--status_cert/--status_key, reloaded by ReloadTls on
// SIGHUP); asking for plain HTTP there is refused at Start.
//
// Bad input: a fixed pool of `threads` request threads and bounded request
// sizes (civetweb); a request not received within `request_timeout_ms` is
// dropped (slow clients); an address with more than
// guard.max_connections_per_client requests in progress gets 503; wrong
// passwords
// are throttled per address (429 with Retry-After) and audited through
// `audit`; unknown paths are 404 (nothing is served from the file system
// but the one audit log file).
//
//   StatusPageBackend b{.read = ..., .change = ..., .sample = ...,
//                       .audit = ...};
//   ZG_ASSIGN_OR_RETURN(auto page, StatusPage::Start(options, std::move(b)));
//   page->port();        // the bound port (address ...:0 in tests)
//   page->ReloadTls();   // SIGHUP
#ifndef ZG_DATAPLANE_WEB_STATUS_PAGE_H_
#define ZG_DATAPLANE_WEB_STATUS_PAGE_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "dataplane/web/clock_history.h"
#include "dataplane/web/web_guard.h"
#include "dataplane/web/web_tls.h"
#include "dataplane/web/web_users.h"

struct mg_context;
struct mg_connection;

namespace zg::dataplane {

struct StatusPageOptions {
  std::string address;  // HOST:PORT; port 0 picks one (tests)
  std::string cert_path;
  std::string key_path;
  std::string users_path;      // "" : no users, no changes from the page
  std::string audit_log_path;  // "" : no download
  std::string history_path;    // "" : history kept in memory only
  // civetweb_ssl_shim.cc, needed for HTTPS: the first of these that
  // exists is loaded.
  std::vector<std::string> tls_shim_paths;
  int threads = 8;
  int request_timeout_ms = 10'000;
  int poll_interval_ms = 2'000;
  int history_save_interval_s = 300;
  size_t max_request_bytes = 16 * 1024;  // request line and headers
  size_t max_body_bytes = 4 * 1024;      // a change's JSON arguments
  WebGuardOptions guard;
};

// A command's reply, as the control socket would send it.
struct ApiReply {
  int http_status = 200;
  std::string body;  // the reply object (one JSON line)
};

// A refused login, for the audit log.
struct WebAccessEvent {
  std::string client;    // the peer address
  std::string user;      // as given
  int failures = 0;      // within the window
  int64_t locked_s = 0;  // > 0: the address is now refused this long
};

struct StatusPageBackend {
  // Runs a read command (request threads; must not block the control
  // thread).
  std::function<ApiReply(const std::string& command,
                         const nlohmann::json& args)>
      read;
  // Runs a change for an authenticated `user` at `client` (the peer
  // address).
  std::function<ApiReply(const std::string& command, const nlohmann::json& args,
                         const std::string& user, const std::string& client)>
      change;
  std::set<std::string> read_commands;
  std::set<std::string> change_commands;
  // The clock now, for the history (once a second, on the sampler thread).
  std::function<std::optional<HistorySample>()> sample;
  std::function<void(const WebAccessEvent&)> audit;
};

class StatusPage {
 public:
  // Checks the options (address, TLS, users), loads the history, starts
  // the server and the sampler. Errors say which flag to fix.
  static absl::StatusOr<std::unique_ptr<StatusPage>> Start(
      StatusPageOptions options, StatusPageBackend backend);
  ~StatusPage();
  StatusPage(const StatusPage&) = delete;
  StatusPage& operator=(const StatusPage&) = delete;

  int port() const { return port_; }
  bool https() const { return tls_ != nullptr; }
  // Re-reads the certificate, key and users file; keeps the old ones when
  // the new ones are bad (and says why).
  absl::Status Reload();
  // Saves the history and stops serving; idempotent.
  void Stop();

  const ClockHistory& history() const { return history_; }

 private:
  StatusPage(StatusPageOptions options, StatusPageBackend backend);
  static int OnRequest(mg_connection* conn);
  static void OnConnectionClose(const mg_connection* conn);
  static int OnInitSsl(void* ssl_ctx, void* user_data);
  static int OnLog(const mg_connection* conn, const char* message);
  int Handle(mg_connection* conn);
  // The authenticated user ("" when the page has no users). nullopt: the
  // reply (401/429) was sent.
  std::optional<std::string> Authenticate(mg_connection* conn,
                                          const std::string& client);
  int ServeApi(mg_connection* conn, const std::string& name, bool post,
               const std::string& user, const std::string& client);
  int ServeAudit(mg_connection* conn, bool head);
  void SampleLoop();

  const StatusPageOptions options_;
  const StatusPageBackend backend_;
  std::unique_ptr<WebTls> tls_;
  mutable std::mutex users_mu_;
  std::shared_ptr<const WebUsers> users_;  // guarded by users_mu_
  WebGuard guard_;
  ClockHistory history_;
  // Recently verified logins: SHA-256(user, password) -> expiry (ns).
  std::mutex verified_mu_;
  std::map<std::string, int64_t> verified_;  // guarded by verified_mu_
  mg_context* ctx_ = nullptr;
  int port_ = 0;

  std::mutex sampler_mu_;
  std::condition_variable sampler_cv_;
  bool stopping_ = false;  // guarded by sampler_mu_
  std::thread sampler_;
};

// Whether HOST (of HOST:PORT) is a loopback address or "localhost".
bool IsLoopbackHost(const std::string& host);

// The checks Start() makes before it opens anything: HOST:PORT (IPv4),
// --status_cert with --status_key, HTTPS away from loopback, the thread
// count. The daemon runs them while it reads its flags.
absl::Status CheckStatusPageOptions(const StatusPageOptions& options);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_STATUS_PAGE_H_
