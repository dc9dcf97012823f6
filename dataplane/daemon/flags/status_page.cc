// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's status page flags (flags/status_page.h).
#include "dataplane/daemon/flags/status_page.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

ABSL_FLAG(std::string, status_address, "127.0.0.1:9124",
          "HOST:PORT of the status page (IPv4); empty to turn it off. "
          "Loopback by default; anywhere else it is served over HTTPS only "
          "(--status_cert, --status_key).");
ABSL_FLAG(std::string, status_cert, "",
          "PEM certificate (then any intermediates) for the status page: "
          "serve it over HTTPS. Re-read on SIGHUP.");
ABSL_FLAG(std::string, status_key, "",
          "PEM private key of --status_cert (mode 0600). Re-read on SIGHUP.");
ABSL_FLAG(std::string, status_users, "",
          "htpasswd file (mode 0600) of bcrypt (htpasswd -B) or argon2 "
          "hashes: every page then needs a user, and users may drain, "
          "undrain and reload from the page. Re-read on SIGHUP. Empty: the "
          "page is read-only and open to whoever reaches --status_address.");
ABSL_FLAG(std::string, status_history, "",
          "File where the clock history behind the page's plots (the last "
          "hour, day and week) is saved every 5 minutes and at stop, and "
          "read at start. Empty: kept in memory only.");
ABSL_FLAG(int32_t, status_threads, 8,
          "Status page request threads (2..64): the most requests served at "
          "once.");
ABSL_FLAG(absl::Duration, status_request_timeout, absl::Seconds(10),
          "A status page request not received whole within this is dropped "
          "(slow clients).");
ABSL_FLAG(absl::Duration, status_poll_interval, absl::Seconds(2),
          "How often an open status page fetches fresh data.");

namespace zg::dataplane {

absl::StatusOr<StatusPageFlags> ReadStatusPageFlags() {
  StatusPageFlags f;
  StatusPageOptions& o = f.options;
  o.address = absl::GetFlag(FLAGS_status_address);
  f.enabled = !o.address.empty();
  o.cert_path = absl::GetFlag(FLAGS_status_cert);
  o.key_path = absl::GetFlag(FLAGS_status_key);
  o.users_path = absl::GetFlag(FLAGS_status_users);
  o.history_path = absl::GetFlag(FLAGS_status_history);
  o.threads = absl::GetFlag(FLAGS_status_threads);
  if (o.threads < 2 || o.threads > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--status_threads=", o.threads, ": must be 2..64"));
  }
  const absl::Duration timeout = absl::GetFlag(FLAGS_status_request_timeout);
  if (timeout < absl::Milliseconds(100) || timeout > absl::Minutes(5)) {
    return absl::InvalidArgumentError(
        "--status_request_timeout: must be 100ms..5m");
  }
  o.request_timeout_ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
  const absl::Duration poll = absl::GetFlag(FLAGS_status_poll_interval);
  if (poll < absl::Milliseconds(200) || poll > absl::Minutes(10)) {
    return absl::InvalidArgumentError(
        "--status_poll_interval: must be 200ms..10m");
  }
  o.poll_interval_ms = static_cast<int>(absl::ToInt64Milliseconds(poll));
  if (!f.enabled && (!o.cert_path.empty() || !o.users_path.empty())) {
    return absl::InvalidArgumentError(
        "--status_cert/--status_users without --status_address: the page is "
        "off");
  }
  if (f.enabled) {
    ZG_RETURN_IF_ERROR(CheckStatusPageOptions(o));
  }
  return f;
}

}  // namespace zg::dataplane
