// SPDX-License-Identifier: Apache-2.0
// Hex text to bytes, checked: the one hex decoder of the tree (key files,
// MAC addresses, test vectors). abseil's absl::HexStringToBytes does the
// decoding; it trusts its input (20220623 turns a non-hex digit into other
// bytes and drops an odd last digit), so DecodeHex validates first. For the
// other direction use absl::BytesToHexString (lowercase).
//
//   std::optional<std::string> key = DecodeHex("2b7e1516");  // 4 bytes
//   if (!key) return absl::InvalidArgumentError("not hex");
//
// Setup code (allocates).
#ifndef ZG_CORE_BASE_HEX_H_
#define ZG_CORE_BASE_HEX_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace zg::core {

// True when `text` is pairs of hex digits (either case) and nothing else;
// the empty text is.
bool IsHexBytes(absl::string_view text);

// The bytes of `text` when IsHexBytes(text), else nullopt.
std::optional<std::string> DecodeHex(absl::string_view text);

}  // namespace zg::core

#endif  // ZG_CORE_BASE_HEX_H_
