#include "dataplane/daemon/flags/ntp.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/ntp/ntp_interleave.h"

ABSL_FLAG(bool, ntp_interleave, true,
          "Answer NTP requests in interleaved mode (RFC 9769, chrony's "
          "'xleave'): a client that asks for it gets the exact transmit time "
          "of our previous reply. Off: every reply is basic mode.");
ABSL_FLAG(int64_t, ntp_interleave_slots, 65536,
          "Recent replies each worker remembers for interleaved mode (16 "
          "bytes each; rounded up to a power of two, 64..16777216). Size it "
          "to the interleaved clients one worker serves.");

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

}  // namespace zg::dataplane
