// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_keys.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/base/hex.h"

namespace zg::core {
namespace {

// chrony's CPS_NormalizeLine: a comment starts with one of these as the
// first non-blank character of a line.
constexpr absl::string_view kCommentChars = "!;#%";

// Hash types chrony knows that we refuse (see the header comment).
constexpr absl::string_view kChronyOnlyTypes[] = {
    "SHA256",   "SHA384",   "SHA512", "SHA3-224", "SHA3-256",
    "SHA3-384", "SHA3-512", "TIGER",  "WHIRLPOOL"};

std::optional<NtpKeyType> TypeFromName(absl::string_view name) {
  for (size_t t = 0; t < kNtpKeyTypeCount; ++t) {
    const auto type = static_cast<NtpKeyType>(t);
    if (name == NtpKeyTypeName(type)) return type;
  }
  return std::nullopt;
}

size_t CmacKeyLength(NtpKeyType type) {
  switch (type) {
    case NtpKeyType::kAes128:
      return 16;
    case NtpKeyType::kAes256:
      return 32;
    default:
      return 0;
  }
}

// chrony's decode_key + UTI_HexToBytes: "HEX:" pairs of hex digits,
// "ASCII:" or bare text as it is.
absl::StatusOr<std::string> DecodeKey(absl::string_view key) {
  if (absl::ConsumePrefix(&key, "ASCII:")) return std::string(key);
  if (!absl::ConsumePrefix(&key, "HEX:")) return std::string(key);
  if (key.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        "HEX: key has an odd number of hex digits");
  }
  std::optional<std::string> bytes = DecodeHex(key);
  if (!bytes) {
    return absl::InvalidArgumentError("HEX: key has a non-hex character");
  }
  return *std::move(bytes);
}

absl::StatusOr<NtpKeyType> ParseType(absl::string_view name) {
  if (std::optional<NtpKeyType> t = TypeFromName(name)) return *t;
  for (absl::string_view other : kChronyOnlyTypes) {
    if (name == other) {
      return absl::InvalidArgumentError(absl::StrCat(
          "key type ", name,
          " is valid for chrony but not supported by zeitgeberd (use AES128, "
          "AES256, SHA1 or MD5)"));
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown key type '", name, "' (expected AES128, AES256, SHA1 or MD5)"));
}

// One non-comment line: "ID TYPE KEY" or "ID KEY".
absl::StatusOr<NtpKey> ParseLine(absl::string_view line) {
  const std::vector<absl::string_view> words =
      absl::StrSplit(line, absl::ByAnyChar(" \t\r\v\f"), absl::SkipEmpty());
  if (words.size() < 2 || words.size() > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected 'ID TYPE KEY' or 'ID KEY', got ", words.size(), " words"));
  }
  NtpKey key;
  if (!std::all_of(words[0].begin(), words[0].end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(words[0], &key.id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("key id '", words[0], "' is not a number in 1..2^32-1"));
  }
  if (key.id == 0) {
    return absl::InvalidArgumentError("key id 0 is reserved (it means no key)");
  }
  absl::string_view type_name = "MD5", value = words[1];
  if (words.size() == 3) {
    type_name = words[1];
    value = words[2];
  }
  absl::StatusOr<NtpKeyType> type = ParseType(type_name);
  if (!type.ok()) return type.status();
  key.type = *type;
  absl::StatusOr<std::string> secret = DecodeKey(value);
  if (!secret.ok()) return secret.status();
  key.secret = std::move(*secret);
  if (key.secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("key ", key.id, " is empty"));
  }
  const size_t cmac_len = CmacKeyLength(key.type);
  if (cmac_len != 0 && key.secret.size() != cmac_len) {
    return absl::InvalidArgumentError(
        absl::StrCat("key ", key.id, " of type ", type_name, " has ",
                     key.secret.size() * 8, " bits, expected ", cmac_len * 8,
                     " (e.g. HEX: and ", cmac_len * 2, " hex digits)"));
  }
  return key;
}

}  // namespace

const char* NtpKeyTypeName(NtpKeyType type) {
  switch (type) {
    case NtpKeyType::kMd5:
      return "MD5";
    case NtpKeyType::kSha1:
      return "SHA1";
    case NtpKeyType::kAes128:
      return "AES128";
    case NtpKeyType::kAes256:
      return "AES256";
    case NtpKeyType::kCount:
      break;
  }
  return "unknown";
}

uint32_t NtpKeyDigestSize(NtpKeyType type) {
  return type == NtpKeyType::kSha1 ? 20 : 16;
}

NtpKeyTable::~NtpKeyTable() {
  for (NtpKey& k : keys_) OPENSSL_cleanse(k.secret.data(), k.secret.size());
}

const NtpKey* NtpKeyTable::Find(uint32_t id) const {
  auto it =
      std::lower_bound(keys_.begin(), keys_.end(), id,
                       [](const NtpKey& k, uint32_t v) { return k.id < v; });
  return it != keys_.end() && it->id == id ? &*it : nullptr;
}

absl::StatusOr<NtpKeyTable> ParseNtpKeys(absl::string_view text) {
  std::vector<NtpKey> keys;
  std::vector<size_t> lines;  // of keys[i], for the duplicate message
  size_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || kCommentChars.find(line[0]) != line.npos) continue;
    absl::StatusOr<NtpKey> key = ParseLine(line);
    if (!key.ok()) {
      for (NtpKey& k : keys) OPENSSL_cleanse(k.secret.data(), k.secret.size());
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line_number, ": ", key.status().message()));
    }
    keys.push_back(std::move(*key));
    lines.push_back(line_number);
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return keys[a].id < keys[b].id; });
  std::vector<NtpKey> sorted;
  sorted.reserve(keys.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && keys[order[i]].id == keys[order[i - 1]].id) {
      const uint32_t id = keys[order[i]].id;
      const size_t first = lines[order[i - 1]], second = lines[order[i]];
      NtpKeyTable wipe(std::move(keys));
      NtpKeyTable wipe_sorted(std::move(sorted));
      return absl::InvalidArgumentError(
          absl::StrCat("line ", second, ": duplicate key id ", id,
                       " (first on line ", first, ")"));
    }
    sorted.push_back(std::move(keys[order[i]]));
  }
  return NtpKeyTable(std::move(sorted));
}

}  // namespace zg::core
