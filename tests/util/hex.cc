// SPDX-License-Identifier: Apache-2.0
#include "tests/util/hex.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/base/hex.h"

namespace zg::testutil {
namespace {

[[noreturn]] void Die(absl::string_view hex, size_t at) {
  std::fprintf(stderr, "FromHex: bad hex at offset %zu in \"%.*s\"\n", at,
               static_cast<int>(hex.size()), hex.data());
  std::abort();
}

}  // namespace

std::vector<uint8_t> FromHex(absl::string_view hex) {
  std::string digits;
  for (size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[i];
    const bool between_bytes = digits.size() % 2 == 0;
    if (between_bytes && (c == ' ' || c == ':' || c == '-')) continue;
    if (!absl::ascii_isxdigit(c)) Die(hex, i);
    digits.push_back(c);
  }
  if (digits.size() % 2 != 0) Die(hex, hex.size());
  const std::string bytes = core::DecodeHex(digits).value();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

std::string ToHex(absl::Span<const uint8_t> bytes,
                  absl::string_view separator) {
  const std::string hex = absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (separator.empty()) return hex;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    if (i > 0) absl::StrAppend(&out, separator);
    out.append(hex, i, 2);
  }
  return out;
}

}  // namespace zg::testutil
