// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's NTP client-record flags (zgctl clients; the records are
// core/ntp/ntp_client_records.h, kept by the NTP trust policy,
// dataplane/ntp/ntp_trust_policy.h; the log is dataplane/ntp/
// ntp_client_log.h). Read by the NTP trust plugin's Configure hook; errors
// name the flag.
//
//   --ntp_client_records=true       per-client records in every worker, as
//                                   many clients as --ntp_clients_max (80
//                                   bytes each); false: none, and zgctl
//                                   clients says so
//   --ntp_client_log=PATH           append a per-client summary as JSON
//                                   Lines (default: none)
//   --ntp_client_log_period=10m     between summaries (1s .. 24h)
//   --ntp_client_log_max_bytes=1073741824
//                                   PATH is renamed to PATH.1 past this
//                                   (at least 65536)
//
//   ZG_ASSIGN_OR_RETURN(NtpClientFlags f, ReadNtpClientFlags());
#ifndef ZG_DATAPLANE_DAEMON_NTP_CLIENT_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_NTP_CLIENT_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/ntp/ntp_client_log.h"

ABSL_DECLARE_FLAG(bool, ntp_client_records);
ABSL_DECLARE_FLAG(std::string, ntp_client_log);
ABSL_DECLARE_FLAG(absl::Duration, ntp_client_log_period);
ABSL_DECLARE_FLAG(uint64_t, ntp_client_log_max_bytes);

namespace zg::dataplane {

struct NtpClientFlags {
  bool records = true;
  NtpClientLogConfig log;  // path empty: no log
};

// The flags' current values, validated (the log's path is checked by
// opening it for appending).
absl::StatusOr<NtpClientFlags> ReadNtpClientFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NTP_CLIENT_FLAGS_H_
