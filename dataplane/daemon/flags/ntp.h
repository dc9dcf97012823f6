// zeitgeberd's NTP flags, the "NTP" group of `zeitgeberd -- --help` (who
// may query and how often: flags/trust.h; transmit stamps: flags/
// timestamps.h). Interleaved mode (RFC 9769): whether the workers answer
// interleaved requests with the exact transmit time of the previous reply
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
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_

#include <cstdint>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"

ABSL_DECLARE_FLAG(bool, ntp_interleave);
ABSL_DECLARE_FLAG(int64_t, ntp_interleave_slots);

namespace zg::dataplane {

struct NtpInterleaveConfig {
  bool enabled = true;     // --ntp_interleave
  uint32_t slots = 65536;  // --ntp_interleave_slots, per worker
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<NtpInterleaveConfig> ReadNtpInterleaveFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_NTP_H_
