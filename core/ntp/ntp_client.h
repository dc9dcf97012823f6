// SPDX-License-Identifier: Apache-2.0
// The client side of NTP, for zg-loadgen and tests: build a request, check a
// server's reply against it and compute offset and delay (RFC 5905 section 8).
//
//   uint8_t req[kNtpHeaderSize];
//   const NtpTimestamp t1 = UtcToNtp(now_utc);   // or random, for privacy
//   BuildNtpClientRequest(req, /*version=*/4, /*poll_log2=*/6, t1);
//   ... send, receive `reply` at t4_utc ...
//   NtpClientSample s;
//   if (ParseNtpServerReply(reply, reply_len, t1, t4_utc, &s) ==
//       NtpReplyStatus::kOk) {
//     use(s.offset_ns, s.delay_ns);
//   }
//
// Era handling: the three timestamps in the reply carry no era; each is
// placed within +-68 years of the client's own receive time t4, so 2036 and
// later eras work as long as the client's clock is roughly right.
// Pure functions: no allocation, no I/O; safe on any bytes.
#ifndef ZG_CORE_NTP_NTP_CLIENT_H_
#define ZG_CORE_NTP_NTP_CLIENT_H_

#include <cstdint>

#include "core/ntp/ntp_wire.h"
#include "core/time/time_types.h"

namespace zg::core {

// Writes a 48-byte client request (mode 3, LI 0, the given version 1..4 and
// poll) into out[0..47]. Every other field is zero, as RFC 4330 allows and
// chrony does, except the transmit timestamp, which the server will echo as
// its origin timestamp.
void BuildNtpClientRequest(uint8_t* out, uint8_t version, int8_t poll_log2,
                           NtpTimestamp transmit);

// The outcome of reading a server reply, in the order the checks run.
enum class NtpReplyStatus : uint8_t {
  kOk = 0,
  kTooShort,         // < 48 bytes
  kBadVersion,       // not 1..4
  kNotServerMode,    // mode != 4
  kOriginMismatch,   // origin != our transmit: stale, duplicate or bogus
  kKissOfDeath,      // stratum 0 with RATE/DENY/RSTR/NTSN (sample.kiss)
  kZeroTimestamp,    // receive or transmit timestamp zero
  kClockOutOfRange,  // t4 outside [kNtpClientMinPivot, kNtpClientMaxPivot]
  kUnsynchronized,   // LI=3 or stratum 0 / >= 16; times are still filled in
  kCount
};
const char* NtpReplyStatusName(NtpReplyStatus status);

// The client's clock (t4) must lie where every timestamp 68 years either side
// of it is representable as UtcNs: 1906..2191.
inline constexpr UtcNs kNtpClientMinPivot{-2'000'000'000 * kNanosPerSecond};
inline constexpr UtcNs kNtpClientMaxPivot{7'000'000'000 * kNanosPerSecond};

struct NtpClientSample {
  NtpHeader header;                  // filled in unless kTooShort
  NtpKiss kiss = NtpKiss::kNotKiss;  // ClassifyNtpKiss(header)
  // Valid for kOk and kUnsynchronized: the four timestamps (UTC, eras
  // resolved), offset = ((T2-T1)+(T3-T4))/2, delay = (T4-T1)-(T3-T2).
  UtcNs t1, t2, t3, t4;
  int64_t offset_ns = 0;  // server minus client
  int64_t delay_ns = 0;   // round trip less the server's hold time
};

// Checks a server reply (UDP payload) to a request whose transmit timestamp
// was `request_transmit`, received at the client's `t4` (UTC). Reads only
// payload[0..len).
NtpReplyStatus ParseNtpServerReply(const uint8_t* payload, uint32_t len,
                                   NtpTimestamp request_transmit, UtcNs t4,
                                   NtpClientSample* out);

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_CLIENT_H_
