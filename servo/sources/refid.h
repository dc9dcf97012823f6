// SPDX-License-Identifier: Apache-2.0
// NTP reference identifiers for the sources (RFC 5905 section 7.3: for
// stratum 1, four ASCII characters, left-justified, zero-padded).
//
//   static_assert(NtpRefId("GPS") == 0x47505300);
//
// The value is the 32-bit big-endian interpretation of the four wire bytes,
// the convention ClockModel::reference_id uses.
#ifndef ZG_SERVO_REFID_H_
#define ZG_SERVO_REFID_H_

#include <cstdint>
#include <string_view>

namespace zg::servo {

constexpr uint32_t NtpRefId(std::string_view code) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    const uint8_t c = i < code.size() ? static_cast<uint8_t>(code[i]) : 0;
    v = (v << 8) | c;
  }
  return v;
}

}  // namespace zg::servo

#endif  // ZG_SERVO_REFID_H_
