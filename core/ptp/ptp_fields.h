// SPDX-License-Identifier: Apache-2.0
// Field codecs for IEEE 1588 wire structures: Timestamp (10 octets),
// ClockIdentity (8), PortIdentity (10), ClockQuality (4) and the
// correctionField (8), on top of core/base/byte_order.h's big-endian integers.
// Shared by ptp_wire, ptp_tlv and ptp_management, and by code that patches a
// field of a message in place (a Follow_Up's preciseOriginTimestamp at offset
// 34, say).
//
// The raw pointers must have the field's length readable (Load*) or writable
// (Store*): callers check bounds first. No alignment is assumed.
//
//   uint8_t* p = msg.data();
//   StorePtpTimestamp(p + kPtpHeaderLength, TaiToPtp(t1));
#ifndef ZG_CORE_PTP_PTP_FIELDS_H_
#define ZG_CORE_PTP_PTP_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/byte_order.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

inline constexpr size_t kPtpTimestampLength = 10;
inline constexpr size_t kPtpClockIdentityLength = 8;
inline constexpr size_t kPtpPortIdentityLength = 10;
inline constexpr size_t kPtpClockQualityLength = 4;

// Whether a timestamp fits the wire format: seconds < 2^48, ns < 1e9.
constexpr bool PtpTimestampIsValid(PtpTimestamp t) {
  return t.seconds <= kPtpSecondsMask &&
         t.nanoseconds < static_cast<uint32_t>(kNanosPerSecond);
}

inline PtpTimestamp LoadPtpTimestamp(const uint8_t* p) {
  return {LoadBe48(p), LoadBe32(p + 6)};
}
inline void StorePtpTimestamp(uint8_t* p, PtpTimestamp t) {
  StoreBe48(p, t.seconds);
  StoreBe32(p + 6, t.nanoseconds);
}

inline PtpClockIdentity LoadPtpClockIdentity(const uint8_t* p) {
  PtpClockIdentity id;
  std::memcpy(id.octets.data(), p, kPtpClockIdentityLength);
  return id;
}
inline void StorePtpClockIdentity(uint8_t* p, const PtpClockIdentity& id) {
  std::memcpy(p, id.octets.data(), kPtpClockIdentityLength);
}

inline PtpPortIdentity LoadPtpPortIdentity(const uint8_t* p) {
  return {LoadPtpClockIdentity(p), LoadBe16(p + kPtpClockIdentityLength)};
}
inline void StorePtpPortIdentity(uint8_t* p, const PtpPortIdentity& id) {
  StorePtpClockIdentity(p, id.clock_identity);
  StoreBe16(p + kPtpClockIdentityLength, id.port_number);
}

inline PtpClockQuality LoadPtpClockQuality(const uint8_t* p) {
  return {p[0], p[1], LoadBe16(p + 2)};
}
inline void StorePtpClockQuality(uint8_t* p, const PtpClockQuality& q) {
  p[0] = q.clock_class;
  p[1] = q.clock_accuracy;
  StoreBe16(p + 2, q.offset_scaled_log_variance);
}

inline PtpCorrection LoadPtpCorrection(const uint8_t* p) {
  return {static_cast<int64_t>(LoadBe64(p))};
}
inline void StorePtpCorrection(uint8_t* p, PtpCorrection c) {
  StoreBe64(p, static_cast<uint64_t>(c.scaled_ns));
}

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_FIELDS_H_
