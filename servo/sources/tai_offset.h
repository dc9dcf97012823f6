// SPDX-License-Identifier: Apache-2.0
// TAI-UTC for the reference sources that read UTC (CLOCK_REALTIME, PPS
// seconds, gpsd's "real" time).
//
// The leap-second table (servo/leap/leap_file.h, core/time/leap_seconds.h) is
// owned by another module; sources take it as a callback so they do not depend
// on how it is loaded:
//
//   TaiMinusUtcFn fn = [&table](core::UtcNs t) { return table.TaiMinusUtc(t);
//   }; std::optional<core::TaiNs> tai = UtcToTaiUnambiguous(utc, fn);
//
// During an inserted leap second POSIX UTC repeats 23:59:59, so a UTC reading
// within one second of a leap is ambiguous: UtcToTaiUnambiguous returns
// nullopt there and sources skip the sample (for at most two seconds, once
// every few years).
#ifndef ZG_SERVO_TAI_OFFSET_H_
#define ZG_SERVO_TAI_OFFSET_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "core/time/time_types.h"

namespace zg::servo {

// TAI-UTC in whole seconds in effect at UTC instant `t` (37 since 2017).
// Called by the control thread only.
using TaiMinusUtcFn = std::function<int32_t(core::UtcNs)>;

// A constant offset, for tests and for sites without a leap-seconds file.
inline TaiMinusUtcFn FixedTaiMinusUtc(int32_t seconds) {
  return [seconds](core::UtcNs) { return seconds; };
}

// UTC -> TAI, or nullopt when `utc` is within one second of a change of
// TAI-UTC (the repeated/skipped second makes the mapping ambiguous).
inline std::optional<core::TaiNs> UtcToTaiUnambiguous(
    core::UtcNs utc, const TaiMinusUtcFn& tai_minus_utc) {
  const int32_t before = tai_minus_utc(utc - core::kNanosPerSecond);
  const int32_t after = tai_minus_utc(utc + core::kNanosPerSecond);
  if (before != after) return std::nullopt;
  return core::TaiNs{utc.value + int64_t{after} * core::kNanosPerSecond};
}

}  // namespace zg::servo

#endif  // ZG_SERVO_TAI_OFFSET_H_
