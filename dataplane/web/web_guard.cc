// SPDX-License-Identifier: Apache-2.0
// WebGuard: per-address connection counts and the wrong-password throttle.
#include "dataplane/web/web_guard.h"

#include <algorithm>

namespace zg::dataplane {

int WebGuard::Connected(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  return ++connections_[client];
}

void WebGuard::Disconnected(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = connections_.find(client);
  if (it == connections_.end()) return;
  if (--it->second <= 0) connections_.erase(it);
}

int64_t WebGuard::LockedFor(const std::string& client, int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = records_.find(client);
  if (it == records_.end() || it->second.locked_until_ns <= now_ns) return 0;
  return (it->second.locked_until_ns - now_ns + 999'999'999) / 1'000'000'000;
}

WebGuard::Failure WebGuard::Failed(const std::string& client, int64_t now_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (records_.size() >= options_.max_clients && !records_.contains(client)) {
    EvictStalest();
  }
  Record& r = records_[client];
  r.last_seen_ns = now_ns;
  if (r.failures == 0 ||
      now_ns - r.window_start_ns > options_.failure_window_ns) {
    r.failures = 0;
    r.window_start_ns = now_ns;
  }
  Failure f{.failures = ++r.failures};
  if (r.failures >= options_.max_failures) {
    const int64_t lockout = std::clamp(r.next_lockout_ns, options_.lockout_ns,
                                       options_.max_lockout_ns);
    r.locked_until_ns = now_ns + lockout;
    r.next_lockout_ns = std::min(lockout * 2, options_.max_lockout_ns);
    r.failures = 0;
    f.locked_s = lockout / 1'000'000'000;
  }
  return f;
}

void WebGuard::Succeeded(const std::string& client) {
  std::lock_guard<std::mutex> lock(mu_);
  records_.erase(client);
}

size_t WebGuard::remembered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_.size();
}

void WebGuard::EvictStalest() {
  auto stalest = records_.begin();
  for (auto it = records_.begin(); it != records_.end(); ++it) {
    if (it->second.last_seen_ns < stalest->second.last_seen_ns) stalest = it;
  }
  if (stalest != records_.end()) records_.erase(stalest);
}

}  // namespace zg::dataplane
