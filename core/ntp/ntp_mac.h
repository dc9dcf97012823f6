// SPDX-License-Identifier: Apache-2.0
// NTP symmetric-key MACs with OpenSSL 3: AES-CMAC (RFC 8573) and the legacy
// MD5 / SHA-1 MACs (RFC 5905 section 7.3: digest of key || message), computed
// and checked the way chrony does (keys.c generate_auth / check_auth,
// ntp_auth.c check_symmetric_auth), so chrony and ntpsec clients accept us.
//
// The MAC covers everything before the trailer: the 48-byte header and any
// extension fields (chrony hashes packet[0 .. auth.mac.start)). The trailer is
// a 4-byte key id and the digest: 16 bytes for AES-CMAC and MD5 (20 in all),
// 20 for SHA-1 (24).
//
// One NtpMacer per worker, built on the control thread from the key table:
// every key's schedule is prepared there, so the per-request calls below
// allocate nothing (tests/core/ntp/ntp_mac_alloc_test.cc counts OpenSSL's
// mallocs around them) and take no locks:
//   AES-CMAC   one CMAC_CTX per key, keyed once; per request
//              CMAC_Init(ctx, NULL, 0, NULL, NULL) resets the chaining state
//              and keeps the key schedule, then CMAC_Update + CMAC_Final.
//              EVP_MAC (the OpenSSL 3 API) does the same without allocating
//              (EVP_MAC_init with no key calls that CMAC_Init), but its
//              provider layers cost ~20% more per 48-byte MAC, measured here.
//   MD5, SHA1  OpenSSL 3.0's EVP_DigestInit frees and reallocates the
//              provider's context on every call (measured: one malloc per
//              init), so these use OpenSSL's low-level MD5_CTX / SHA_CTX: the
//              state after hashing the key is kept per key and copied (a plain
//              struct copy) for each request.
// (The low-level CMAC_*, MD5_* and SHA1_* calls are deprecated in OpenSSL
// 3.0, still OpenSSL's code; ntp_mac.cc alone suppresses the warning.)
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<NtpMacer> macer,
//                       NtpMacer::Create(table));
//   // per request, after ValidateNtpRequest(..., kReportMac):
//   NtpMacCheck c = macer->Verify(payload, check.trailer);
//   if (c.verdict != NtpMacVerdict::kOk) drop;
//   ... write the 48-byte reply, its T3 ...
//   uint32_t trailer = macer->Sign(c.key_index, payload, kNtpHeaderSize);
//   reply_len = kNtpHeaderSize + trailer;
#ifndef ZG_CORE_NTP_NTP_MAC_H_
#define ZG_CORE_NTP_NTP_MAC_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_wire.h"

namespace zg::core {

enum class NtpMacVerdict : uint8_t {
  kOk = 0,
  kUnknownKey,  // key id not in the table
  kBadLength,   // MAC size does not match the key's type
  kBadMac,      // digest differs
};

struct NtpMacCheck {
  NtpMacVerdict verdict = NtpMacVerdict::kUnknownKey;
  uint16_t key_index = 0;  // valid when kOk (and kBadLength, kBadMac)
  NtpKeyType type = NtpKeyType::kMd5;
};

// The largest digest any supported type produces.
inline constexpr uint32_t kNtpMaxDigestSize = 20;

class NtpMacer {
 public:
  // Prepares every key of `table` (which need not outlive the macer).
  static absl::StatusOr<std::unique_ptr<NtpMacer>> Create(
      const NtpKeyTable& table);
  ~NtpMacer();
  NtpMacer(const NtpMacer&) = delete;
  NtpMacer& operator=(const NtpMacer&) = delete;

  size_t size() const { return ids_.size(); }
  // Index of key `id`, or -1.
  int Find(uint32_t key_id) const;
  NtpKeyType type(uint16_t key_index) const;
  uint32_t key_id(uint16_t key_index) const { return ids_[key_index]; }

  // The MAC calls are const (the table of keys never changes, so a worker
  // can use its macer through a const pointer, as a swapped configuration
  // hands it out) but NOT thread-safe: each restarts the key's CMAC
  // context, which is its worker's scratch state. One macer per worker.

  // Digest of data[0..len) with key `key_index` into out[0..digest size);
  // returns the digest size (0 on an OpenSSL failure).
  uint32_t Compute(uint16_t key_index, const uint8_t* data, uint32_t len,
                   uint8_t* out) const;

  // Checks the symmetric MAC `trailer` found (ValidateNtpRequest) in
  // payload: over payload[0 .. trailer.mac_offset).
  NtpMacCheck Verify(const uint8_t* payload, const NtpTrailer& trailer) const;

  // Appends key id + digest of payload[0..data_len) at payload + data_len;
  // returns the trailer size (20 or 24; 0 on an OpenSSL failure).
  uint32_t Sign(uint16_t key_index, uint8_t* payload, uint32_t data_len) const;

 private:
  struct Key;
  NtpMacer() = default;

  std::vector<uint32_t> ids_;  // sorted; ids_[i] is keys_[i]'s id
  std::vector<std::unique_ptr<Key>> keys_;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_MAC_H_
