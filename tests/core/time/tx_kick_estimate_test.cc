// SPDX-License-Identifier: Apache-2.0
#include "core/time/tx_kick_estimate.h"

#include <gtest/gtest.h>

namespace zg::core {
namespace tx_kick_estimate_test {
namespace {

TEST(TxStampPlacement, NamesRoundTrip) {
  for (TxStampPlacement p :
       {TxStampPlacement::kBefore, TxStampPlacement::kMidpoint,
        TxStampPlacement::kAfter}) {
    EXPECT_EQ(ParseTxStampPlacement(TxStampPlacementName(p)), p);
  }
  EXPECT_FALSE(ParseTxStampPlacement("").has_value());
  EXPECT_FALSE(ParseTxStampPlacement("Midpoint").has_value());
  EXPECT_FALSE(ParseTxStampPlacement("late").has_value());
}

TEST(TxKickEstimate, NothingBeforeTheFirstBracket) {
  TxKickEstimate e(TxStampPlacement::kAfter);
  EXPECT_EQ(e.LeaveTicks(1), 0u);
  EXPECT_EQ(e.KickTicks(16), 0u);
  EXPECT_EQ(e.samples(), 0u);
}

TEST(TxKickEstimate, FirstBracketSeedsThePlacements) {
  // finalise 100 ticks, kick 1000.
  TxKickEstimate after(TxStampPlacement::kAfter);
  TxKickEstimate mid(TxStampPlacement::kMidpoint);
  TxKickEstimate before(TxStampPlacement::kBefore);
  for (TxKickEstimate* e : {&after, &mid, &before}) {
    e->Record(1, 5000, 5100, 6100);
  }
  EXPECT_EQ(after.LeaveTicks(1), 1100u);
  EXPECT_EQ(after.KickTicks(1), 1000u);
  EXPECT_EQ(mid.LeaveTicks(1), 600u);
  EXPECT_EQ(mid.KickTicks(1), 500u);
  EXPECT_EQ(before.LeaveTicks(1), 0u);
  EXPECT_EQ(before.KickTicks(1), 0u);
  EXPECT_EQ(after.FinaliseAverage(1), 100u);
  EXPECT_EQ(after.KickAverage(1), 1000u);
}

TEST(TxKickEstimate, TracksTheMedianInSmallSteps) {
  TxKickEstimate e(TxStampPlacement::kAfter);
  e.Record(1, 0, 0, 1000);
  // One step: 1000 / 32 towards the sample.
  e.Record(1, 0, 0, 2000);
  EXPECT_EQ(e.KickAverage(1), 1031u);  // 1031.25, truncated
  // Never past the sample.
  e.Record(1, 0, 0, 1040);
  EXPECT_EQ(e.KickAverage(1), 1040u);
  for (int i = 0; i < 200; ++i) e.Record(1, 0, 0, 2000);
  EXPECT_NEAR(static_cast<double>(e.KickAverage(1)), 2000, 2000 / 32 + 1);
  for (int i = 0; i < 400; ++i) e.Record(1, 0, 0, 500);
  EXPECT_NEAR(static_cast<double>(e.KickAverage(1)), 500, 500 / 32 + 1);
}

TEST(TxKickEstimate, PreemptedCallsDoNotPullTheEstimate) {
  // 30 % of the calls take 50x longer (preempted after the frame left): a
  // mean would sit near 16000, the median stays at the usual 1000.
  TxKickEstimate e(TxStampPlacement::kAfter);
  for (int i = 0; i < 1000; ++i) {
    e.Record(1, 0, 100, 100 + (i % 10 < 3 ? 50'000 : 1000));
  }
  EXPECT_NEAR(static_cast<double>(e.KickAverage(1)), 1000, 100);
  EXPECT_EQ(e.FinaliseAverage(1), 100u);
}

TEST(TxKickEstimate, OneAveragePerBatchSize) {
  TxKickEstimate e(TxStampPlacement::kMidpoint);
  e.Record(1, 0, 10, 1010);   // kick 1000
  e.Record(16, 0, 50, 8050);  // kick 8000
  EXPECT_EQ(e.LeaveTicks(1), 10u + 500u);
  EXPECT_EQ(e.LeaveTicks(16), 50u + 4000u);
  // Unmeasured sizes borrow the nearest measured one below, else above.
  EXPECT_EQ(e.LeaveTicks(8), 510u);
  EXPECT_EQ(e.LeaveTicks(32), 4050u);
  TxKickEstimate only_big(TxStampPlacement::kAfter);
  only_big.Record(16, 0, 0, 8000);
  EXPECT_EQ(only_big.LeaveTicks(2), 8000u);
  // Sizes past kMaxBatch share the last bucket; 0 is treated as 1.
  only_big.Record(TxKickEstimate::kMaxBatch + 10, 0, 0, 9000);
  EXPECT_EQ(only_big.KickAverage(TxKickEstimate::kMaxBatch), 9000u);
  EXPECT_EQ(only_big.LeaveTicks(0), 8000u);
}

TEST(TxKickEstimate, DropsOutliersAndBackwardsBrackets) {
  TxKickEstimate e(TxStampPlacement::kAfter, /*max_sample_ticks=*/10'000);
  e.Record(1, 0, 0, 1000);
  e.Record(1, 0, 0, 50'000);  // preempted: dropped
  e.Record(1, 100, 50, 200);  // entry before stamp
  e.Record(1, 0, 200, 100);   // return before entry
  e.Record(0, 0, 0, 100);     // nothing sent: ignored, not counted
  EXPECT_EQ(e.KickAverage(1), 1000u);
  EXPECT_EQ(e.samples(), 1u);
  EXPECT_EQ(e.outliers(), 3u);
}

TEST(TxKickEstimate, LargeTicksDoNotOverflow) {
  // TSC values near 2^62 (a long uptime at a few GHz).
  const uint64_t base = uint64_t{1} << 62;
  TxKickEstimate e(TxStampPlacement::kAfter, 1'000'000);
  e.Record(4, base, base + 300, base + 3300);
  e.Record(4, base + 10, base + 310, base + 3310);
  EXPECT_EQ(e.LeaveTicks(4), 3300u);
}

}  // namespace
}  // namespace tx_kick_estimate_test
}  // namespace zg::core
