// SPDX-License-Identifier: Apache-2.0
#include "core/time/clock_model.h"

#include <initializer_list>

#include "gtest/gtest.h"

namespace zg::core {
namespace clock_model_test {
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

// TaiToRaw is RawToTai's inverse: exact round trips where a tick is at most
// 1 ns (TAI -> raw -> TAI) or at least 1 ns (raw -> TAI -> raw), and the
// first tick at or after the instant in general.
TEST(ClockModelTest, TaiToRawInvertsRawToTai) {
  const ClockModel tsc = ThreeGhzModel();  // 0.33 ns ticks
  ClockModel nic = tsc;                    // a NIC: ns ticks, 40 ppm fast
  nic.raw_anchor = 1'700'000'000'000'000'000;
  nic.ns_per_tick_q32 = static_cast<uint64_t>(4294967296.0 / (1 + 40e-6));
  ClockModel slow = tsc;  // a 125 MHz clock: 8 ns ticks
  slow.ns_per_tick_q32 = NsPerTickQ32FromHz(125e6);
  ClockModel exact = tsc;  // exactly 1 ns per tick
  exact.ns_per_tick_q32 = uint64_t{1} << 32;
  for (const int64_t d :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{7}, int64_t{-12'345},
        999'999'999 * int64_t{1}, 3 * kS + 17, -2 * kS - 3, 86'400 * kS + 1}) {
    const TaiNs t = tsc.tai_anchor + d;
    for (const ClockModel* m :
         std::initializer_list<const ClockModel*>{&tsc, &nic, &exact}) {
      EXPECT_EQ(m->RawToTai(m->TaiToRaw(t)), t) << d;
      // The first such tick: one less maps before t.
      EXPECT_LT(m->RawToTai(m->TaiToRaw(t) - 1), t) << d;
    }
    const uint64_t raw = slow.raw_anchor + static_cast<uint64_t>(d);
    EXPECT_EQ(slow.TaiToRaw(slow.RawToTai(raw)), raw) << d;
    EXPECT_EQ(exact.TaiToRaw(exact.RawToTai(raw)), raw) << d;
    EXPECT_GE(slow.RawToTai(slow.TaiToRaw(t)), t) << d;
    EXPECT_LT(slow.RawToTai(slow.TaiToRaw(t) - 1), t) << d;
  }
  ClockModel unset;
  EXPECT_EQ(unset.TaiToRaw(TaiNs{5}), unset.raw_anchor);
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
}  // namespace clock_model_test
}  // namespace zg::core
