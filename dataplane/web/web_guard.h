// SPDX-License-Identifier: Apache-2.0
// WebGuard: what keeps one client from taking the status page from the
// others — a cap on the connections one address holds at once, and a
// throttle on repeated wrong passwords (after `max_failures` within
// `failure_window`, the address is refused for `lockout`, doubling with each
// further lockout up to `max_lockout`).
//
//   WebGuard guard({});
//   guard.Connected("192.0.2.7");            // init_connection
//   if (guard.Connections("192.0.2.7") > 6)  // 503 Too many connections
//   if (int64_t s = guard.LockedFor("192.0.2.7", now); s > 0)  // 429
//   WebGuard::Failure f = guard.Failed("192.0.2.7", now);  // f.locked_s
//   guard.Disconnected("192.0.2.7");
//
// Thread-safe (the page's request threads). Memory is bounded: at most
// `max_clients` addresses are remembered for failures (the stalest go
// first), and connection counts exist only while connections do.
#ifndef ZG_DATAPLANE_WEB_WEB_GUARD_H_
#define ZG_DATAPLANE_WEB_WEB_GUARD_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace zg::dataplane {

struct WebGuardOptions {
  int max_connections_per_client = 6;
  int max_failures = 5;
  int64_t failure_window_ns = 60'000'000'000;
  int64_t lockout_ns = 30'000'000'000;
  int64_t max_lockout_ns = 900'000'000'000;
  size_t max_clients = 4096;
};

class WebGuard {
 public:
  explicit WebGuard(WebGuardOptions options) : options_(options) {}

  // A connection from `client` opened / closed. Connected returns how many
  // `client` holds now, this one included.
  int Connected(const std::string& client);
  void Disconnected(const std::string& client);
  bool OverConnectionLimit(int held) const {
    return held > options_.max_connections_per_client;
  }

  // Seconds `client` must still wait before a password is checked (0: go).
  int64_t LockedFor(const std::string& client, int64_t now_ns);

  struct Failure {
    int failures = 0;      // within the window, this one included
    int64_t locked_s = 0;  // > 0: this failure started a lockout
  };
  Failure Failed(const std::string& client, int64_t now_ns);
  void Succeeded(const std::string& client);

  // Addresses remembered for failures (tests).
  size_t remembered() const;

 private:
  struct Record {
    int failures = 0;
    int64_t window_start_ns = 0;
    int64_t locked_until_ns = 0;
    int64_t next_lockout_ns = 0;
    int64_t last_seen_ns = 0;
  };
  void EvictStalest();

  const WebGuardOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, int> connections_;  // guarded by mu_
  std::map<std::string, Record> records_;   // guarded by mu_
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_WEB_GUARD_H_
