// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's NTP flags, the "NTP" group of `zeitgeberd -- --help` (who
// may query and how often: flags/trust.h; transmit stamps: flags/
// timestamps.h): interleaved mode, and the per-client records.
//
// Interleaved mode (RFC 9769): whether the workers answer interleaved
// requests with the exact transmit time of the previous reply
// (dataplane/ntp/ntp_interleave.h), and how many recent replies each worker
// remembers for that.
//
//   --ntp_interleave=true          default: a server always offers it, as
//                                  chrony's does (clients opt in: xleave)
//   --ntp_interleave_slots=65536   per worker, 16 bytes each; rounded up to
//                                  a power of two, 64..16777216
//
// Size the table to the interleaved clients one worker serves: an entry
// must survive one polling interval of its client. 65536 slots (1 MiB) hold
// 65536 clients per worker at any interval; more clients than slots get
// basic replies when their entry was evicted
// (zeitgeber_ntp_interleave_evictions_total counts that).
//
//   ZG_ASSIGN_OR_RETURN(c.ntp_interleave, ReadNtpInterleaveFlags());
//
// Client records (zgctl clients; the records are core/ntp/
// ntp_client_records.h, kept by the NTP trust policy, dataplane/ntp/
// ntp_trust_policy.h, whose Configure hook reads these flags; the log is
// dataplane/ntp/ntp_client_log.h):
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
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/ntp/ntp_client_log.h"

ABSL_DECLARE_FLAG(bool, ntp_interleave);
ABSL_DECLARE_FLAG(int64_t, ntp_interleave_slots);
ABSL_DECLARE_FLAG(bool, ntp_client_records);
ABSL_DECLARE_FLAG(std::string, ntp_client_log);
ABSL_DECLARE_FLAG(absl::Duration, ntp_client_log_period);
ABSL_DECLARE_FLAG(uint64_t, ntp_client_log_max_bytes);

namespace zg::dataplane {

struct NtpInterleaveConfig {
  bool enabled = true;     // --ntp_interleave
  uint32_t slots = 65536;  // --ntp_interleave_slots, per worker
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<NtpInterleaveConfig> ReadNtpInterleaveFlags();

struct NtpClientFlags {
  bool records = true;     // --ntp_client_records
  NtpClientLogConfig log;  // --ntp_client_log* (path empty: no log)
};

// The flags' current values, validated (the log's path is checked by
// opening it for appending).
absl::StatusOr<NtpClientFlags> ReadNtpClientFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_
