// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/system_clock_source.h"

#include <sys/timex.h>

#include <cmath>

#include "gtest/gtest.h"
#include "servo/clock/tsc_clock.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace system_clock_source_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

constexpr int64_t kS = core::kNanosPerSecond;

class SystemClockSourceTest : public ::testing::Test {
 protected:
  SystemClockSourceTest() : tsc_(&w_), ops_(&w_) {
    w_.tai_offset_s = 0;  // kernel TAI offset unset unless a test sets it
    w_.tx.status = 0;     // synchronised
  }
  absl::StatusOr<std::unique_ptr<SystemClockSource>> Make(
      SystemClockSourceOptions o) {
    return SystemClockSource::Create(&tsc_, std::move(o), &ops_);
  }
  static SystemClockSourceOptions WithLeaps() {
    SystemClockSourceOptions o;
    o.tai_minus_utc = FixedTaiMinusUtc(37);
    return o;
  }
  // Checks `s` against the simulated truth: the reference says TAI at its
  // raw tick to within its uncertainty.
  void ExpectHonest(const ReferenceSample& s) {
    const int64_t true_tai = w_.TrueUtcAtTicks(s.raw_ticks) + 37 * kS;
    EXPECT_LE(std::llabs(s.reference_tai.value - true_tai), s.uncertainty_ns)
        << "error " << s.reference_tai.value - true_tai;
  }

  SimWorld w_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
};

TEST_F(SystemClockSourceTest, RealtimeSampleMapsUtcToTaiAtTheRawTick) {
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ((*src)->clock_id(), CLOCK_REALTIME);
  EXPECT_EQ((*src)->info().name, "system:CLOCK_REALTIME");
  EXPECT_EQ((*src)->health(), SourceHealth::kUnknown);
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  // Exact: the fake clock is read mid-bracket.
  EXPECT_EQ(out[0].reference_tai.value,
            w_.TrueUtcAtTicks(out[0].raw_ticks) + 37 * kS);
  // Half of a 20 ns bracket (+1 rounding) + maxerror 1 ms + esterror 100 us.
  EXPECT_EQ(out[0].uncertainty_ns, 11 + 1'000'000 + 100'000);
  EXPECT_EQ(out[0].taken_at, out[0].reference_tai);
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
  EXPECT_TRUE((*src)->problem().ok());
}

TEST_F(SystemClockSourceTest, KeepsTheTightestBracket) {
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok());
  // Seven of eight reads are disturbed by an asymmetric 3 us delay.
  w_.system_read_delays = {3000, 3000, 3000, 3000, 3000, 3000, 3000};
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reference_tai.value,
            w_.TrueUtcAtTicks(out[0].raw_ticks) + 37 * kS);
}

TEST_F(SystemClockSourceTest, UsesClockTaiWhenTheKernelOffsetIsSet) {
  w_.tai_offset_s = 37;
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ((*src)->clock_id(), CLOCK_TAI);
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  ExpectHonest(out[0]);
  // Without a leap table, CLOCK_TAI alone is enough.
  auto bare = Make({});
  ASSERT_TRUE(bare.ok()) << bare.status();
  out.clear();
  ASSERT_TRUE((*bare)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  ExpectHonest(out[0]);
}

TEST_F(SystemClockSourceTest, KernelTaiOffsetDisagreeingWithTheTableIsDown) {
  w_.tai_offset_s = 36;  // stale tzdata
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  const absl::Status s = (*src)->Poll(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("36 s"), std::string::npos) << s;
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
}

TEST_F(SystemClockSourceTest, SetupErrorsSayWhatToDo) {
  SystemClockSourceOptions tai;
  tai.scale = SystemClockSourceOptions::Scale::kTai;
  const absl::Status no_offset = Make(tai).status();
  EXPECT_EQ(no_offset.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(no_offset.message().find("leapsectz"), std::string::npos);
  const absl::Status no_table = Make({}).status();
  EXPECT_EQ(no_table.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_table.message().find("leap-seconds"), std::string::npos);
}

TEST_F(SystemClockSourceTest, UnsynchronisedKernelClockIsDown) {
  w_.tx.status = STA_UNSYNC;
  w_.tx.maxerror = 16'000'000;
  w_.timex_state = TIME_ERROR;
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  const absl::Status s = (*src)->Poll(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("chronyc tracking"), std::string::npos) << s;
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
  // Synchronised again: up.
  w_.tx.status = 0;
  w_.tx.maxerror = 1000;
  w_.timex_state = TIME_OK;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
}

TEST_F(SystemClockSourceTest, UnsynchronisedAllowedIsDegradedWithAssumedError) {
  w_.tx.status = STA_UNSYNC;
  w_.tx.maxerror = 16'000'000;
  w_.timex_state = TIME_ERROR;
  SystemClockSourceOptions o = WithLeaps();
  o.require_synchronized = false;
  o.unsynchronized_error_ns = 50'000'000;
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].uncertainty_ns, 11 + 50'000'000);
  EXPECT_EQ((*src)->health(), SourceHealth::kDegraded);
  EXPECT_NE((*src)->problem().message().find("STA_UNSYNC"), std::string::npos);
}

TEST_F(SystemClockSourceTest, TimeErrorOrLargeMaxerrorIsDegraded) {
  auto src = Make(WithLeaps());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  w_.timex_state = TIME_ERROR;  // e.g. STA_CLOCKERR, still synchronised
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_EQ((*src)->health(), SourceHealth::kDegraded);
  w_.timex_state = TIME_OK;
  w_.tx.maxerror = 200'000;  // 200 ms: chronyd stopped updating
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_EQ((*src)->health(), SourceHealth::kDegraded);
  EXPECT_NE((*src)->problem().message().find("maxerror"), std::string::npos);
  EXPECT_EQ(out.back().uncertainty_ns, 11 + 200'000'000 + 100'000);
  w_.tx.maxerror = 1000;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
  EXPECT_EQ(out.size(), 3u);
}

TEST_F(SystemClockSourceTest, SkipsSamplesAroundALeapSecond) {
  static constexpr int64_t kLeapAt = SimWorld::kStart + 10 * kS;  // UTC
  SystemClockSourceOptions o;
  o.tai_minus_utc = [](core::UtcNs t) { return t.value < kLeapAt ? 37 : 38; };
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  w_.Advance(9 * kS + 500'000'000);  // 0.5 s before the leap
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->skipped_near_leap(), 1u);
  w_.timex_state = TIME_OOP;  // inside the inserted second
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_TRUE(out.empty());
  w_.timex_state = TIME_WAIT;
  w_.Advance(2 * kS);
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reference_tai.value,
            w_.TrueUtcAtTicks(out[0].raw_ticks) + 38 * kS);
}

// The real kernel clock on this machine (unsynchronised here, so allowed).
TEST(SystemClockSourceRealTest, SamplesTheKernelClock) {
  absl::StatusOr<std::unique_ptr<TscClock>> tsc =
      TscClock::Create({.initial_calibration_ns = 20'000'000,
                        .initial_point_spacing_ns = 2'000'000});
  if (!tsc.ok()) GTEST_SKIP() << tsc.status();
  SystemClockSourceOptions o;
  o.scale = SystemClockSourceOptions::Scale::kRealtime;
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  o.require_synchronized = false;
  auto src = SystemClockSource::Create(tsc->get(), o);
  ASSERT_TRUE(src.ok()) << src.status();
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok()) << (*src)->problem();
  ASSERT_EQ(out.size(), 1u);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t now_tai = (int64_t{ts.tv_sec} + 37) * kS + ts.tv_nsec;
  EXPECT_GT(out[0].reference_tai.value, now_tai - kS);
  EXPECT_LE(out[0].reference_tai.value, now_tai);
  EXPECT_NE((*src)->health(), SourceHealth::kDown);
  // Bracket half-width part of the uncertainty is small on any machine.
  const int64_t kernel_part = (*src)->kernel_status().synchronized()
                                  ? (*src)->kernel_status().maxerror_ns +
                                        (*src)->kernel_status().esterror_ns
                                  : o.unsynchronized_error_ns;
  EXPECT_LT(out[0].uncertainty_ns - kernel_part, 100'000);
}

}  // namespace
}  // namespace system_clock_source_test
}  // namespace zg::servo
