// SPDX-License-Identifier: Apache-2.0
// Sample filters: what a reference sample must get past before the servo
// sees it. Three stages, cheapest first:
//
// 1. Burst reduction (PickBest): of the samples one poll returned, keep the
//    one with the smallest uncertainty (a system-clock or PHC read bracketed
//    by the fewest raw ticks is the least disturbed, as phc2sys and chrony's
//    PHC driver do).
// 2. Outlier ("popcorn spike") filter (OutlierFilter): once the servo is
//    stable, a sample whose offset lies further from the median of the last
//    `window` accepted offsets than
//        max(mad_multiplier * 1.4826 * MAD, min_gate_ns) + its uncertainty
//    is dropped (MAD: median absolute deviation; 1.4826 * MAD estimates sigma
//    for Gaussian noise, robust to the outliers themselves). After
//    `max_consecutive` drops in a row the level has moved rather than spiked:
//    the window restarts and the sample passes on to stage 3.
// 3. Jump / spoof gate (CheckJump): a sample whose offset from the model's
//    prediction exceeds the model's current error bound plus the sample's
//    uncertainty plus `margin_ns` contradicts what we know — either the
//    reference jumped (a spoofer, a GNSS receiver losing its fix, an operator
//    setting the clock) or our bound is wrong. It is rejected and reported
//    (the caller counts it and emits an audit event); the model is stepped
//    only at start-up, or when the configuration explicitly allows it.
//
//   OutlierFilter popcorn({});
//   if (popcorn.Check(offset_ns, s.uncertainty_ns, servo_stable) ==
//       FilterVerdict::kOutlier) { ...count, report... }
//   GateResult g = CheckJump(offset_ns, s.uncertainty_ns, bound_ns, {});
//   if (!g.accept) { ...report g.limit_ns... }
#ifndef ZG_SERVO_SAMPLE_FILTER_H_
#define ZG_SERVO_SAMPLE_FILTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

// Stage 1: the sample with the smallest uncertainty (the earliest of equals);
// nullptr for an empty span.
const ReferenceSample* PickBest(absl::Span<const ReferenceSample> samples);

struct OutlierFilterConfig {
  int window = 9;               // accepted offsets kept for the median
  double mad_multiplier = 5.0;  // sigmas (via 1.4826 * MAD) allowed
  int64_t min_gate_ns = 20;     // gate floor, for near-noiseless sources
  int max_consecutive = 4;      // drops in a row before the window restarts
};

absl::Status ValidateOutlierFilterConfig(const OutlierFilterConfig& config);

enum class FilterVerdict : uint8_t { kAccept, kOutlier };

class OutlierFilter {
 public:
  explicit OutlierFilter(const OutlierFilterConfig& config);

  // `gate`: whether to judge at all (false while the servo converges and the
  // offsets legitimately trend); every sample not judged an outlier enters
  // the window.
  FilterVerdict Check(double offset_ns, int64_t uncertainty_ns, bool gate);
  void Reset();

  // The current gate half-width without the sample's uncertainty (ns);
  // 0 while the window holds fewer than 3 offsets.
  double GateNs() const;
  uint64_t outliers() const { return outliers_; }
  uint64_t restarts() const { return restarts_; }

 private:
  double Median(std::vector<double>* scratch) const;

  OutlierFilterConfig config_;
  std::vector<double> window_;  // ring of accepted offsets
  size_t next_ = 0;
  int consecutive_ = 0;
  uint64_t outliers_ = 0;
  uint64_t restarts_ = 0;
  mutable std::vector<double> scratch_;
};

struct JumpGateConfig {
  int64_t margin_ns = 1'000;
};

struct GateResult {
  bool accept = true;
  int64_t limit_ns = 0;  // |offset| allowed; INT64_MAX when unbounded
};

// Stage 3. `bound_ns` < 0 means the model has no bound (free-running):
// everything passes.
GateResult CheckJump(double offset_ns, int64_t uncertainty_ns, int64_t bound_ns,
                     const JumpGateConfig& config);

}  // namespace zg::servo

#endif  // ZG_SERVO_SAMPLE_FILTER_H_
