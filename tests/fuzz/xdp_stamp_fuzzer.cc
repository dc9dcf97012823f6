// SPDX-License-Identifier: Apache-2.0
// Fuzzes the XDP RX stamp header parser (core/net/xdp_stamp.h): any bytes
// parse without reading past the end, and a parsed header re-encodes to the
// same 16 octets.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/net/xdp_stamp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  const auto s = ParseXdpStamp(std::span<const uint8_t>(data, size));
  if (!s.has_value()) return 0;
  if (size < kXdpStampLen || s->ns == 0) __builtin_trap();
  uint8_t out[kXdpStampLen];
  WriteXdpStamp(*s, out);
  if (std::memcmp(out, data, kXdpStampLen) != 0) __builtin_trap();
  return 0;
}
