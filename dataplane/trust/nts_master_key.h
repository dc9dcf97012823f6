// SPDX-License-Identifier: Apache-2.0
// Reads the NTS master key (--nts_master_key=FILE) from which every server
// of a fleet derives the same cookie keys (core/nts/nts_cookie.h), refusing
// a file that anyone but its owner may read or write.
//
// The file holds either
//   - hex text: only hex digits (an even number, at least 64: 32 bytes),
//     optionally followed by whitespace (a trailing newline), or
//   - raw bytes: anything else, at least 32 bytes (head -c 32 /dev/urandom);
// at most kMaxNtsMasterKeyFileBytes either way. Make one with
//   (umask 077; openssl rand -hex 32 > /etc/zeitgeber/nts.key)
//
//   ZG_ASSIGN_OR_RETURN(NtsMasterKey key, LoadNtsMasterKey(path));
//   ZG_ASSIGN_OR_RETURN(core::NtsCookieKeystore ks,
//       core::NtsCookieKeystore::Derive(key.bytes(), config, now_unix_s));
//
// Control thread, at start-up and on reload (SIGHUP): setup code, it
// returns an operator-actionable error (path, what is wrong, the fix).
#ifndef ZG_DATAPLANE_TRUST_NTS_MASTER_KEY_H_
#define ZG_DATAPLANE_TRUST_NTS_MASTER_KEY_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "dataplane/trust/secret_file.h"

namespace zg::dataplane {

inline constexpr size_t kMaxNtsMasterKeyFileBytes = 4096;

// The master key's bytes; zeroed when destroyed. Move-only.
using NtsMasterKey = SecretBytes;

// Opens `path`, checks that it is a regular file with no group or other
// permission bits (mode & 077 == 0: chmod 600 or 400), reads and decodes it.
absl::StatusOr<NtsMasterKey> LoadNtsMasterKey(const std::string& path);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_NTS_MASTER_KEY_H_
