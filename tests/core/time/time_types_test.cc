// SPDX-License-Identifier: Apache-2.0
#include "core/time/time_types.h"

#include <cstdint>

#include "core/time/time_format.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace time_types_test {
namespace {

constexpr int64_t kS = kNanosPerSecond;
// 1900-01-01T00:00:00Z: the NTP prime epoch.
constexpr UtcNs kNtpEpoch{-2'208'988'800 * kS};
// 2036-02-07T06:28:16Z: NTP era 0 ends (seconds wrap to 0).
constexpr UtcNs kEra1Start{2'085'978'496 * kS};
// 2172-03-15T12:56:32Z: NTP era 2 starts.
constexpr UtcNs kEra2Start{6'380'945'792 * kS};
// 2038-01-19T03:14:08Z: signed 32-bit time_t overflows.
constexpr UtcNs kY2038{int64_t{2'147'483'648} * kS};
constexpr UtcNs kMinUtc{INT64_MIN};
constexpr UtcNs kMaxUtc{INT64_MAX};

// Known-answer values below were computed independently (Python integers and
// `date -u`), not with this code.

TEST(FloorDivModTest, RoundsTowardNegativeInfinity) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(-8, 2), -4);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(FloorDiv(INT64_MIN, kS), -9'223'372'037);
  EXPECT_EQ(FloorMod(INT64_MIN, kS), 145'224'192);  // no overflow
  EXPECT_EQ(FloorMod(INT64_MAX, kS), 854'775'807);
}

TEST(NtpFractionTest, KnownAnswersAndExactRoundTrip) {
  EXPECT_EQ(NanosToNtpFraction(0), 0u);
  EXPECT_EQ(NanosToNtpFraction(1), 4u);
  EXPECT_EQ(NanosToNtpFraction(500'000'000), 0x80000000u);
  EXPECT_EQ(NanosToNtpFraction(999'999'999), 0xfffffffcu);
  EXPECT_EQ(NtpFractionToNanos(0xffffffffu), 1'000'000'000u);  // caller carries
  for (uint32_t ns = 0; ns < 1'000'000'000; ns += 997) {
    ASSERT_EQ(NtpFractionToNanos(NanosToNtpFraction(ns)), ns);
  }
  EXPECT_EQ(NtpFractionToNanos(NanosToNtpFraction(999'999'999)), 999'999'999u);
  EXPECT_EQ(NanosToNtpFraction64(1), 0x44b82fa0aull);
  EXPECT_EQ(NanosToNtpFraction64(123'456'789), 0x1f9add3739635f31ull);
  EXPECT_EQ(NanosToNtpFraction64(999'999'999), 0xfffffffbb47d05f6ull);
  for (uint32_t ns = 0; ns < 1'000'000'000; ns += 997) {
    ASSERT_EQ(NtpFraction64ToNanos(NanosToNtpFraction64(ns)), ns);
  }
}

TEST(NtpTimestampTest, EpochKnownAnswers) {
  // The Unix epoch is 2208988800 s after the NTP prime epoch.
  EXPECT_EQ(UtcToNtp(UtcNs{0}), (NtpTimestamp{2'208'988'800u, 0}));
  EXPECT_EQ(UtcToNtp(UtcNs{kS / 2}),
            (NtpTimestamp{2'208'988'800u, 0x80000000u}));
  EXPECT_EQ(UtcToNtp(kNtpEpoch), (NtpTimestamp{0, 0}));
  EXPECT_EQ(FormatUtc(kNtpEpoch), "1900-01-01T00:00:00.000000000Z");
  EXPECT_EQ(NtpTimestamp::FromU64(0x0123456789abcdefull),
            (NtpTimestamp{0x01234567u, 0x89abcdefu}));
  EXPECT_EQ((NtpTimestamp{0x01234567u, 0x89abcdefu}).ToU64(),
            0x0123456789abcdefull);
}

TEST(NtpTimestampTest, NegativeTimesFloorTheSecond) {
  // One nanosecond before the Unix epoch: 1969-12-31T23:59:59.999999999Z.
  EXPECT_EQ(UtcToNtp(UtcNs{-1}), (NtpTimestamp{2'208'988'799u, 0xfffffffcu}));
  EXPECT_EQ(NtpToUtc(NtpTimestamp{2'208'988'799u, 0xfffffffcu}, UtcNs{0}),
            UtcNs{-1});
  EXPECT_EQ(UtcToNtpDate(UtcNs{-1}),
            (NtpDate{0, 2'208'988'799u, 0xfffffffbb47d05f6ull}));
  // One second before the NTP prime epoch is era -1.
  EXPECT_EQ(UtcToNtp(kNtpEpoch - kS), (NtpTimestamp{0xffffffffu, 0}));
  EXPECT_EQ(UtcToNtpDate(kNtpEpoch - kS), (NtpDate{-1, 0xffffffffu, 0}));
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0xffffffffu, 0}, kNtpEpoch), kNtpEpoch - kS);
  // The int64 limits (1677 and 2262) are eras -2 and 2.
  EXPECT_EQ(UtcToNtp(kMinUtc), (NtpTimestamp{1'575'551'355u, 0x252d69a3u}));
  EXPECT_EQ(UtcToNtpDate(kMinUtc),
            (NtpDate{-2, 1'575'551'355u, 0x252d69a33a5fd5dcull}));
  EXPECT_EQ(UtcToNtp(kMaxUtc), (NtpTimestamp{2'842'426'244u, 0xdad29658u}));
  EXPECT_EQ(UtcToNtpDate(kMaxUtc),
            (NtpDate{2, 2'842'426'244u, 0xdad296587a1d301aull}));
}

TEST(NtpTimestampTest, EraRolloverAt2036) {
  EXPECT_EQ(UtcToNtp(kEra1Start), (NtpTimestamp{0, 0}));
  EXPECT_EQ(UtcToNtp(kEra1Start - 1), (NtpTimestamp{0xffffffffu, 0xfffffffcu}));
  EXPECT_EQ(UtcToNtp(kEra1Start - kS), (NtpTimestamp{0xffffffffu, 0}));
  EXPECT_EQ(FormatUtc(kEra1Start), "2036-02-07T06:28:16.000000000Z");
  // Era resolution from a pivot on either side of the rollover.
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0, 0}, kEra1Start - 3600 * kS), kEra1Start);
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0xffffffffu, 0}, kEra1Start + 3600 * kS),
            kEra1Start - kS);
  EXPECT_EQ(UtcToNtpDate(kEra1Start), (NtpDate{1, 0, 0}));
  EXPECT_EQ(UtcToNtpDate(kEra1Start - kS), (NtpDate{0, 0xffffffffu, 0}));
  EXPECT_EQ(NtpDateToUtc(NtpDate{1, 0, 0}), kEra1Start);
  // A wire timestamp whose fraction rounds to the next nanosecond second must
  // not move the date into the next era.
  EXPECT_EQ(NtpTimestampToDate(NtpTimestamp{0xffffffffu, 0xffffffffu},
                               kEra1Start - 10 * kS),
            (NtpDate{0, 0xffffffffu, 0xffffffff00000000ull}));
  EXPECT_EQ(
      NtpToUtc(NtpTimestamp{0xffffffffu, 0xffffffffu}, kEra1Start - 10 * kS),
      kEra1Start);
}

TEST(NtpTimestampTest, LaterEras) {
  EXPECT_EQ(FormatUtc(kEra2Start), "2172-03-15T12:56:32.000000000Z");
  EXPECT_EQ(UtcToNtp(kEra2Start), (NtpTimestamp{0, 0}));
  EXPECT_EQ(UtcToNtpDate(kEra2Start), (NtpDate{2, 0, 0}));
  EXPECT_EQ(UtcToNtpDate(kEra2Start - kS), (NtpDate{1, 0xffffffffu, 0}));
  EXPECT_EQ(NtpDateToUtc(NtpDate{2, 0, 0}), kEra2Start);
  EXPECT_EQ(NtpToUtc(NtpTimestamp{5, 0}, kEra2Start), kEra2Start + 5 * kS);
  EXPECT_EQ(NtpTimestampToDate(NtpTimestamp{5, 0}, kEra2Start),
            (NtpDate{2, 5, 0}));
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0xfffffff0u, 0}, kEra2Start),
            kEra2Start - 16 * kS);
  // The same wire value lands in era 0, 1 or 2 depending on the pivot.
  const NtpTimestamp wire{1000, 0};
  EXPECT_EQ(NtpToUtc(wire, kNtpEpoch), kNtpEpoch + 1000 * kS);
  EXPECT_EQ(NtpToUtc(wire, kEra1Start), kEra1Start + 1000 * kS);
  EXPECT_EQ(NtpToUtc(wire, kEra2Start), kEra2Start + 1000 * kS);
}

TEST(NtpTimestampTest, PivotWindowIsPlusMinus2To31Seconds) {
  const UtcNs pivot{1'700'000'000 * kS};
  const int64_t half = int64_t{1} << 31;
  const UtcNs lo = pivot - half * kS;
  const UtcNs hi = pivot + (half - 1) * kS;
  EXPECT_EQ(NtpToUtc(UtcToNtp(lo), pivot), lo);
  EXPECT_EQ(NtpToUtc(UtcToNtp(hi), pivot), hi);
  // One second further wraps to the other end of the window.
  EXPECT_EQ(NtpToUtc(UtcToNtp(hi + kS), pivot), lo);
}

TEST(NtpTimestampTest, ResultsBeyondInt64Saturate) {
  EXPECT_EQ(NtpToUtc(UtcToNtp(kMaxUtc), kMaxUtc), kMaxUtc);
  EXPECT_EQ(NtpToUtc(UtcToNtp(kMinUtc), kMinUtc), kMinUtc);
  // The era after the pivot would be past 2262.
  EXPECT_EQ(NtpToUtc(NtpTimestamp{2'842'426'244u + 100, 0}, kMaxUtc), kMaxUtc);
  EXPECT_EQ(NtpToUtc(NtpTimestamp{1'575'551'355u - 100, 0}, kMinUtc), kMinUtc);
  EXPECT_EQ(NtpDateToUtc(NtpDate{INT32_MAX, 0xffffffffu, ~uint64_t{0}}),
            kMaxUtc);
  EXPECT_EQ(NtpDateToUtc(NtpDate{INT32_MIN, 0, 0}), kMinUtc);
}

TEST(NtpTimestampTest, RoundTripEveryNanosecondPhaseAcrossEras) {
  const UtcNs bases[] = {kMinUtc + kS,
                         kNtpEpoch - kS,
                         UtcNs{-kS},
                         UtcNs{0},
                         UtcNs{1'700'000'000 * kS},
                         kEra1Start - kS,
                         kEra1Start,
                         kY2038 - 1,
                         kY2038,
                         kEra2Start - kS,
                         kEra2Start,
                         kMaxUtc - 3 * kS};
  for (UtcNs base : bases) {
    for (int64_t ns = 0; ns < 2 * kS; ns += 7'919) {
      const UtcNs t = base + ns;
      // Pivots 1000 s either side (kept inside the int64 range).
      const UtcNs later = t < kMaxUtc - 1000 * kS ? t + 1000 * kS : kMaxUtc;
      const UtcNs earlier = t > kMinUtc + 1000 * kS ? t - 1000 * kS : kMinUtc;
      ASSERT_EQ(NtpToUtc(UtcToNtp(t), later), t) << t;
      ASSERT_EQ(NtpToUtc(UtcToNtp(t), earlier), t) << t;
      const NtpDate date = UtcToNtpDate(t);
      ASSERT_EQ(NtpDateToUtc(date), t) << t;
      // The 128-bit date of the wire value agrees with the direct one to the
      // wire's 32-bit fraction.
      const NtpDate from_wire = NtpTimestampToDate(UtcToNtp(t), t);
      ASSERT_EQ(from_wire.era, date.era) << t;
      ASSERT_EQ(from_wire.era_offset_s, date.era_offset_s) << t;
      ASSERT_EQ(NtpDateToUtc(from_wire), t) << t;
    }
  }
}

TEST(NtpTimestampTest, Year2038IsNotSpecial) {
  const NtpTimestamp wire = UtcToNtp(kY2038);
  EXPECT_EQ(FormatUtc(kY2038), "2038-01-19T03:14:08.000000000Z");
  EXPECT_EQ(wire, (NtpTimestamp{61'505'152u, 0}));
  EXPECT_EQ(NtpToUtc(wire, kY2038), kY2038);
  EXPECT_EQ(NtpToUtc(wire, kEra1Start - 3600 * kS), kY2038);
  EXPECT_EQ(NtpTimestampToDate(wire, kY2038), (NtpDate{1, 61'505'152u, 0}));
  EXPECT_EQ(UtcToNtp(kY2038 - kS), (NtpTimestamp{61'505'151u, 0}));
}

TEST(NtpShortTest, KnownAnswersRoundUpAndSaturate) {
  EXPECT_EQ(NanosToNtpShort(-5), (NtpShort{0, 0}));
  EXPECT_EQ(NanosToNtpShort(0), (NtpShort{0, 0}));
  EXPECT_EQ(NanosToNtpShort(1), (NtpShort{0, 1}));  // never advertise zero
  EXPECT_EQ(NanosToNtpShort(1'000), (NtpShort{0, 1}));
  EXPECT_EQ(NanosToNtpShort(1'000'000), (NtpShort{0, 0x42}));
  EXPECT_EQ(NanosToNtpShort(1'500'000), (NtpShort{0, 0x63}));
  EXPECT_EQ(NanosToNtpShort(kS), (NtpShort{1, 0}));
  EXPECT_EQ(NanosToNtpShort(kS / 2), (NtpShort{0, 0x8000}));
  EXPECT_EQ(NanosToNtpShort(65'535'999'984'741), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NanosToNtpShort(65'536 * kS - 1), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NanosToNtpShort(int64_t{100'000} * kS), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NanosToNtpShort(INT64_MAX), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NtpShortToNanos(NtpShort{0, 0x8000}), kS / 2);
  EXPECT_EQ(NtpShortToNanos(NtpShort{0, 1}), 15'258);  // 15258.789 rounds down
  EXPECT_EQ(NtpShortToNanos(NtpShort{0, 0x42}), 1'007'080);
  EXPECT_EQ(NtpShortToNanos(NtpShort{0xffff, 0xffff}), 65'535'999'984'741);
  EXPECT_EQ(NtpShort::FromU32(0x12345678u), (NtpShort{0x1234, 0x5678}));
}

TEST(NtpShortTest, RoundTrips) {
  // Every short value survives short -> ns -> short.
  for (uint64_t v = 0; v <= 0xffffffffu; v += 65'521) {
    const NtpShort s = NtpShort::FromU32(static_cast<uint32_t>(v));
    ASSERT_EQ(NanosToNtpShort(NtpShortToNanos(s)), s) << v;
  }
  const NtpShort top{0xffff, 0xffff};
  EXPECT_EQ(NanosToNtpShort(NtpShortToNanos(top)), top);
  // ns -> short -> ns never understates, and overstates by < 1/65536 s.
  for (int64_t ns = 1; ns < 3 * kS; ns += 104'729) {
    const int64_t back = NtpShortToNanos(NanosToNtpShort(ns));
    ASSERT_GE(back, ns);
    ASSERT_LT(back - ns, kS / 65'536 + 1);
  }
}

TEST(PtpTimestampTest, KnownAnswersAndRoundTrip) {
  const TaiNs t{1'700'000'037 * kS + 123'456'789};
  const PtpTimestamp p = TaiToPtp(t);
  EXPECT_EQ(p.seconds, 1'700'000'037u);
  EXPECT_EQ(p.nanoseconds, 123'456'789u);
  EXPECT_EQ(PtpToTai(p), t);
  EXPECT_EQ(TaiToPtp(TaiNs{0}), (PtpTimestamp{0, 0}));
  EXPECT_EQ(TaiToPtp(TaiNs{-1}), (PtpTimestamp{0, 0}));  // clamps
  EXPECT_EQ(TaiToPtp(TaiNs{INT64_MIN}), (PtpTimestamp{0, 0}));
  EXPECT_EQ(TaiToPtp(TaiNs{INT64_MAX}),
            (PtpTimestamp{9'223'372'036u, 854'775'807u}));
  EXPECT_EQ(PtpToTai(PtpTimestamp{9'223'372'036u, 854'775'807u}),
            TaiNs{INT64_MAX});
  for (int64_t v : {int64_t{0}, int64_t{1}, kS - 1, kS, kY2038.value,
                    kEra1Start.value + 37 * kS, kEra2Start.value, INT64_MAX}) {
    ASSERT_EQ(PtpToTai(TaiToPtp(TaiNs{v})), TaiNs{v}) << v;
  }
}

TEST(PtpTimestampTest, FortyEightBitLimits) {
  EXPECT_EQ(kPtpSecondsMask, 0xffff'ffff'ffffull);
  // The wire's largest seconds value is far past 2262: saturates, no UB.
  EXPECT_EQ(PtpToTai(PtpTimestamp{kPtpSecondsMask, 999'999'999}),
            TaiNs{INT64_MAX});
  // The first value past the int64 range saturates; the last one inside
  // does not.
  EXPECT_EQ(PtpToTai(PtpTimestamp{9'223'372'036u, 854'775'808u}),
            TaiNs{INT64_MAX});
  EXPECT_EQ(PtpToTai(PtpTimestamp{9'223'372'037u, 0}), TaiNs{INT64_MAX});
  // Bits above the 48 carried on the wire are ignored.
  EXPECT_EQ(PtpToTai(PtpTimestamp{(uint64_t{1} << 48) | 5, 7}),
            TaiNs{5 * kS + 7});
  // Out-of-range nanoseconds (invalid on the wire) are added, not wrapped.
  EXPECT_EQ(PtpToTai(PtpTimestamp{1, 0xffffffffu}),
            TaiNs{kS + int64_t{0xffffffff}});
}

TEST(PtpCorrectionTest, ScaledNanoseconds) {
  EXPECT_EQ(PtpCorrection::FromNanos(0).scaled_ns, 0);
  EXPECT_EQ(PtpCorrection::FromNanos(1).scaled_ns, 65'536);
  EXPECT_EQ(PtpCorrection::FromNanos(-1).scaled_ns, -65'536);
  EXPECT_EQ(PtpCorrection::FromNanos(-3).Nanos(), -3);
  EXPECT_EQ((PtpCorrection{0x18000}).Nanos(), 1);    // 1.5 ns floors to 1
  EXPECT_EQ((PtpCorrection{-0x18000}).Nanos(), -2);  // -1.5 ns floors to -2
  EXPECT_EQ((PtpCorrection{0xffff}).Nanos(), 0);
  EXPECT_EQ((PtpCorrection{-1}).Nanos(), -1);
  for (int64_t ns :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{123'456'789},
        int64_t{-987'654'321}, 3600 * kS, -3600 * kS,
        PtpCorrection::kMaxExactNanos, -PtpCorrection::kMaxExactNanos}) {
    const PtpCorrection c = PtpCorrection::FromNanos(ns);
    ASSERT_EQ(c.Nanos(), ns);
    ASSERT_FALSE(c.IsSaturated()) << ns;
  }
}

TEST(PtpCorrectionTest, SaturatesInsteadOfWrapping) {
  const int64_t max = PtpCorrection::kMaxExactNanos;
  EXPECT_EQ(max, 140'737'488'355'327);  // 2^47 - 1 ns, about 39 hours
  EXPECT_EQ(PtpCorrection::FromNanos(max).scaled_ns,
            int64_t{0x7fff'ffff'ffff'0000});
  EXPECT_EQ(PtpCorrection::FromNanos(max + 1).scaled_ns, INT64_MAX);
  EXPECT_EQ(PtpCorrection::FromNanos(INT64_MAX).scaled_ns, INT64_MAX);
  EXPECT_TRUE(PtpCorrection::FromNanos(max + 1).IsSaturated());
  EXPECT_EQ(PtpCorrection::FromNanos(-max - 1).scaled_ns, INT64_MIN);
  EXPECT_EQ(PtpCorrection::FromNanos(INT64_MIN).scaled_ns, INT64_MIN);
  EXPECT_TRUE(PtpCorrection::FromNanos(INT64_MIN).IsSaturated());
}

TEST(TimeTypesTest, ArithmeticAndOrdering) {
  const TaiNs a{100};
  EXPECT_EQ(a + 5, TaiNs{105});
  EXPECT_EQ(a - 5, TaiNs{95});
  EXPECT_EQ(TaiNs{105} - a, 5);
  EXPECT_LT(TaiNs{-1}, TaiNs{0});
  EXPECT_EQ(UtcNs{100} - UtcNs{130}, -30);
  EXPECT_GT(UtcNs{1}, UtcNs{0});
}

static_assert(UtcToNtp(UtcNs{0}).seconds == 2'208'988'800u);
static_assert(NtpToUtc(NtpTimestamp{0, 0}, kEra1Start) == kEra1Start);
static_assert(PtpToTai(TaiToPtp(TaiNs{42})) == TaiNs{42});

}  // namespace
}  // namespace time_types_test
}  // namespace zg::core
