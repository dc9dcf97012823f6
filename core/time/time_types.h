// SPDX-License-Identifier: Apache-2.0
// Time types and exact conversions between the scales zeitgeber serves.
//
// Every timestamp in zeitgeber carries its scale and unit in its type:
//
//   TaiNs        nanoseconds on the TAI scale since 1970-01-01T00:00:00 TAI
//                (the PTP epoch; CLOCK_TAI counts the same way).
//   UtcNs        nanoseconds on the UTC scale as POSIX counts it: since
//                1970-01-01T00:00:00Z, leap seconds not counted
//                (CLOCK_REALTIME counts the same way).
//   NtpTimestamp the 64-bit NTP wire timestamp (32.32, seconds since
//                1900-01-01 UTC modulo 2^32, i.e. without its era).
//   NtpDate      the RFC 5905 128-bit date: era, era offset, fraction.
//   NtpShort     the 32-bit NTP short format (16.16), for root delay and
//                root dispersion.
//   PtpTimestamp IEEE 1588 timestamp: 48-bit seconds + 32-bit nanoseconds,
//                TAI since the PTP epoch.
//   PtpCorrection IEEE 1588 correctionField: nanoseconds scaled by 2^16.
//
// Durations are plain int64_t nanoseconds named `*_ns`.
//
// TAI and UTC differ by TAI-UTC (37 s since 2017-01-01); the conversion needs
// the leap-second table (core/time/leap_seconds.h). Everything here is exact
// where the formats allow it: UtcNs -> NtpTimestamp -> UtcNs round-trips every
// nanosecond, and TaiNs <-> PtpTimestamp is lossless for non-negative times.
// Nothing here overflows: wire values that land outside the int64 nanosecond
// range (1677..2262) saturate. doc/time.md describes the scales and epochs.
//
//   UtcNs now{1'700'000'000'000'000'000};
//   NtpTimestamp wire = UtcToNtp(now);
//   UtcNs back = NtpToUtc(wire, /*pivot=*/now);   // back == now
#ifndef ZG_CORE_TIME_TIME_TYPES_H_
#define ZG_CORE_TIME_TIME_TYPES_H_

#include <compare>
#include <cstdint>

namespace zg::core {

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr int64_t kSecondsPerDay = 86'400;

// Nanoseconds since 1970-01-01T00:00:00 TAI. Signed: times before the epoch
// are representable; int64 covers 1677..2262.
struct TaiNs {
  int64_t value = 0;
  friend constexpr auto operator<=>(TaiNs, TaiNs) = default;
  friend constexpr TaiNs operator+(TaiNs t, int64_t d_ns) {
    return {t.value + d_ns};
  }
  friend constexpr TaiNs operator-(TaiNs t, int64_t d_ns) {
    return {t.value - d_ns};
  }
  friend constexpr int64_t operator-(TaiNs a, TaiNs b) {
    return a.value - b.value;
  }
};

// Nanoseconds since 1970-01-01T00:00:00Z, POSIX style (86400 s per day).
struct UtcNs {
  int64_t value = 0;
  friend constexpr auto operator<=>(UtcNs, UtcNs) = default;
  friend constexpr UtcNs operator+(UtcNs t, int64_t d_ns) {
    return {t.value + d_ns};
  }
  friend constexpr UtcNs operator-(UtcNs t, int64_t d_ns) {
    return {t.value - d_ns};
  }
  friend constexpr int64_t operator-(UtcNs a, UtcNs b) {
    return a.value - b.value;
  }
};

// Seconds from the NTP prime epoch (1900-01-01) to the Unix epoch.
inline constexpr int64_t kNtpUnixEpochOffsetSeconds = 2'208'988'800;

// 64-bit NTP timestamp as carried on the wire (host byte order here).
struct NtpTimestamp {
  uint32_t seconds = 0;   // seconds since 1900-01-01 UTC, modulo 2^32
  uint32_t fraction = 0;  // 2^-32 s units
  friend constexpr bool operator==(NtpTimestamp, NtpTimestamp) = default;
  constexpr uint64_t ToU64() const {
    return (uint64_t{seconds} << 32) | fraction;
  }
  static constexpr NtpTimestamp FromU64(uint64_t v) {
    return {static_cast<uint32_t>(v >> 32), static_cast<uint32_t>(v)};
  }
  constexpr bool IsZero() const { return seconds == 0 && fraction == 0; }
};

// RFC 5905 section 6 NTP date format: a signed era, the offset in seconds
// within the era and a 64-bit fraction. Era 0 starts 1900-01-01; era 1 starts
// 2036-02-07T06:28:16Z.
struct NtpDate {
  int32_t era = 0;
  uint32_t era_offset_s = 0;
  uint64_t fraction = 0;  // 2^-64 s units
  friend constexpr bool operator==(const NtpDate&, const NtpDate&) = default;
};

// 32-bit NTP short format: 16-bit seconds, 16-bit fraction.
struct NtpShort {
  uint16_t seconds = 0;
  uint16_t fraction = 0;
  friend constexpr bool operator==(NtpShort, NtpShort) = default;
  constexpr uint32_t ToU32() const {
    return (uint32_t{seconds} << 16) | fraction;
  }
  static constexpr NtpShort FromU32(uint32_t v) {
    return {static_cast<uint16_t>(v >> 16), static_cast<uint16_t>(v)};
  }
};

// IEEE 1588 timestamp: TAI seconds since the PTP epoch (48 bits on the wire)
// and nanoseconds (< 1e9).
struct PtpTimestamp {
  uint64_t seconds = 0;  // only the low 48 bits are carried on the wire
  uint32_t nanoseconds = 0;
  friend constexpr bool operator==(PtpTimestamp, PtpTimestamp) = default;
};
inline constexpr uint64_t kPtpSecondsMask = (uint64_t{1} << 48) - 1;

// IEEE 1588 correctionField / TimeInterval: nanoseconds * 2^16, signed.
// IEEE 1588 (correctionField): a value too large to represent is sent as the
// largest positive value, 0x7FFFFFFFFFFFFFFF; FromNanos saturates both ways.
struct PtpCorrection {
  int64_t scaled_ns = 0;
  friend constexpr bool operator==(PtpCorrection, PtpCorrection) = default;
  // The largest |ns| that FromNanos represents exactly (about 39 hours).
  static constexpr int64_t kMaxExactNanos = (int64_t{1} << 47) - 1;
  static constexpr PtpCorrection FromNanos(int64_t ns) {
    if (ns > kMaxExactNanos) return {INT64_MAX};
    if (ns < -kMaxExactNanos) return {INT64_MIN};
    return {static_cast<int64_t>(static_cast<uint64_t>(ns) << 16)};
  }
  // Whole nanoseconds, rounded toward negative infinity.
  constexpr int64_t Nanos() const { return scaled_ns >> 16; }
  // True for the "too large to represent" value (or its negative mirror).
  constexpr bool IsSaturated() const {
    return scaled_ns == INT64_MAX || scaled_ns == INT64_MIN;
  }
};

// ---- Conversions -----------------------------------------------------------

// Floor division and modulo for signed integers (b > 0 or b < 0; never
// overflows, also for INT64_MIN).
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// seconds * 1e9 + ns, clamped to the int64 range (1677..2262) instead of
// overflowing. Used where untrusted wire values meet int64 nanoseconds.
constexpr int64_t SaturatingNanos(__int128 seconds, __int128 ns) {
  const __int128 v = seconds * kNanosPerSecond + ns;
  if (v > INT64_MAX) return INT64_MAX;
  if (v < INT64_MIN) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// Nanoseconds (0..1e9-1) to a 32-bit NTP fraction, rounded to nearest.
constexpr uint32_t NanosToNtpFraction(uint32_t ns) {
  return static_cast<uint32_t>(((uint64_t{ns} << 32) + kNanosPerSecond / 2) /
                               kNanosPerSecond);
}
// 32-bit NTP fraction to nanoseconds, rounded to nearest (may yield 1e9 for
// fractions within half a nanosecond of the next second; callers carry).
// NtpFractionToNanos(NanosToNtpFraction(ns)) == ns for every ns < 1e9.
constexpr uint64_t NtpFractionToNanos(uint32_t frac) {
  return (uint64_t{frac} * kNanosPerSecond + (uint64_t{1} << 31)) >> 32;
}

// The era-extended NTP seconds (since 1900-01-01, may be negative or exceed
// 2^32) whose low 32 bits are `wire_seconds`, nearest to `pivot`: within
// [-2^31, 2^31) seconds of the pivot's second (RFC 5905 section 6).
constexpr int64_t NtpResolveSeconds(uint32_t wire_seconds, UtcNs pivot) {
  const int64_t pivot_ntp_s =
      FloorDiv(pivot.value, kNanosPerSecond) + kNtpUnixEpochOffsetSeconds;
  const int32_t diff = static_cast<int32_t>(
      wire_seconds - static_cast<uint32_t>(static_cast<uint64_t>(pivot_ntp_s)));
  return pivot_ntp_s + diff;
}

// UTC -> NTP wire timestamp (era dropped). Exact to the nanosecond: the
// round trip through NtpToUtc with a pivot within 68 years returns `t`.
constexpr NtpTimestamp UtcToNtp(UtcNs t) {
  const int64_t s = FloorDiv(t.value, kNanosPerSecond);
  const uint32_t ns = static_cast<uint32_t>(FloorMod(t.value, kNanosPerSecond));
  return {static_cast<uint32_t>(
              static_cast<uint64_t>(s + kNtpUnixEpochOffsetSeconds)),
          NanosToNtpFraction(ns)};
}

// NTP wire timestamp -> UTC, choosing the era that puts the result within
// +-2^31 seconds (about 68 years) of `pivot` (RFC 5905 section 6; pass the
// local clock). Correct across 2036-02-07T06:28:16Z and every later era.
// Results beyond the int64 range (pivots near 1677 or 2262) saturate.
constexpr UtcNs NtpToUtc(NtpTimestamp ts, UtcNs pivot) {
  const int64_t ntp_s = NtpResolveSeconds(ts.seconds, pivot);
  return {SaturatingNanos(ntp_s - kNtpUnixEpochOffsetSeconds,
                          NtpFractionToNanos(ts.fraction))};
}

// Nanoseconds (0..1e9-1) <-> the NtpDate 64-bit fraction (2^-64 s), rounded
// to nearest; the nanoseconds may come back as 1e9 (callers carry). The round
// trip ns -> fraction -> ns is exact.
constexpr uint64_t NanosToNtpFraction64(uint32_t ns) {
  return static_cast<uint64_t>(
      ((static_cast<unsigned __int128>(ns) << 64) + kNanosPerSecond / 2) /
      kNanosPerSecond);
}
constexpr uint64_t NtpFraction64ToNanos(uint64_t frac) {
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(frac) * kNanosPerSecond +
       (static_cast<unsigned __int128>(1) << 63)) >>
      64);
}

// NtpDate <-> UTC (exact to the nanosecond in both directions for UtcNs;
// dates beyond the int64 nanosecond range saturate).
constexpr NtpDate UtcToNtpDate(UtcNs t) {
  const int64_t s =
      FloorDiv(t.value, kNanosPerSecond) + kNtpUnixEpochOffsetSeconds;
  const uint32_t ns = static_cast<uint32_t>(FloorMod(t.value, kNanosPerSecond));
  return {static_cast<int32_t>(FloorDiv(s, int64_t{1} << 32)),
          static_cast<uint32_t>(FloorMod(s, int64_t{1} << 32)),
          NanosToNtpFraction64(ns)};
}
constexpr UtcNs NtpDateToUtc(const NtpDate& d) {
  const __int128 s = static_cast<__int128>(d.era) * (int64_t{1} << 32) +
                     d.era_offset_s - kNtpUnixEpochOffsetSeconds;
  return {SaturatingNanos(s, NtpFraction64ToNanos(d.fraction))};
}
// The full NTP date of a wire timestamp, its era chosen as NtpToUtc does.
// Exact: era_offset_s is ts.seconds and the fraction is ts.fraction * 2^32.
constexpr NtpDate NtpTimestampToDate(NtpTimestamp ts, UtcNs pivot) {
  const int64_t ntp_s = NtpResolveSeconds(ts.seconds, pivot);
  return {static_cast<int32_t>(FloorDiv(ntp_s, int64_t{1} << 32)), ts.seconds,
          uint64_t{ts.fraction} << 32};
}

// Durations <-> NTP short format (16.16), for root delay and root dispersion.
// Encoding rounds up (an advertised error bound is never smaller than the
// real one) and saturates at the format's limits (0 and 65535.99998 s);
// decoding rounds down, so NanosToNtpShort(NtpShortToNanos(s)) == s.
constexpr NtpShort NanosToNtpShort(int64_t d_ns) {
  if (d_ns <= 0) return {0, 0};
  const __int128 v =
      ((static_cast<__int128>(d_ns) << 16) + kNanosPerSecond - 1) /
      kNanosPerSecond;
  if (v > 0xffffffff) return {0xffff, 0xffff};
  return NtpShort::FromU32(static_cast<uint32_t>(v));
}
constexpr int64_t NtpShortToNanos(NtpShort s) {
  return static_cast<int64_t>((uint64_t{s.ToU32()} * kNanosPerSecond) >> 16);
}

// TAI <-> PTP timestamp. Times before the PTP epoch clamp to zero. PtpToTai
// ignores the bits above 48 and saturates at the int64 range (a 48-bit
// seconds field reaches far beyond 2262); nanoseconds >= 1e9 (invalid on the
// wire) are added as they are.
constexpr PtpTimestamp TaiToPtp(TaiNs t) {
  if (t.value < 0) return {0, 0};
  return {static_cast<uint64_t>(t.value / kNanosPerSecond) & kPtpSecondsMask,
          static_cast<uint32_t>(t.value % kNanosPerSecond)};
}
constexpr TaiNs PtpToTai(PtpTimestamp p) {
  return {SaturatingNanos(p.seconds & kPtpSecondsMask, p.nanoseconds)};
}

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TIME_TYPES_H_
