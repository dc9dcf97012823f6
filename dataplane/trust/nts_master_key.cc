// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/nts_master_key.h"

#include <openssl/crypto.h>

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "core/base/hex.h"
#include "core/base/status_macros.h"
#include "core/nts/nts_cookie.h"

namespace zg::dataplane {
namespace {

// Hex digits, then only whitespace (a trailing newline): the key they spell
// out; anything else is no hex text (nullopt: the bytes are the key).
std::optional<NtsMasterKey> DecodeHexText(absl::string_view text) {
  const absl::string_view digits = absl::StripTrailingAsciiWhitespace(text);
  if (digits.empty()) return std::nullopt;
  std::optional<std::string> decoded = core::DecodeHex(digits);
  if (!decoded) return std::nullopt;
  NtsMasterKey key(std::vector<uint8_t>(decoded->begin(), decoded->end()));
  OPENSSL_cleanse(decoded->data(), decoded->size());
  return key;
}

}  // namespace

absl::StatusOr<NtsMasterKey> LoadNtsMasterKey(const std::string& path) {
  ZG_ASSIGN_OR_RETURN(
      NtsMasterKey raw,
      ReadOwnerOnlyFile(path, {.flag = "--nts_master_key",
                               .what = "the NTS master key",
                               .max_bytes = kMaxNtsMasterKeyFileBytes}));
  std::optional<NtsMasterKey> hex = DecodeHexText(raw.view());
  const bool is_hex = hex.has_value();
  NtsMasterKey key = is_hex ? *std::move(hex) : std::move(raw);
  if (key.bytes().size() < core::kNtsMasterKeyMinSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--nts_master_key: %s holds a %d-byte key (read as %s); at least %d "
        "bytes are needed: (umask 077; openssl rand -hex 32 > %s)",
        path, key.bytes().size(), is_hex ? "hex text" : "raw bytes",
        core::kNtsMasterKeyMinSize, path));
  }
  return key;
}

}  // namespace zg::dataplane
