// SPDX-License-Identifier: Apache-2.0
#include "core/time/tx_kick_estimate.h"

#include <algorithm>

namespace zg::core {

const char* TxStampPlacementName(TxStampPlacement p) {
  switch (p) {
    case TxStampPlacement::kBefore:
      return "before";
    case TxStampPlacement::kMidpoint:
      return "midpoint";
    case TxStampPlacement::kAfter:
      return "after";
  }
  return "?";
}

std::optional<TxStampPlacement> ParseTxStampPlacement(std::string_view s) {
  if (s == "before") return TxStampPlacement::kBefore;
  if (s == "midpoint") return TxStampPlacement::kMidpoint;
  if (s == "after") return TxStampPlacement::kAfter;
  return std::nullopt;
}

TxKickEstimate::TxKickEstimate(TxStampPlacement placement,
                               uint64_t max_sample_ticks)
    : placement_(placement), max_sample_ticks_(max_sample_ticks) {}

void TxKickEstimate::Record(uint16_t n, uint64_t stamp_tsc, uint64_t entry_tsc,
                            uint64_t return_tsc) {
  if (n == 0) return;
  if (entry_tsc < stamp_tsc || return_tsc < entry_tsc ||
      (max_sample_ticks_ != 0 && return_tsc - stamp_tsc > max_sample_ticks_)) {
    ++outliers_;
    return;
  }
  // Shifted into fixed point; a bracket is far below 2^(64-kFrac) ticks
  // (max_sample_ticks_ bounds it in the worker).
  const uint64_t finalise_q = (entry_tsc - stamp_tsc) << kFrac;
  const uint64_t kick_q = (return_tsc - entry_tsc) << kFrac;
  Bucket& b = buckets_[Index(n)];
  ++samples_;
  if (!b.seeded) {
    b = {finalise_q, kick_q, true};
    return;
  }
  // A running median: one step of 2^-kShift of the current value (at least
  // one tick) towards the sample, never past it. A mean would follow the
  // long tail of preempted calls (a worker sharing its core is descheduled
  // inside the sendto after the frame has left).
  auto track = [](uint64_t avg, uint64_t x) {
    const uint64_t step =
        std::max<uint64_t>(avg >> kShift, uint64_t{1} << kFrac);
    return x >= avg ? avg + std::min(step, x - avg)
                    : avg - std::min(step, avg - x);
  };
  b.finalise_q = track(b.finalise_q, finalise_q);
  b.kick_q = track(b.kick_q, kick_q);
}

const TxKickEstimate::Bucket* TxKickEstimate::Find(uint16_t n) const {
  const int i = Index(n);
  for (int j = i; j >= 0; --j) {
    if (buckets_[j].seeded) return &buckets_[j];
  }
  for (int j = i + 1; j < kMaxBatch; ++j) {
    if (buckets_[j].seeded) return &buckets_[j];
  }
  return nullptr;
}

uint64_t TxKickEstimate::FinaliseAverage(uint16_t n) const {
  const Bucket& b = buckets_[Index(n)];
  return b.seeded ? b.finalise_q >> kFrac : 0;
}

uint64_t TxKickEstimate::KickAverage(uint16_t n) const {
  const Bucket& b = buckets_[Index(n)];
  return b.seeded ? b.kick_q >> kFrac : 0;
}

uint64_t TxKickEstimate::KickTicks(uint16_t n) const {
  if (placement_ == TxStampPlacement::kBefore) return 0;
  const Bucket* b = Find(n);
  if (b == nullptr) return 0;
  return placement_ == TxStampPlacement::kAfter ? b->kick_q >> kFrac
                                                : b->kick_q >> (kFrac + 1);
}

uint64_t TxKickEstimate::LeaveTicks(uint16_t n) const {
  if (placement_ == TxStampPlacement::kBefore) return 0;
  const Bucket* b = Find(n);
  if (b == nullptr) return 0;
  return (b->finalise_q >> kFrac) + KickTicks(n);
}

}  // namespace zg::core
