// SPDX-License-Identifier: Apache-2.0
// Hex text <-> bytes for tests: known-answer vectors written as hex strings,
// and bytes shown the way tshark shows them.
//
//   const std::vector<uint8_t> request = FromHex("e300 0000 ...");
//   ToHex(request)          // "e3000000..."
//   ToHex(mac_bytes, ":")   // "02:00:5e:10:00:01"
#ifndef ZG_TESTS_UTIL_HEX_H_
#define ZG_TESTS_UTIL_HEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace zg::testutil {

// Pairs of hex digits (either case); spaces, ':' and '-' between bytes are
// skipped. Aborts, naming the text, on anything else or an odd digit count:
// a typo in a test vector must not silently become other bytes.
std::vector<uint8_t> FromHex(absl::string_view hex);

// Lowercase hex, `separator` between bytes.
std::string ToHex(absl::Span<const uint8_t> bytes,
                  absl::string_view separator = "");

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_HEX_H_
