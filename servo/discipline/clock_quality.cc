// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/clock_quality.h"

#include <algorithm>
#include <cmath>

namespace zg::servo {

using core::SyncState;

uint8_t ClockClassFor(SyncState state, bool source_time_traceable,
                      FrequencyCategory category, const ClassPolicy& policy) {
  if (!source_time_traceable) return kClockClassDefault;
  switch (state) {
    case SyncState::kLocked:
      return 6;
    case SyncState::kHoldoverInSpec:
      return policy.profile == ClassProfile::kG8275Bc ? 135 : 7;
    case SyncState::kHoldoverOutOfSpec:
      switch (policy.profile) {
        case ClassProfile::kIeee1588:
          return policy.degradation_alternative_b ? 187 : 52;
        case ClassProfile::kG8275Bc:
          return 165;
        case ClassProfile::kG8275Gm:
          switch (category) {
            case FrequencyCategory::kCategory1:
              return 140;
            case FrequencyCategory::kCategory2:
              return 150;
            case FrequencyCategory::kCategory3:
              return 160;
          }
          return 160;
      }
      return kClockClassDefault;
    case SyncState::kFreerun:
    case SyncState::kLocking:
      break;
  }
  return kClockClassDefault;
}

uint8_t ClockAccuracyForBound(int64_t bound_ns) {
  if (bound_ns < 0) return kClockAccuracyUnknown;
  // Upper limits in picoseconds for 0x17.. (1 ps, 2.5 ps, 10 ps, 25 ps, ...);
  // the 1-2.5-10 ladder continues to 10 s (0x30); beyond is 0x31.
  static constexpr double kLimitsPs[] = {
      1,     2.5,   10,    25,     100,   250,    1e3,   2.5e3, 1e4,
      2.5e4, 1e5,   2.5e5, 1e6,    2.5e6, 1e7,    2.5e7, 1e8,   2.5e8,
      1e9,   2.5e9, 1e10,  2.5e10, 1e11,  2.5e11, 1e12,  1e13};
  const double ps = static_cast<double>(bound_ns) * 1e3;
  uint8_t code = 0x17;
  for (double limit : kLimitsPs) {
    if (ps <= limit) return code;
    ++code;
  }
  return 0x31;
}

double TimeVarianceNs2(absl::Span<const double> x) {
  if (x.size() < 3) return 0.0;
  double sum = 0;
  for (size_t i = 0; i + 2 < x.size(); ++i) {
    const double d2 = x[i + 2] - 2 * x[i + 1] + x[i];
    sum += d2 * d2;
  }
  return sum / (6.0 * static_cast<double>(x.size() - 2));
}

uint16_t OffsetScaledLogVariance(double variance_s2) {
  if (!(variance_s2 > 0) || !std::isfinite(variance_s2)) {
    return kVarianceUnknown;
  }
  const double v = 32768.0 + std::round(256.0 * std::log2(variance_s2));
  return static_cast<uint16_t>(std::clamp(v, 0.0, 65534.0));
}

uint8_t NtpStratumFor(SyncState state, uint8_t source_stratum) {
  switch (state) {
    case SyncState::kLocking:
    case SyncState::kLocked:
    case SyncState::kHoldoverInSpec:
      return static_cast<uint8_t>(
          std::clamp<int>(int{source_stratum} + 1, 1, 15));
    case SyncState::kFreerun:
    case SyncState::kHoldoverOutOfSpec:
      break;
  }
  return 16;
}

}  // namespace zg::servo
