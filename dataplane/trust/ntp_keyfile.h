// SPDX-License-Identifier: Apache-2.0
// Reads zeitgeberd's NTP keyfile (--ntp_keys=FILE, chrony's format: see
// core/ntp/ntp_keys.h) into an immutable key table, refusing a file that
// anyone but its owner may read or write.
//
//   ZG_ASSIGN_OR_RETURN(std::shared_ptr<const core::NtpKeyTable> keys,
//                       LoadNtpKeyFile("/etc/zeitgeber/ntp.keys"));
//
// Control thread, at start-up and on reload: one call builds the whole new
// table or fails with an operator-actionable message (path, line, fix), so a
// reload can keep the old table on error.
#ifndef ZG_DATAPLANE_TRUST_NTP_KEYFILE_H_
#define ZG_DATAPLANE_TRUST_NTP_KEYFILE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_keys.h"

namespace zg::dataplane {

// The largest keyfile we read (chrony's keys are a line each).
inline constexpr size_t kMaxNtpKeyFileBytes = 1 << 20;

// Opens `path`, checks that it is a regular file with no group or other
// permission bits (mode & 077 == 0: chmod 600 or 400), reads and parses it.
absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> LoadNtpKeyFile(
    const std::string& path);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_NTP_KEYFILE_H_
