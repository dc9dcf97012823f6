// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's status page flags, the "Status page" group of
// `zeitgeberd -- --help` (doc/status-page.md):
//
//   --status_address=127.0.0.1:9124  where the page is served ("": off);
//                                   away from loopback HTTPS only
//   --status_cert, --status_key     PEM certificate (chain) and key: HTTPS;
//                                   re-read on SIGHUP
//   --status_users=FILE             htpasswd file of bcrypt/argon2 hashes:
//                                   every page needs a user, and users may
//                                   drain, undrain and reload
//   --status_history=FILE           where the clock history is kept across
//                                   restarts ("": memory only)
//   --status_threads=8              request threads (and so concurrent
//                                   viewers)
//   --status_request_timeout=10s    a request not received by then is
//                                   dropped (slow clients)
//   --status_poll_interval=2s       how often an open page refreshes
//
//   ZG_ASSIGN_OR_RETURN(StatusPageFlags f, ReadStatusPageFlags());
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_STATUS_PAGE_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_STATUS_PAGE_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/web/status_page.h"

ABSL_DECLARE_FLAG(std::string, status_address);
ABSL_DECLARE_FLAG(std::string, status_cert);
ABSL_DECLARE_FLAG(std::string, status_key);
ABSL_DECLARE_FLAG(std::string, status_users);
ABSL_DECLARE_FLAG(std::string, status_history);
ABSL_DECLARE_FLAG(int32_t, status_threads);
ABSL_DECLARE_FLAG(absl::Duration, status_request_timeout);
ABSL_DECLARE_FLAG(absl::Duration, status_poll_interval);

namespace zg::dataplane {

struct StatusPageFlags {
  bool enabled = false;  // --status_address not empty
  // Everything but the audit log path (the daemon's --audit_log).
  StatusPageOptions options;
};

// The flags' current values, validated (errors name the flag). The address,
// TLS and users files are checked when the page starts.
absl::StatusOr<StatusPageFlags> ReadStatusPageFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_STATUS_PAGE_H_
