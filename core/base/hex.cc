// SPDX-License-Identifier: Apache-2.0
// The checked front of absl::HexStringToBytes (core/base/hex.h).
#include "core/base/hex.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"

namespace zg::core {

bool IsHexBytes(absl::string_view text) {
  return text.size() % 2 == 0 &&
         std::all_of(text.begin(), text.end(),
                     [](char c) { return absl::ascii_isxdigit(c); });
}

std::optional<std::string> DecodeHex(absl::string_view text) {
  if (!IsHexBytes(text)) return std::nullopt;
  return absl::HexStringToBytes(text);
}

}  // namespace zg::core
