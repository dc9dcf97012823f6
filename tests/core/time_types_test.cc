#include "core/time_types.h"

#include <cstdint>

#include "core/time_format.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace {

constexpr int64_t kS = kNanosPerSecond;
// 2036-02-07T06:28:16Z: NTP era 0 ends (seconds wrap to 0).
constexpr UtcNs kEra1Start{2'085'978'496 * kS};
// 2038-01-19T03:14:08Z: signed 32-bit time_t overflows.
constexpr UtcNs kY2038{int64_t{2'147'483'648} * kS};

TEST(TimeTypesTest, NtpEpochOffsetKnownAnswer) {
  // The Unix epoch is 2208988800 s after the NTP prime epoch.
  EXPECT_EQ(UtcToNtp(UtcNs{0}), (NtpTimestamp{2'208'988'800u, 0}));
  EXPECT_EQ(UtcToNtp(UtcNs{kS / 2}),
            (NtpTimestamp{2'208'988'800u, 0x80000000u}));
}

TEST(TimeTypesTest, EraRolloverAt2036) {
  EXPECT_EQ(UtcToNtp(kEra1Start), (NtpTimestamp{0, 0}));
  EXPECT_EQ(UtcToNtp(kEra1Start - kS), (NtpTimestamp{0xffffffffu, 0}));
  EXPECT_EQ(FormatUtc(kEra1Start), "2036-02-07T06:28:16.000000000Z");
  // Era resolution from a pivot on either side of the rollover.
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0, 0}, kEra1Start - 3600 * kS), kEra1Start);
  EXPECT_EQ(NtpToUtc(NtpTimestamp{0xffffffffu, 0}, kEra1Start + 3600 * kS),
            kEra1Start - kS);
  EXPECT_EQ(UtcToNtpDate(kEra1Start), (NtpDate{1, 0, 0}));
  EXPECT_EQ(UtcToNtpDate(kEra1Start - kS), (NtpDate{0, 0xffffffffu, 0}));
}

TEST(TimeTypesTest, RoundTripEveryNanosecondPhaseAcrossEras) {
  const UtcNs bases[] = {UtcNs{0},
                         UtcNs{1'700'000'000 * kS},
                         kEra1Start - kS,
                         kEra1Start,
                         kY2038 - 1,
                         kY2038,
                         UtcNs{kEra1Start.value * 2}};
  for (UtcNs base : bases) {
    for (int64_t ns = 0; ns < 2 * kS; ns += 7'919) {
      const UtcNs t = base + ns;
      ASSERT_EQ(NtpToUtc(UtcToNtp(t), t + 1000 * kS), t) << t;
      ASSERT_EQ(NtpDateToUtc(UtcToNtpDate(t)), t) << t;
    }
  }
}

TEST(TimeTypesTest, Year2038IsNotSpecial) {
  const NtpTimestamp wire = UtcToNtp(kY2038);
  EXPECT_EQ(FormatUtc(kY2038), "2038-01-19T03:14:08.000000000Z");
  EXPECT_EQ(NtpToUtc(wire, kY2038), kY2038);
  EXPECT_EQ(NtpTimestampToDate(wire, kY2038).era, 1);
}

TEST(TimeTypesTest, NtpShortSaturatesAndRoundTrips) {
  EXPECT_EQ(NanosToNtpShort(-5), (NtpShort{0, 0}));
  EXPECT_EQ(NanosToNtpShort(kS), (NtpShort{1, 0}));
  EXPECT_EQ(NanosToNtpShort(int64_t{100'000} * kS), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NtpShortToNanos(NtpShort{0, 0x8000}), kS / 2);
}

TEST(TimeTypesTest, PtpTimestampRoundTrip) {
  const TaiNs t{1'700'000'037 * kS + 123'456'789};
  const PtpTimestamp p = TaiToPtp(t);
  EXPECT_EQ(p.seconds, 1'700'000'037u);
  EXPECT_EQ(p.nanoseconds, 123'456'789u);
  EXPECT_EQ(PtpToTai(p), t);
  EXPECT_EQ(TaiToPtp(TaiNs{-1}), (PtpTimestamp{0, 0}));
}

TEST(TimeTypesTest, PtpCorrectionScaledNanoseconds) {
  EXPECT_EQ(PtpCorrection::FromNanos(1).scaled_ns, 65536);
  EXPECT_EQ(PtpCorrection::FromNanos(-3).Nanos(), -3);
  EXPECT_EQ((PtpCorrection{0x18000}).Nanos(), 1);  // 1.5 ns floors to 1
}

}  // namespace
}  // namespace zg::core
