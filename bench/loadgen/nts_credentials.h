// SPDX-License-Identifier: Apache-2.0
// Where zg-loadgen's NTS clients get their keys and cookies (--mix=nts):
//
//  - --nts_master_key=FILE: a TEST HARNESS standing in for NTS-KE. The
//    generator holds the server fleet's master key, draws random C2S/S2C
//    keys per association and seals them into cookies itself
//    (core/nts/nts_cookie.h NtsCookieKeystore::Seal), exactly as a
//    zeitgeberd sharing that key would after a KE handshake. No TLS.
//  - --nts_ke=HOST[:PORT]: one real NTS-KE handshake (nts_ke_client.h);
//    its keys with each of its cookies make the associations.
//
//   ZG_ASSIGN_OR_RETURN(std::shared_ptr<const NtsClientSetup> nts,
//                       MakeNtsClientSetup(options));
//
// Setup code (file and network I/O); never on a lane.
#ifndef ZG_BENCH_LOADGEN_NTS_CREDENTIALS_H_
#define ZG_BENCH_LOADGEN_NTS_CREDENTIALS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bench/loadgen/lane_engine.h"

namespace zg::bench {

struct NtsCredentialOptions {
  std::string master_key_file;    // --nts_master_key (raw key bytes, >= 32)
  uint64_t key_period_s = 86400;  // --nts_key_period: the servers'
                                  // (parsed by zeitgeberd's own parser)
  std::string ke;                 // --nts_ke: HOST[:PORT] (IP address)
  std::string ke_ca;              // --nts_ke_ca: PEM trust anchors
  std::string ke_name;            // --nts_ke_name: certificate name (SNI)
  uint32_t associations = 64;     // --nts_associations (master key mode)
  uint32_t verify_every = 16;     // --nts_verify_every
};

// Exactly one of master_key_file and ke must be set. `source` is set to
// "master_key" or "nts_ke" (the report's nts.credentials).
absl::StatusOr<std::shared_ptr<const NtsClientSetup>> MakeNtsClientSetup(
    const NtsCredentialOptions& o, std::string* source);

// Reads a master key file as zeitgeberd does: raw bytes, or hex text (only
// hex digits, 64 or more, trailing whitespace ignored); at least
// core::kNtsMasterKeyMinSize bytes.
absl::StatusOr<std::string> ReadNtsMasterKey(const std::string& path);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_NTS_CREDENTIALS_H_
