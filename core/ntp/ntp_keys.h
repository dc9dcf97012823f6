// SPDX-License-Identifier: Apache-2.0
// Symmetric NTP keys (RFC 5905 MAC, RFC 8573 AES-CMAC): the key table and
// its parser for chrony's keyfile format. Pure: text in, table out; the file
// itself (and its permission check) is read by dataplane/trust/ntp_keyfile.h.
//
//   # ID  TYPE    KEY
//   1     AES128  HEX:2B7E151628AED2A6ABF7158809CF4F3C
//   2     SHA1    ASCII:correct-horse
//   3     MD5     battery-staple        # bare key: ASCII
//   4     staple-battery                # no type: MD5 (as chrony)
//
//   absl::StatusOr<NtpKeyTable> keys = ParseNtpKeys(text);
//   const NtpKey* k = keys->Find(1);
//
// As chrony's keys.c (KEY_Reload, decode_key, CPS_ParseKey, CPS_NormalizeLine):
// a line whose first non-blank character is one of "!;#%" is a comment, blank
// lines are skipped, a line is "ID TYPE KEY" or "ID KEY", a key is
// "HEX:<hex>", "ASCII:<text>" or bare text, and an AES key has exactly the
// cipher's key length. Unlike chrony, which logs a warning and skips a bad
// line, every problem here is an error naming its line: a time server that
// silently loses a key leaves its authenticated clients without time. Key id 0
// is refused (it means "no key" in NTP), and so is a duplicate id.
//
// Types: AES128, AES256 (CMAC, 16-byte MAC), SHA1 (20-byte digest), MD5 (16).
// chrony's other hash types (SHA256, SHA384, SHA512, SHA3-*, TIGER,
// WHIRLPOOL) are refused with an error saying so: their digests do not fit an
// NTPv4 MAC untruncated (chrony truncates them to 20 bytes), no client we test
// against uses them, and AES-CMAC is what RFC 8573 recommends.
#ifndef ZG_CORE_NTP_NTP_KEYS_H_
#define ZG_CORE_NTP_NTP_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::core {

enum class NtpKeyType : uint8_t { kMd5 = 0, kSha1, kAes128, kAes256, kCount };
inline constexpr size_t kNtpKeyTypeCount =
    static_cast<size_t>(NtpKeyType::kCount);

// "MD5", "SHA1", "AES128", "AES256": the keyfile spelling.
const char* NtpKeyTypeName(NtpKeyType type);
// Bytes of the digest after the 4-byte key id: 16 (MD5, AES-CMAC) or 20.
uint32_t NtpKeyDigestSize(NtpKeyType type);
// Key id + digest: the whole MAC trailer, 20 or 24 bytes.
inline uint32_t NtpKeyMacSize(NtpKeyType type) {
  return 4 + NtpKeyDigestSize(type);
}

struct NtpKey {
  uint32_t id = 0;
  NtpKeyType type = NtpKeyType::kMd5;
  std::string secret;  // raw key bytes (decoded from HEX:/ASCII:)
};

// An immutable set of keys sorted by id. Built once (ParseNtpKeys) and
// shared read-only; a reload builds a new one.
class NtpKeyTable {
 public:
  NtpKeyTable() = default;
  explicit NtpKeyTable(std::vector<NtpKey> sorted_keys)
      : keys_(std::move(sorted_keys)) {}
  NtpKeyTable(NtpKeyTable&&) = default;
  NtpKeyTable& operator=(NtpKeyTable&&) = default;
  ~NtpKeyTable();  // wipes the secrets

  // nullptr if `id` is not in the table.
  const NtpKey* Find(uint32_t id) const;
  const std::vector<NtpKey>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }

 private:
  std::vector<NtpKey> keys_;
};

// Parses a keyfile's text. Errors read "line N: ..." and never quote a key.
absl::StatusOr<NtpKeyTable> ParseNtpKeys(absl::string_view text);

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_KEYS_H_
