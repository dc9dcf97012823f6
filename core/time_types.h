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
// the leap-second table (core/leap_seconds.h). Everything here is exact where
// the formats allow it: UtcNs -> NtpTimestamp -> UtcNs round-trips every
// nanosecond, and TaiNs <-> PtpTimestamp is lossless for non-negative times.
//
//   UtcNs now{1'700'000'000'000'000'000};
//   NtpTimestamp wire = UtcToNtp(now);
//   UtcNs back = NtpToUtc(wire, /*pivot=*/now);   // back == now
#ifndef ZG_CORE_TIME_TYPES_H_
#define ZG_CORE_TIME_TYPES_H_

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
struct PtpCorrection {
  int64_t scaled_ns = 0;
  friend constexpr bool operator==(PtpCorrection, PtpCorrection) = default;
  static constexpr PtpCorrection FromNanos(int64_t ns) {
    return {static_cast<int64_t>(static_cast<uint64_t>(ns) << 16)};
  }
  // Whole nanoseconds, rounded toward negative infinity.
  constexpr int64_t Nanos() const { return scaled_ns >> 16; }
};

// ---- Conversions -----------------------------------------------------------

// Floor division and modulo for signed nanoseconds.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
constexpr int64_t FloorMod(int64_t a, int64_t b) {
  return a - FloorDiv(a, b) * b;
}

// Nanoseconds (0..1e9-1) to a 32-bit NTP fraction, rounded to nearest.
constexpr uint32_t NanosToNtpFraction(uint32_t ns) {
  return static_cast<uint32_t>(((uint64_t{ns} << 32) + kNanosPerSecond / 2) /
                               kNanosPerSecond);
}
// 32-bit NTP fraction to nanoseconds, rounded to nearest (may yield 1e9 for
// fractions within half a nanosecond of the next second; callers carry).
constexpr uint64_t NtpFractionToNanos(uint32_t frac) {
  return (uint64_t{frac} * kNanosPerSecond + (uint64_t{1} << 31)) >> 32;
}

// UTC -> NTP wire timestamp (era dropped). Exact to the nanosecond: the
// round trip through NtpToUtc with a pivot within 68 years returns `t`.
constexpr NtpTimestamp UtcToNtp(UtcNs t) {
  const int64_t s = FloorDiv(t.value, kNanosPerSecond);
  const uint32_t ns = static_cast<uint32_t>(t.value - s * kNanosPerSecond);
  return {static_cast<uint32_t>(
              static_cast<uint64_t>(s + kNtpUnixEpochOffsetSeconds)),
          NanosToNtpFraction(ns)};
}

// NTP wire timestamp -> UTC, choosing the era that puts the result within
// +-2^31 seconds (about 68 years) of `pivot` (RFC 5905 section 6; pass the
// local clock). Correct across 2036-02-07T06:28:16Z and every later era.
constexpr UtcNs NtpToUtc(NtpTimestamp ts, UtcNs pivot) {
  const int64_t pivot_ntp_s =
      FloorDiv(pivot.value, kNanosPerSecond) + kNtpUnixEpochOffsetSeconds;
  // Signed 32-bit distance between the pivot's low 32 bits and ts.seconds.
  const int32_t diff = static_cast<int32_t>(
      ts.seconds - static_cast<uint32_t>(static_cast<uint64_t>(pivot_ntp_s)));
  const int64_t ntp_s = pivot_ntp_s + diff;
  return {(ntp_s - kNtpUnixEpochOffsetSeconds) * kNanosPerSecond +
          static_cast<int64_t>(NtpFractionToNanos(ts.fraction))};
}

// NtpDate <-> UTC (exact to the nanosecond in both directions for UtcNs).
constexpr NtpDate UtcToNtpDate(UtcNs t) {
  const int64_t s =
      FloorDiv(t.value, kNanosPerSecond) + kNtpUnixEpochOffsetSeconds;
  const uint32_t ns = static_cast<uint32_t>(FloorMod(t.value, kNanosPerSecond));
  return {static_cast<int32_t>(FloorDiv(s, int64_t{1} << 32)),
          static_cast<uint32_t>(FloorMod(s, int64_t{1} << 32)),
          uint64_t{NanosToNtpFraction(ns)} << 32};
}
constexpr UtcNs NtpDateToUtc(const NtpDate& d) {
  const int64_t s = int64_t{d.era} * (int64_t{1} << 32) + d.era_offset_s -
                    kNtpUnixEpochOffsetSeconds;
  const unsigned __int128 frac_ns =
      (static_cast<unsigned __int128>(d.fraction) * kNanosPerSecond +
       (static_cast<unsigned __int128>(1) << 63)) >>
      64;
  return {s * kNanosPerSecond + static_cast<int64_t>(frac_ns)};
}
// The era of a full NTP date (floor of seconds-since-1900 / 2^32).
constexpr NtpDate NtpTimestampToDate(NtpTimestamp ts, UtcNs pivot) {
  return UtcToNtpDate(NtpToUtc(ts, pivot));
}

// Durations <-> NTP short format (16.16), saturating at the format's limits.
constexpr NtpShort NanosToNtpShort(int64_t d_ns) {
  if (d_ns <= 0) return {0, 0};
  const __int128 v = (static_cast<__int128>(d_ns) << 16) / kNanosPerSecond;
  if (v > 0xffffffff) return {0xffff, 0xffff};
  return NtpShort::FromU32(static_cast<uint32_t>(v));
}
constexpr int64_t NtpShortToNanos(NtpShort s) {
  return static_cast<int64_t>((uint64_t{s.ToU32()} * kNanosPerSecond) >> 16);
}

// TAI <-> PTP timestamp. Times before the PTP epoch clamp to zero.
constexpr PtpTimestamp TaiToPtp(TaiNs t) {
  if (t.value < 0) return {0, 0};
  return {static_cast<uint64_t>(t.value / kNanosPerSecond) & kPtpSecondsMask,
          static_cast<uint32_t>(t.value % kNanosPerSecond)};
}
constexpr TaiNs PtpToTai(PtpTimestamp p) {
  return {static_cast<int64_t>(p.seconds & kPtpSecondsMask) * kNanosPerSecond +
          p.nanoseconds};
}

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TYPES_H_
