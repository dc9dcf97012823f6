// SPDX-License-Identifier: Apache-2.0
// Fixed-memory streaming percentiles for zg-loadgen: a log-linear histogram
// in the style of HdrHistogram.
//
// LogHistogram counts non-negative integers (nanoseconds here). Values below
// 2^(kSubBucketBits+1) = 256 get one bucket each, so they are exact. Above,
// each power-of-two range [2^m, 2^(m+1)) is cut into 2^kSubBucketBits = 128
// equal buckets, so a bucket is never wider than 1/128 of its lower bound.
// Percentile() reports the middle of the bucket holding the sample of that
// rank (clamped to the exact min and max), so
//
//   |reported - true| <= true * 2^-(kSubBucketBits+1) = true / 256  (0.39 %)
//
// for every percentile, at any sample count, in 58 KiB (7424 buckets of 8 B).
// The ranking is "nearest rank": Percentile(0.99) is the ceil(0.99 * n)-th
// smallest sample, the definition the tests compare against after sorting.
//
// Record() is a few instructions with no allocation: it runs on the lanes'
// hot path. One histogram has one writer; merge lanes' histograms after they
// stop.
//
//   LogHistogram rtt;                      // the owner allocates it once
//   rtt.Record(rtt_ns);                    // per reply
//   uint64_t p99 = rtt.Percentile(0.99);   // at the end
//
// SignedHistogram does the same for signed values (clock offsets): one
// LogHistogram per sign.
#ifndef ZG_BENCH_LOADGEN_HISTOGRAM_H_
#define ZG_BENCH_LOADGEN_HISTOGRAM_H_

#include <array>
#include <bit>
#include <cstdint>

namespace zg::bench {

class LogHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr uint32_t kSubBuckets = 1u << kSubBucketBits;
  // Indices run to (63 - k) * 2^k + 2^(k+1) - 1 for the largest uint64_t.
  static constexpr uint32_t kBucketCount = (65 - kSubBucketBits) * kSubBuckets;
  // The documented bound on |reported - true| / true.
  static constexpr double kMaxRelativeError = 1.0 / (2 * kSubBuckets);

  // The bucket of `v`: v itself below 2^(k+1); above, the bucket number
  // shift * 2^k + (v >> shift) with shift = floor(log2 v) - k.
  static constexpr uint32_t BucketOf(uint64_t v) {
    const int top = 63 - std::countl_zero(v | 1);  // floor(log2 v), 0 for 0
    const int shift = top > kSubBucketBits ? top - kSubBucketBits : 0;
    return (static_cast<uint32_t>(shift) << kSubBucketBits) +
           static_cast<uint32_t>(v >> shift);
  }
  // Smallest value in bucket `b` and the bucket's width (a power of two).
  static constexpr uint64_t BucketLow(uint32_t b) {
    const uint32_t h = b >> kSubBucketBits;
    const uint32_t shift = h > 0 ? h - 1 : 0;
    return static_cast<uint64_t>(b - (shift << kSubBucketBits)) << shift;
  }
  static constexpr uint64_t BucketWidth(uint32_t b) {
    const uint32_t h = b >> kSubBucketBits;
    return uint64_t{1} << (h > 0 ? h - 1 : 0);
  }

  void Record(uint64_t v) {
    ++counts_[BucketOf(v)];
    ++count_;
    sum_ += static_cast<double>(v);
    if (v < min_) min_ = v;
    if (v > max_) max_ = v;
  }

  // Adds every sample of `other`.
  void Merge(const LogHistogram& other);
  void Reset();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }  // exact
  uint64_t max() const { return max_; }                    // exact
  double mean() const { return count_ == 0 ? 0 : sum_ / count_; }

  // The value of nearest rank ceil(q * count) for q in [0, 1] (q <= 0 gives
  // the minimum, q >= 1 the maximum); 0 when empty. Within
  // kMaxRelativeError of the true sample.
  uint64_t Percentile(double q) const;
  // The value of the rank-th smallest sample (1-based, clamped to
  // [1, count]), as Percentile reports it; 0 when empty.
  uint64_t ValueAtRank(uint64_t rank) const;

 private:
  std::array<uint64_t, kBucketCount> counts_{};
  uint64_t count_ = 0;
  double sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

// Signed samples (e.g. the offset a client would compute): negative values
// in one LogHistogram by magnitude, the rest in another, with the same
// relative-error bound.
class SignedHistogram {
 public:
  void Record(int64_t v) {
    if (v < 0) {
      negative_.Record(0 - static_cast<uint64_t>(v));  // exact for INT64_MIN
    } else {
      positive_.Record(static_cast<uint64_t>(v));
    }
  }
  void Merge(const SignedHistogram& other);
  void Reset();

  uint64_t count() const { return negative_.count() + positive_.count(); }
  int64_t min() const;
  int64_t max() const;
  double mean() const;
  // As LogHistogram::Percentile, over the signed order.
  int64_t Percentile(double q) const;

 private:
  LogHistogram negative_;  // magnitudes of the samples below zero
  LogHistogram positive_;  // samples >= 0
};

// The nearest rank of quantile q among n samples: ceil(q * n) clamped to
// [1, n] (0 when n == 0).
uint64_t NearestRank(double q, uint64_t n);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_HISTOGRAM_H_
