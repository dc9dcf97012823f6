#include "core/time/clock_model.h"

#include "gtest/gtest.h"

namespace zg::core {
namespace {

constexpr int64_t kS = kNanosPerSecond;

ClockModel ThreeGhzModel() {
  ClockModel m;
  m.raw_anchor = 1'000'000;
  m.tai_anchor = TaiNs{1'700'000'037 * kS};
  m.ns_per_tick_q32 = NsPerTickQ32FromHz(3e9);
  m.error_bound_ns = 1'000;
  m.error_growth_ns_per_s = 50;
  m.max_extrapolation_ns = 10 * kS;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  return m;
}

TEST(ClockModelTest, RawToTaiAppliesRate) {
  const ClockModel m = ThreeGhzModel();
  EXPECT_EQ(m.RawToTai(m.raw_anchor), m.tai_anchor);
  // 3e9 ticks later is one second later, within the q32 rate's rounding.
  EXPECT_NEAR(static_cast<double>(m.RawToTai(m.raw_anchor + 3'000'000'000) -
                                  m.tai_anchor),
              1e9, 1.0);
  // A stamp taken just before the anchor maps before it.
  EXPECT_EQ(m.RawToTai(m.raw_anchor - 3).value, m.tai_anchor.value - 1);
}

TEST(ClockModelTest, ErrorBoundGrowsFromAnchor) {
  const ClockModel m = ThreeGhzModel();
  EXPECT_EQ(m.ErrorBoundNs(m.tai_anchor), 1'000);
  EXPECT_EQ(m.ErrorBoundNs(m.tai_anchor + 2 * kS), 1'100);
  EXPECT_EQ(m.ErrorBoundNs(m.tai_anchor - kS), 1'000);
}

TEST(ClockModelTest, StaleModelIsUnsynchronized) {
  const ClockModel m = ThreeGhzModel();
  EXPECT_TRUE(m.IsSynchronized(m.tai_anchor + 10 * kS));
  EXPECT_FALSE(m.IsSynchronized(m.tai_anchor + 10 * kS + 1));
  EXPECT_EQ(m.NtpLeapAt(m.tai_anchor + 11 * kS),
            NtpLeapIndicator::kUnsynchronized);
  ClockModel never;
  EXPECT_FALSE(never.IsSynchronized(TaiNs{0}));
}

TEST(ClockModelTest, InsertedLeapSecondRepeats235959) {
  ClockModel m = ThreeGhzModel();
  m.max_extrapolation_ns = INT64_MAX / 2;
  // 2016-12-31T23:59:60Z: TAI-UTC goes 36 -> 37.
  const int64_t day_end_posix_s = 1'483'228'800;  // 2017-01-01T00:00:00Z
  m.utc_offset_s = 36;
  m.leap = LeapPending::kInsert;
  m.leap_at = TaiNs{(day_end_posix_s + 36) * kS};
  EXPECT_EQ(m.TaiToUtc(m.leap_at - kS).value, (day_end_posix_s - 1) * kS);
  EXPECT_EQ(m.TaiToUtc(m.leap_at).value, (day_end_posix_s - 1) * kS);
  EXPECT_EQ(m.TaiToUtc(m.leap_at + kS).value, day_end_posix_s * kS);
  EXPECT_EQ(m.NtpLeapAt(m.leap_at - kS), NtpLeapIndicator::kLastMinute61);
  EXPECT_EQ(m.NtpLeapAt(m.leap_at - 2 * kSecondsPerDay * kS),
            NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(m.NtpLeapAt(m.leap_at), NtpLeapIndicator::kNoWarning);
}

TEST(ClockReaderTest, KeepsLastGoodCopyWhenNothingPublished) {
  PublishedClock published;
  ClockReader reader(&published);
  EXPECT_EQ(reader.Refresh().stratum, 16);
  EXPECT_EQ(reader.failed_reads(), 1u);
  published.Write(ThreeGhzModel());
  EXPECT_EQ(reader.Refresh().stratum, 1);
}

TEST(ClockModelTest, LeapIndicatorForEachPendingLeap) {
  static_assert(NtpLeapIndicatorFor(LeapPending::kNone) ==
                NtpLeapIndicator::kNoWarning);
  static_assert(NtpLeapIndicatorFor(LeapPending::kInsert) ==
                NtpLeapIndicator::kLastMinute61);
  static_assert(NtpLeapIndicatorFor(LeapPending::kDelete) ==
                NtpLeapIndicator::kLastMinute59);
  ClockModel m;
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.max_extrapolation_ns = kNanosPerSecond;
  m.state = SyncState::kLocked;
  m.leap = LeapPending::kDelete;
  m.leap_at = TaiNs{10 * kNanosPerSecond};
  EXPECT_EQ(m.NtpLeapAt(TaiNs{0}), NtpLeapIndicator::kLastMinute59);
  m.state = SyncState::kFreerun;
  EXPECT_EQ(m.NtpLeapAt(TaiNs{0}), NtpLeapIndicator::kUnsynchronized);
}

}  // namespace
}  // namespace zg::core
