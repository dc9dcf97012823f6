// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/rate_controller.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"

namespace zg::bench {
namespace rate_controller_test {
namespace {

constexpr uint64_t kHz = 2'500'000'000;  // a 2.5 GHz TSC

RateController Make(double pps, uint32_t burst = 32, uint32_t backlog = 1024) {
  auto r = RateController::Create({.rate_pps = pps,
                                   .tsc_hz = kHz,
                                   .max_burst = burst,
                                   .max_backlog = backlog});
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(RateControllerTest, CreateValidates) {
  EXPECT_FALSE(RateController::Create({.rate_pps = 1e6, .tsc_hz = 0}).ok());
  EXPECT_FALSE(RateController::Create({.rate_pps = -1, .tsc_hz = kHz}).ok());
  EXPECT_FALSE(
      RateController::Create({.rate_pps = std::nan(""), .tsc_hz = kHz}).ok());
  EXPECT_FALSE(RateController::Create({.rate_pps = 3e9, .tsc_hz = kHz}).ok());
  EXPECT_FALSE(
      RateController::Create({.rate_pps = 1, .tsc_hz = kHz, .max_burst = 0})
          .ok());
  EXPECT_FALSE(
      RateController::Create(
          {.rate_pps = 1, .tsc_hz = kHz, .max_burst = 64, .max_backlog = 32})
          .ok());
}

struct PaceResult {
  uint64_t sent = 0;
  uint64_t skipped = 0;
  uint32_t biggest_burst = 0;
  bool ahead_of_schedule = false;
};

// Polls the controller like a lane does, at random intervals around
// `mean_poll_ticks`, for `seconds` of fake TSC time; the lane can send at
// most `capacity` packets per poll.
PaceResult Pace(RateController& rc, double seconds, uint64_t mean_poll_ticks,
                uint32_t capacity, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> gap(1, 2 * mean_poll_ticks);
  const uint64_t start = 1'000'000'007;  // arbitrary
  const uint64_t end = start + static_cast<uint64_t>(seconds * kHz);
  PaceResult out;
  rc.Start(start);
  for (uint64_t now = start; now < end; now += gap(rng)) {
    const uint32_t due = rc.Due(now);
    out.biggest_burst = std::max(out.biggest_burst, due);
    rc.OnSent(std::min(due, capacity));
    // Never ahead of the schedule: sent <= floor(elapsed * rate / hz).
    const double allowed =
        std::floor((now - start) * (rc.config().rate_pps / kHz)) + 1e-6;
    if (!rc.unlimited() && rc.sent() > allowed) out.ahead_of_schedule = true;
  }
  out.sent = rc.sent();
  out.skipped = rc.skipped();
  return out;
}

class RateAccuracyTest : public ::testing::TestWithParam<double> {};

TEST_P(RateAccuracyTest, AchievedRateWithinOnePercent) {
  const double rate = GetParam();
  RateController rc = Make(rate);
  // Polls every ~400 ns on average (jittered 0.4 ns .. 800 ns), a lane that
  // keeps up.
  const PaceResult r = Pace(rc, 1.0, 1000, UINT32_MAX, 42);
  EXPECT_FALSE(r.ahead_of_schedule);
  EXPECT_LE(r.biggest_burst, 32u);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_NEAR(static_cast<double>(r.sent), rate, 0.01 * rate);
  // In fact exact to a burst: no drift accumulates.
  EXPECT_NEAR(static_cast<double>(r.sent), rate, 33);
}

INSTANTIATE_TEST_SUITE_P(Rates, RateAccuracyTest,
                         ::testing::Values(100.0, 1e3, 12'345.0, 1e5, 1e6,
                                           3.3e6, 1e7, 2.5e7));

TEST(RateControllerTest, SlowPollingStillAveragesOut) {
  // A lane that only looks every ~20 us sends in bursts but keeps the rate.
  RateController rc = Make(1e6, 64, 1024);
  const PaceResult r = Pace(rc, 2.0, 50'000, UINT32_MAX, 7);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_NEAR(static_cast<double>(r.sent), 2e6, 0.01 * 2e6);
  EXPECT_LE(r.biggest_burst, 64u);
}

TEST(RateControllerTest, ASlowLaneFallsShortVisibly) {
  // The lane can send 8 packets per ~1 us poll (~8 Mpps) but is asked for
  // 20 Mpps: it sends what it can, the shortfall is counted as skipped, and
  // nothing is claimed that did not happen.
  RateController rc = Make(20e6, 32, 256);
  const PaceResult r = Pace(rc, 0.5, 2500, 8, 3);
  EXPECT_LT(r.sent, 0.5 * 20e6 * 0.5);
  EXPECT_GT(r.skipped, 0u);
  // sent + skipped + backlog == what the schedule allowed.
  EXPECT_NEAR(static_cast<double>(r.sent + r.skipped), 0.5 * 20e6, 256 + 64);
}

TEST(RateControllerTest, StallForgivesDebtBeyondTheBacklog) {
  RateController rc = Make(1e6, 32, 1000);
  rc.Start(0);
  // 10 ms of silence owes 10000 packets; only 1000 may still go. (One tick
  // more than 10 ms, so float rounding cannot make it 9999.)
  const uint64_t t = kHz / 100 + 1;
  uint32_t n = rc.Due(t);
  EXPECT_EQ(n, 32u);
  EXPECT_EQ(rc.skipped(), 9000u);
  uint64_t burst_total = 0;
  while ((n = rc.Due(t)) > 0) {
    rc.OnSent(n);
    burst_total += n;
  }
  EXPECT_EQ(burst_total, 1000u);
  EXPECT_EQ(rc.sent() + rc.skipped(), 10'000u);
  // Then back on schedule: 1 packet per us.
  EXPECT_EQ(rc.Due(t + kHz / 1'000'000), 1u);
}

TEST(RateControllerTest, NothingBeforeStartOrFirstInterval) {
  RateController rc = Make(1000);  // one per ms
  rc.Start(kHz);
  EXPECT_EQ(rc.Due(kHz - 1), 0u);
  EXPECT_EQ(rc.Due(kHz), 0u);
  EXPECT_EQ(rc.Due(kHz + kHz / 1000 - 1), 0u);
  EXPECT_EQ(rc.Due(kHz + kHz / 1000 + 1), 1u);
}

TEST(RateControllerTest, NextDueTscPointsAtTheNextDeparture) {
  RateController rc = Make(3e5);
  rc.Start(1000);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t next = rc.NextDueTsc();
    EXPECT_EQ(rc.Due(next - 2), 0u) << i;
    const uint32_t n = rc.Due(next + 1);
    ASSERT_GE(n, 1u) << i;
    rc.OnSent(1);
  }
}

TEST(RateControllerTest, UnlimitedAlwaysOffersAFullBurst) {
  RateController rc = Make(0, 48);
  rc.Start(5);
  EXPECT_TRUE(rc.unlimited());
  EXPECT_EQ(rc.Due(0), 48u);
  EXPECT_EQ(rc.Due(6), 48u);
  rc.OnSent(48);
  EXPECT_EQ(rc.Due(7), 48u);
  EXPECT_EQ(rc.sent(), 48u);
}

TEST(RateControllerTest, RestartClearsTheSchedule) {
  RateController rc = Make(1e6);
  rc.Start(0);
  rc.OnSent(rc.Due(kHz / 1000));
  EXPECT_GT(rc.sent(), 0u);
  rc.Start(kHz);
  EXPECT_EQ(rc.sent(), 0u);
  EXPECT_EQ(rc.skipped(), 0u);
  EXPECT_EQ(rc.Due(kHz), 0u);
}

}  // namespace
}  // namespace rate_controller_test
}  // namespace zg::bench
