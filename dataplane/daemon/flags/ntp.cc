// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/ntp.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/ntp/ntp_interleave.h"

ABSL_FLAG(bool, ntp_interleave, true,
          "Answer NTP requests in interleaved mode (RFC 9769, chrony's "
          "'xleave'): a client that asks for it gets the exact transmit time "
          "of our previous reply. Off: every reply is basic mode.");
ABSL_FLAG(int64_t, ntp_interleave_slots, 65536,
          "Recent replies each worker remembers for interleaved mode (16 "
          "bytes each; rounded up to a power of two, 64..16777216). Size it "
          "to the interleaved clients one worker serves.");
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

absl::StatusOr<NtpInterleaveConfig> ReadNtpInterleaveFlags() {
  NtpInterleaveConfig c;
  c.enabled = absl::GetFlag(FLAGS_ntp_interleave);
  const int64_t slots = absl::GetFlag(FLAGS_ntp_interleave_slots);
  if (slots < core::kNtpInterleaveMinSlots ||
      slots > core::kNtpInterleaveMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_interleave_slots=", slots, ": must be ",
        core::kNtpInterleaveMinSlots, "..", core::kNtpInterleaveMaxSlots,
        " (recent replies per worker; about one per interleaved client)"));
  }
  c.slots = static_cast<uint32_t>(slots);
  return c;
}

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
