// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace zg::bench {
namespace histogram_test {
namespace {

// Nearest-rank percentile of sorted samples: the definition under test.
template <typename T>
T ExactPercentile(const std::vector<T>& sorted, double q) {
  return sorted[NearestRank(q, sorted.size()) - 1];
}

const double kQuantiles[] = {0,    0.001, 0.01, 0.1,   0.25,   0.5,
                             0.75, 0.9,   0.99, 0.999, 0.9999, 1};

TEST(LogHistogramTest, BucketsTileTheRangeInOrder) {
  // Exhaustively over the first 2^20 values, then at every power-of-two
  // boundary and at random up to 2^64 - 1.
  uint32_t prev = 0;
  for (uint64_t v = 0; v < (1u << 20); ++v) {
    const uint32_t b = LogHistogram::BucketOf(v);
    ASSERT_LE(LogHistogram::BucketLow(b), v);
    ASSERT_LT(v - LogHistogram::BucketLow(b), LogHistogram::BucketWidth(b));
    ASSERT_TRUE(b == prev || b == prev + 1) << v;  // contiguous, monotonic
    prev = b;
  }
  std::mt19937_64 rng(7);
  std::vector<uint64_t> values = {UINT64_MAX, uint64_t{1} << 63};
  for (int bit = 0; bit < 64; ++bit) {
    values.push_back(uint64_t{1} << bit);
    values.push_back((uint64_t{1} << bit) - 1);
  }
  for (int i = 0; i < 100000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    const uint32_t b = LogHistogram::BucketOf(v);
    ASSERT_LT(b, LogHistogram::kBucketCount) << v;
    ASSERT_LE(LogHistogram::BucketLow(b), v);
    ASSERT_LE(v - LogHistogram::BucketLow(b), LogHistogram::BucketWidth(b) - 1);
    // A bucket is never wider than 2^-7 of its lowest value (past the exact
    // range).
    if (v >= 256) {
      ASSERT_LE(LogHistogram::BucketWidth(b) * LogHistogram::kSubBuckets,
                LogHistogram::BucketLow(b))
          << v;
    } else {
      ASSERT_EQ(LogHistogram::BucketWidth(b), 1u);
    }
  }
  EXPECT_EQ(LogHistogram::BucketOf(UINT64_MAX), LogHistogram::kBucketCount - 1);
}

TEST(LogHistogramTest, EmptyReportsZeros) {
  auto h = std::make_unique<LogHistogram>();
  EXPECT_EQ(h->count(), 0u);
  EXPECT_EQ(h->min(), 0u);
  EXPECT_EQ(h->max(), 0u);
  EXPECT_EQ(h->mean(), 0);
  EXPECT_EQ(h->Percentile(0.5), 0u);
  EXPECT_EQ(h->ValueAtRank(1), 0u);
}

TEST(LogHistogramTest, SmallValuesAreExact) {
  auto h = std::make_unique<LogHistogram>();
  std::vector<uint64_t> v;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 5000; ++i) v.push_back(rng() % 256);
  for (uint64_t x : v) h->Record(x);
  std::sort(v.begin(), v.end());
  for (double q : kQuantiles) {
    EXPECT_EQ(h->Percentile(q), ExactPercentile(v, q)) << q;
  }
}

// Percentiles of several shapes against the exact sorted answer, within the
// documented relative error.
class LogHistogramDistributionTest : public ::testing::TestWithParam<int> {};

std::vector<uint64_t> Samples(int shape, size_t n) {
  std::mt19937_64 rng(1000 + shape);
  std::vector<uint64_t> v;
  v.reserve(n);
  std::uniform_int_distribution<uint64_t> uniform(0, 2'000'000);
  std::exponential_distribution<double> expo(1.0 / 20'000);
  std::lognormal_distribution<double> lognormal(9.0, 1.5);  // heavy tail
  for (size_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0:
        v.push_back(uniform(rng));
        break;
      case 1:
        v.push_back(static_cast<uint64_t>(expo(rng)));
        break;
      case 2:
        v.push_back(static_cast<uint64_t>(lognormal(rng)));
        break;
      case 3:  // bimodal: fast path and a rare slow one
        v.push_back(i % 1000 == 0 ? 5'000'000 + rng() % 100'000
                                  : 800 + rng() % 400);
        break;
      default:  // the full 64-bit range
        v.push_back(rng() >> (rng() % 64));
        break;
    }
  }
  return v;
}

TEST_P(LogHistogramDistributionTest, PercentilesWithinDocumentedError) {
  std::vector<uint64_t> v = Samples(GetParam(), 200'000);
  auto h = std::make_unique<LogHistogram>();
  long double sum = 0;
  for (uint64_t x : v) {
    h->Record(x);
    sum += x;
  }
  std::sort(v.begin(), v.end());
  ASSERT_EQ(h->count(), v.size());
  EXPECT_EQ(h->min(), v.front());
  EXPECT_EQ(h->max(), v.back());
  EXPECT_NEAR(h->mean(), static_cast<double>(sum / v.size()),
              1e-9 * static_cast<double>(sum / v.size()));
  std::vector<double> qs(std::begin(kQuantiles), std::end(kQuantiles));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) qs.push_back((rng() % 1'000'000) / 1e6);
  for (double q : qs) {
    const uint64_t exact = ExactPercentile(v, q);
    const uint64_t got = h->Percentile(q);
    const double err =
        std::fabs(static_cast<double>(got) - static_cast<double>(exact));
    EXPECT_LE(err, LogHistogram::kMaxRelativeError * static_cast<double>(exact))
        << "q=" << q << " exact=" << exact << " got=" << got;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LogHistogramDistributionTest,
                         ::testing::Range(0, 5));

TEST(LogHistogramTest, TheBoundIsTight) {
  // A sample at the low end of a wide bucket is reported at its middle:
  // the error approaches, and never exceeds, the documented bound.
  auto h = std::make_unique<LogHistogram>();
  const uint64_t low = uint64_t{1} << 20;  // a bucket [2^20, 2^20 + 2^13)
  h->Record(1);
  h->Record(low);
  h->Record(UINT64_C(1) << 40);
  const uint64_t got = h->Percentile(0.5);
  const double rel = static_cast<double>(got - low) / low;
  EXPECT_GT(rel, 0.9 * LogHistogram::kMaxRelativeError);
  EXPECT_LE(rel, LogHistogram::kMaxRelativeError);
}

TEST(LogHistogramTest, ExtremesAreExact) {
  auto h = std::make_unique<LogHistogram>();
  h->Record(UINT64_MAX);
  h->Record(0);
  h->Record(12345678901234ull);
  EXPECT_EQ(h->Percentile(0), 0u);
  EXPECT_EQ(h->Percentile(1), UINT64_MAX);
  EXPECT_EQ(h->max(), UINT64_MAX);
}

TEST(LogHistogramTest, MergeEqualsOneHistogramOfAllSamples) {
  std::vector<uint64_t> v = Samples(2, 30'000);
  auto all = std::make_unique<LogHistogram>();
  auto a = std::make_unique<LogHistogram>();
  auto b = std::make_unique<LogHistogram>();
  for (size_t i = 0; i < v.size(); ++i) {
    all->Record(v[i]);
    (i % 3 == 0 ? *a : *b).Record(v[i]);
  }
  a->Merge(*b);
  EXPECT_EQ(a->count(), all->count());
  EXPECT_EQ(a->min(), all->min());
  EXPECT_EQ(a->max(), all->max());
  EXPECT_NEAR(a->mean(), all->mean(), 1e-6 * all->mean());
  for (double q : kQuantiles) EXPECT_EQ(a->Percentile(q), all->Percentile(q));
  a->Reset();
  EXPECT_EQ(a->count(), 0u);
  EXPECT_EQ(a->Percentile(0.5), 0u);
}

TEST(NearestRankTest, Definition) {
  EXPECT_EQ(NearestRank(0.5, 0), 0u);
  EXPECT_EQ(NearestRank(0, 10), 1u);
  EXPECT_EQ(NearestRank(0.1, 10), 1u);
  EXPECT_EQ(NearestRank(0.11, 10), 2u);
  EXPECT_EQ(NearestRank(0.5, 10), 5u);
  EXPECT_EQ(NearestRank(0.99, 10), 10u);
  EXPECT_EQ(NearestRank(1, 10), 10u);
  EXPECT_EQ(NearestRank(2, 10), 10u);
  EXPECT_EQ(NearestRank(-1, 10), 1u);
  EXPECT_EQ(NearestRank(std::nan(""), 10), 1u);
  EXPECT_EQ(NearestRank(0.999, 100000), 99900u);
}

TEST(SignedHistogramTest, PercentilesOverBothSigns) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> offset(-300, 2000);  // ns
  std::vector<int64_t> v;
  auto h = std::make_unique<SignedHistogram>();
  for (int i = 0; i < 100'000; ++i) {
    const int64_t x = static_cast<int64_t>(offset(rng));
    v.push_back(x);
    h->Record(x);
  }
  std::sort(v.begin(), v.end());
  EXPECT_EQ(h->count(), v.size());
  EXPECT_EQ(h->min(), v.front());
  EXPECT_EQ(h->max(), v.back());
  double sum = 0;
  for (int64_t x : v) sum += x;
  EXPECT_NEAR(h->mean(), sum / v.size(), 1e-6);
  for (double q : kQuantiles) {
    const int64_t exact = ExactPercentile(v, q);
    const int64_t got = h->Percentile(q);
    EXPECT_LE(std::fabs(static_cast<double>(got - exact)),
              LogHistogram::kMaxRelativeError * std::fabs(exact))
        << "q=" << q << " exact=" << exact << " got=" << got;
    if (exact != 0) {
      EXPECT_EQ(got < 0, exact < 0) << q;  // sign kept
    }
  }
}

TEST(SignedHistogramTest, Int64Extremes) {
  auto h = std::make_unique<SignedHistogram>();
  h->Record(INT64_MIN);
  h->Record(INT64_MAX);
  h->Record(0);
  EXPECT_EQ(h->min(), INT64_MIN);
  EXPECT_EQ(h->max(), INT64_MAX);
  EXPECT_EQ(h->Percentile(0), INT64_MIN);
  EXPECT_EQ(h->Percentile(0.5), 0);
  EXPECT_EQ(h->Percentile(1), INT64_MAX);
}

TEST(SignedHistogramTest, AllNegativeAndMerge) {
  auto a = std::make_unique<SignedHistogram>();
  auto b = std::make_unique<SignedHistogram>();
  // Magnitudes below 256 are exact.
  for (int64_t x = -200; x < 0; ++x) a->Record(x);
  EXPECT_EQ(a->max(), -1);
  EXPECT_EQ(a->min(), -200);
  EXPECT_EQ(a->Percentile(0.5), -101);  // rank 100 of -200..-1
  for (int64_t x = 0; x < 200; ++x) b->Record(x);
  a->Merge(*b);
  EXPECT_EQ(a->count(), 400u);
  EXPECT_EQ(a->Percentile(0.5), -1);    // rank 200
  EXPECT_EQ(a->Percentile(0.5024), 0);  // rank ceil(200.96) = 201
  EXPECT_EQ(a->Percentile(0.75), 99);   // rank 300
}

}  // namespace
}  // namespace histogram_test
}  // namespace zg::bench
