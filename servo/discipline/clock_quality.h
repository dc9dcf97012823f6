// SPDX-License-Identifier: Apache-2.0
// How the clock's state and error are advertised: PTP clockClass,
// clockAccuracy and offsetScaledLogVariance, and NTP stratum.
//
// clockClass by profile (locked to a time-traceable source):
//
//   state                  IEEE 1588 default   G.8275 T-GM      G.8275 T-BC
//   LOCKED                 6                   6                6
//   HOLDOVER_IN_SPEC       7                   7                135
//   HOLDOVER_OUT_OF_SPEC   52 (alt. A) or      140 / 150 / 160  165
//                          187 (alt. B)        (category 1/2/3)
//   FREERUN, LOCKING       248                 248              248
//
// IEEE 1588-2008 table 5: 6 = synchronized to a primary reference time
// source; 7 = was, and is in holdover within specification; 52 / 187 =
// degradation alternatives A / B for a class-7 clock out of holdover
// specification (B: may become a slave); 248 = default. ITU-T G.8275.1 /
// G.8275.2: T-GM 6 locked to a PRTC, 7 holdover in spec, 140/150/160 out of
// spec with a category 1/2/3 frequency source; T-BC 135 / 165 in / out of
// holdover spec; 248 free-run. A source that is not time-traceable (e.g. a
// system clock disciplined by stratum-2 NTP) yields 248 in every state: 6, 7
// and their degradations all claim a primary reference.
//
// clockAccuracy: the smallest IEEE 1588 table 6 (2019 edition) class that
// covers the error bound, 0x17 (1 ps) .. 0x31 (> 10 s); 0xFE unknown.
//
// offsetScaledLogVariance (IEEE 1588 7.6.3): the PTP variance is the time
// variance at the sync interval tau0, TVAR(tau0) = <(x[i+2] - 2 x[i+1] +
// x[i])^2> / 6 over consecutive time errors x (the observed offsets, in s);
// the field is 0x8000 + round(256 * log2(TVAR / s^2)), clamped to
// [0, 0xFFFE]; 0xFFFF when not computed.
//
//   uint8_t cls = ClockClassFor(core::SyncState::kLocked, true,
//                               FrequencyCategory::kCategory2, ClassPolicy{});
#ifndef ZG_SERVO_CLOCK_QUALITY_H_
#define ZG_SERVO_CLOCK_QUALITY_H_

#include <cstdint>

#include "absl/types/span.h"
#include "core/time/clock_model.h"
#include "servo/holdover/oscillator.h"

namespace zg::servo {

enum class ClassProfile : uint8_t { kIeee1588, kG8275Gm, kG8275Bc };

struct ClassPolicy {
  ClassProfile profile = ClassProfile::kIeee1588;
  bool degradation_alternative_b = false;  // 187 instead of 52 (1588 only)
};

inline constexpr uint8_t kClockClassDefault = 248;
inline constexpr uint8_t kClockAccuracyUnknown = 0xFE;
inline constexpr uint16_t kVarianceUnknown = 0xFFFF;

uint8_t ClockClassFor(core::SyncState state, bool source_time_traceable,
                      FrequencyCategory category, const ClassPolicy& policy);

uint8_t ClockAccuracyForBound(int64_t bound_ns);

// TVAR at tau0 (ns^2) of consecutive time errors in ns; 0 with fewer than 3.
double TimeVarianceNs2(absl::Span<const double> errors_ns);

// The 1588 encoding of a variance in s^2 (kVarianceUnknown if not > 0).
uint16_t OffsetScaledLogVariance(double variance_s2);

// source stratum + 1 (clamped to 1..15) while the time is usable (LOCKING,
// LOCKED, HOLDOVER_IN_SPEC); 16 otherwise.
uint8_t NtpStratumFor(core::SyncState state, uint8_t source_stratum);

}  // namespace zg::servo

#endif  // ZG_SERVO_CLOCK_QUALITY_H_
