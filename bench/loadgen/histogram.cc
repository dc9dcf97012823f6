// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/histogram.h"

#include <algorithm>
#include <cmath>

namespace zg::bench {

uint64_t NearestRank(double q, uint64_t n) {
  if (n == 0) return 0;
  if (!(q > 0)) return 1;  // also NaN
  if (q >= 1) return n;
  const double r = std::ceil(q * static_cast<double>(n));
  if (r < 1) return 1;
  if (r >= static_cast<double>(n)) return n;
  return static_cast<uint64_t>(r);
}

void LogHistogram::Merge(const LogHistogram& other) {
  for (uint32_t b = 0; b < kBucketCount; ++b) counts_[b] += other.counts_[b];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LogHistogram::Reset() { *this = LogHistogram(); }

uint64_t LogHistogram::ValueAtRank(uint64_t rank) const {
  if (count_ == 0) return 0;
  rank = std::clamp<uint64_t>(rank, 1, count_);
  // The extremes are known exactly; no need to report a bucket's middle.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  for (uint32_t b = 0; b < kBucketCount; ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      const uint64_t mid = BucketLow(b) + (BucketWidth(b) - 1) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;  // unreachable: the counts sum to count_
}

uint64_t LogHistogram::Percentile(double q) const {
  return ValueAtRank(NearestRank(q, count_));
}

namespace {
// -magnitude as int64_t; magnitudes up to 2^63 (INT64_MIN) are exact.
int64_t Negate(uint64_t magnitude) {
  return static_cast<int64_t>(0 - magnitude);
}
int64_t Positive(uint64_t v) {
  return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                              : static_cast<int64_t>(v);
}
}  // namespace

void SignedHistogram::Merge(const SignedHistogram& other) {
  negative_.Merge(other.negative_);
  positive_.Merge(other.positive_);
}

void SignedHistogram::Reset() {
  negative_.Reset();
  positive_.Reset();
}

int64_t SignedHistogram::min() const {
  if (negative_.count() > 0) return Negate(negative_.max());
  return Positive(positive_.min());
}

int64_t SignedHistogram::max() const {
  if (positive_.count() > 0) return Positive(positive_.max());
  return Negate(negative_.min());
}

double SignedHistogram::mean() const {
  const uint64_t n = count();
  if (n == 0) return 0;
  const double sum = positive_.mean() * positive_.count() -
                     negative_.mean() * negative_.count();
  return sum / n;
}

int64_t SignedHistogram::Percentile(double q) const {
  const uint64_t n = count();
  if (n == 0) return 0;
  const uint64_t rank = NearestRank(q, n);
  const uint64_t negatives = negative_.count();
  // In signed order the negatives come first, largest magnitude first.
  if (rank <= negatives) {
    return Negate(negative_.ValueAtRank(negatives - rank + 1));
  }
  return Positive(positive_.ValueAtRank(rank - negatives));
}

}  // namespace zg::bench
