// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/ntp_client_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

ABSL_FLAG(bool, ntp_client_records, true,
          "Keep a record of every NTP client (requests, drops by reason, KoD, "
          "authentication, interleave, first/last seen) for zgctl clients: "
          "as many clients as --ntp_clients_max, 80 bytes each");
ABSL_FLAG(std::string, ntp_client_log, "",
          "Append a per-client summary of the NTP client records to this "
          "file as JSON Lines every --ntp_client_log_period (and at exit), "
          "so the record outlives a restart; '' for none");
ABSL_FLAG(absl::Duration, ntp_client_log_period, absl::Minutes(10),
          "Time between two --ntp_client_log summaries (1s .. 24h); each "
          "lists the clients seen since the previous one");
ABSL_FLAG(uint64_t, ntp_client_log_max_bytes, uint64_t{1} << 30,
          "Size past which --ntp_client_log's file is renamed to PATH.1 "
          "(replacing it) and a new one started: at most twice this on "
          "disk; at least 65536");

namespace zg::dataplane {

absl::StatusOr<NtpClientFlags> ReadNtpClientFlags() {
  NtpClientFlags f;
  f.records = absl::GetFlag(FLAGS_ntp_client_records);
  f.log.path = absl::GetFlag(FLAGS_ntp_client_log);
  f.log.period = absl::GetFlag(FLAGS_ntp_client_log_period);
  f.log.max_bytes = absl::GetFlag(FLAGS_ntp_client_log_max_bytes);
  if (f.log.path.empty()) return f;
  if (!f.records) {
    return absl::InvalidArgumentError(
        "--ntp_client_log needs --ntp_client_records (it logs the records)");
  }
  if (f.log.period < absl::Seconds(1) || f.log.period > absl::Hours(24)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_client_log_period=", absl::FormatDuration(f.log.period),
        " is out of range [1s, 24h]"));
  }
  if (f.log.max_bytes < 65536) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_client_log_max_bytes=", f.log.max_bytes, " is below 65536"));
  }
  ZG_RETURN_IF_ERROR(CheckNtpClientLogPath(f.log.path));
  return f;
}

}  // namespace zg::dataplane
