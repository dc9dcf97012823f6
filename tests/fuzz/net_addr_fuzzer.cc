// SPDX-License-Identifier: Apache-2.0
// Fuzzes the address parsers setup code uses on operator input
// (core/net/net_headers.h: ParseMacAddr, ParseIpv4Addr, ParseIpv6Addr,
// ParseIpAddress, ParseIpPrefix) with any bytes as text. Checks:
//  - no crash or UB (ASan/UBSan), whatever the bytes;
//  - accepted text is made only of the characters those formats use (hex
//    digits, '.', ':', '-', '/'): no NUL or other byte is ever skipped over;
//  - what parses formats (ToString) to text that parses back to the same
//    value, and the family and prefix length are in range.
#include <cstddef>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "core/net/net_headers.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

bool OnlyAddressCharacters(absl::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isxdigit(c) && c != '.' && c != ':' && c != '-' &&
        c != '/') {
      return false;
    }
  }
  return true;
}

template <class T, class Parse>
void RoundTrip(absl::string_view text, Parse parse) {
  const absl::StatusOr<T> v = parse(text);
  if (!v.ok()) {
    ZG_FUZZ_CHECK(!v.status().message().empty());
    return;
  }
  ZG_FUZZ_CHECK(OnlyAddressCharacters(text));
  const absl::StatusOr<T> again = parse(v->ToString());
  ZG_FUZZ_CHECK(again.ok() && *again == *v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  RoundTrip<MacAddr>(text, ParseMacAddr);
  RoundTrip<Ipv4Addr>(text, ParseIpv4Addr);
  RoundTrip<Ipv6Addr>(text, ParseIpv6Addr);
  RoundTrip<IpAddress>(text, ParseIpAddress);
  RoundTrip<IpPrefix>(text, ParseIpPrefix);
  const absl::StatusOr<IpPrefix> p = ParseIpPrefix(text);
  if (p.ok()) {
    ZG_FUZZ_CHECK(p->length <= (p->addr.is_v6() ? 128 : 32));
    ZG_FUZZ_CHECK(p->addr.is_v6() ==
                  (text.find(':') != absl::string_view::npos));
  }
  return 0;
}
