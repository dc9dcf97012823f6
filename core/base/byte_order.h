// SPDX-License-Identifier: Apache-2.0
// Unaligned big-endian (network byte order) loads and stores of 16, 32, 48
// and 64-bit integers, and native-order loads for equality tests and
// checksum sums. The one place zeitgeber converts byte order: the L2-L4
// headers (core/net/net_headers.h), NTP (core/ntp/ntp_wire.h) and PTP
// (core/ptp/ptp_fields.h) all read and write their fields with these.
//
// Every function uses memcpy, so `p` may have any alignment and alias any
// object (no UB on a frame at any address); compilers turn each into one
// load or store plus a byte swap. The caller checks bounds: `p` must have
// the value's width readable (Load*) or writable (Store*).
//
//   uint8_t buf[8];
//   StoreBe32(buf, 0x0A630001);      // buf = 0a 63 00 01
//   uint32_t v = LoadBe32(buf);      // 0x0A630001 on any host
//   StoreBe48(buf + 2, 0x123456789ABC);  // the low 48 bits, 6 bytes
#ifndef ZG_CORE_BASE_BYTE_ORDER_H_
#define ZG_CORE_BASE_BYTE_ORDER_H_

#include <bit>
#include <cstdint>
#include <cstring>

namespace zg::core {

// Host <-> big-endian conversion of a value (its own inverse).
constexpr uint16_t HostToBe16(uint16_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return __builtin_bswap16(v);
  }
  return v;
}
constexpr uint32_t HostToBe32(uint32_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return __builtin_bswap32(v);
  }
  return v;
}
constexpr uint64_t HostToBe64(uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return __builtin_bswap64(v);
  }
  return v;
}

// ---- Native-order loads (equality tests, checksum sums) -------------------

inline uint16_t Load16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- Big-endian loads -------------------------------------------------------

inline uint16_t LoadBe16(const uint8_t* p) { return HostToBe16(Load16(p)); }
inline uint32_t LoadBe32(const uint8_t* p) { return HostToBe32(Load32(p)); }
inline uint64_t LoadBe64(const uint8_t* p) { return HostToBe64(Load64(p)); }
// Six bytes (PTP seconds, IEEE 1588 UInteger48), zero-extended.
inline uint64_t LoadBe48(const uint8_t* p) {
  return (uint64_t{LoadBe16(p)} << 32) | LoadBe32(p + 2);
}

// ---- Big-endian stores ------------------------------------------------------

inline void StoreBe16(uint8_t* p, uint16_t v) {
  v = HostToBe16(v);
  std::memcpy(p, &v, sizeof v);
}
inline void StoreBe32(uint8_t* p, uint32_t v) {
  v = HostToBe32(v);
  std::memcpy(p, &v, sizeof v);
}
inline void StoreBe64(uint8_t* p, uint64_t v) {
  v = HostToBe64(v);
  std::memcpy(p, &v, sizeof v);
}
// The low 48 bits of `v`, six bytes.
inline void StoreBe48(uint8_t* p, uint64_t v) {
  StoreBe16(p, static_cast<uint16_t>(v >> 32));
  StoreBe32(p + 2, static_cast<uint32_t>(v));
}

}  // namespace zg::core

#endif  // ZG_CORE_BASE_BYTE_ORDER_H_
