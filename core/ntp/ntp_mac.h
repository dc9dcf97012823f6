// SPDX-License-Identifier: Apache-2.0
// NTP symmetric-key MACs: AES-CMAC (RFC 8573) and the legacy MD5 / SHA-1
// MACs (RFC 5905 section 7.3: digest of key || message), computed and
// checked the way chrony does (keys.c generate_auth / check_auth,
// ntp_auth.c check_symmetric_auth), so chrony and ntpsec clients accept us.
//
// The MAC covers everything before the trailer: the 48-byte header and any
// extension fields (chrony hashes packet[0 .. auth.mac.start)). The trailer is
// a 4-byte key id and the digest: 16 bytes for AES-CMAC and MD5 (20 in all),
// 20 for SHA-1 (24).
//
// One NtpMacer per worker, built on the control thread from the key table:
// every key's schedule is prepared there, so the per-request calls below
// allocate nothing (tests/core/ntp/ntp_mac_alloc_test.cc counts mallocs
// around them) and take no locks. Each algorithm from the fastest library
// in bench/core/ntp/ntp_mac_benchmark.cc (48-byte MACs, same run):
//   AES128   ours (core/crypto/aes_cmac.h: AES-NI, and a batch's MACs
//            interleaved: VerifyBatch / SignBatch), about 3.5x nettle's
//            cmac_aes128 and 10x OpenSSL's CMAC per MAC in a burst
//   AES256   nettle's cmac_aes256 (chrony's library), keyed once per key;
//            its digest resets the state for the next message. 1.6x
//            OpenSSL's CMAC.
//   MD5, SHA1  OpenSSL's low-level MD5_CTX / SHA_CTX (nettle's are no
//            faster: SHA1 the same, MD5 1.2x slower): the state after
//            hashing the key is kept per key and copied for each request.
//            (OpenSSL 3.0's EVP_DigestInit reallocates its context on every
//            call; the low-level calls are deprecated in 3.0, still
//            OpenSSL's code; ntp_mac.cc alone suppresses the warning.)
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<NtpMacer> macer,
//                       NtpMacer::Create(table));
//   // per request, after ValidateNtpRequest(..., kReportMac):
//   NtpMacCheck c = macer->Verify(payload, check.trailer);
//   if (c.verdict != NtpMacVerdict::kOk) drop;
//   ... write the 48-byte reply, its T3 ...
//   uint32_t trailer = macer->Sign(c.key_index, payload, kNtpHeaderSize);
//   reply_len = kNtpHeaderSize + trailer;
//   // a burst's: VerifyBatch(verify_ops), SignBatch(sign_ops)
#ifndef ZG_CORE_NTP_NTP_MAC_H_
#define ZG_CORE_NTP_NTP_MAC_H_

#include <cstdint>
#include <memory>
#include <span>
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

// One request of VerifyBatch: its payload and trailer, then the check.
struct NtpMacVerifyOp {
  const uint8_t* payload = nullptr;
  NtpTrailer trailer;
  NtpMacCheck result;  // written by VerifyBatch
};
// One reply of SignBatch: as Sign's arguments, then its trailer size.
struct NtpMacSignOp {
  uint16_t key_index = 0;
  uint8_t* payload = nullptr;
  uint32_t data_len = 0;
  uint32_t trailer_size = 0;  // written by SignBatch
};

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
  // hands it out) but NOT thread-safe: an AES256 key's nettle context is
  // its worker's scratch state. One macer per worker.

  // Digest of data[0..len) with key `key_index` into out[0..digest size);
  // returns the digest size (0 on a library failure).
  uint32_t Compute(uint16_t key_index, const uint8_t* data, uint32_t len,
                   uint8_t* out) const;

  // Checks the symmetric MAC `trailer` found (ValidateNtpRequest) in
  // payload: over payload[0 .. trailer.mac_offset).
  NtpMacCheck Verify(const uint8_t* payload, const NtpTrailer& trailer) const;

  // Appends key id + digest of payload[0..data_len) at payload + data_len;
  // returns the trailer size (20 or 24; 0 on a library failure).
  uint32_t Sign(uint16_t key_index, uint8_t* payload, uint32_t data_len) const;

  // Every op as Verify / Sign, the AES128 keys' MACs interleaved.
  void VerifyBatch(std::span<NtpMacVerifyOp> ops) const;
  void SignBatch(std::span<NtpMacSignOp> ops) const;

 private:
  struct Key;
  NtpMacer() = default;

  std::vector<uint32_t> ids_;  // sorted; ids_[i] is keys_[i]'s id
  std::vector<std::unique_ptr<Key>> keys_;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_MAC_H_
