#include "tests/util/hex.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace zg::testutil {
namespace {

int Nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

[[noreturn]] void Die(absl::string_view hex, size_t at) {
  std::fprintf(stderr, "FromHex: bad hex at offset %zu in \"%.*s\"\n", at,
               static_cast<int>(hex.size()), hex.data());
  std::abort();
}

}  // namespace

std::vector<uint8_t> FromHex(absl::string_view hex) {
  std::vector<uint8_t> out;
  int high = -1;
  for (size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[i];
    if (high < 0 && (c == ' ' || c == ':' || c == '-')) continue;
    const int n = Nibble(c);
    if (n < 0) Die(hex, i);
    if (high < 0) {
      high = n;
    } else {
      out.push_back(static_cast<uint8_t>(high << 4 | n));
      high = -1;
    }
  }
  if (high >= 0) Die(hex, hex.size());
  return out;
}

std::string ToHex(absl::Span<const uint8_t> bytes,
                  absl::string_view separator) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, separator);
    absl::StrAppendFormat(&out, "%02x", bytes[i]);
  }
  return out;
}

}  // namespace zg::testutil
