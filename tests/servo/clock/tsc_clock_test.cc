// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/tsc_clock.h"

#include <time.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "gtest/gtest.h"

namespace zg::servo {
namespace tsc_clock_test {
namespace {

TEST(CheckInvariantTscTest, NeedsBothFlagsOnEveryCpu) {
  const std::string good =
      "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc rdtscp\n\n"
      "processor\t: 1\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n";
  EXPECT_TRUE(CheckInvariantTsc(good).ok());
  const std::string missing =
      "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n"
      "processor\t: 1\nflags\t\t: fpu tsc constant_tsc\n";
  const absl::Status s = CheckInvariantTsc(missing);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("CPU 1 lack nonstop_tsc"), std::string::npos) << s;
  EXPECT_NE(s.message().find("invtsc"), std::string::npos) << s;
  // A flag that merely contains the name does not count.
  EXPECT_FALSE(
      CheckInvariantTsc("flags : constant_tsc nonstop_tsc_broken\n").ok());
  EXPECT_FALSE(CheckInvariantTsc("processor : 0\n").ok());
}

// A simulated TSC at `hz` (optionally drifting) against MONOTONIC_RAW.
struct SimTsc {
  double hz;
  double drift_ppb_per_s = 0;
  double t_ns = 1e12;  // monotonic raw
  std::mt19937_64 rng{42};
  uint64_t TicksAt(double ns) const {
    const double s = ns / 1e9;
    // Phase of a rate hz * (1 + d*s): integral gives hz*(s + d*s^2/2).
    return static_cast<uint64_t>(hz * (s + drift_ppb_per_s * 1e-9 * s * s / 2));
  }
  BracketedRead Read() {
    std::uniform_real_distribution<double> d(20, 400);
    BracketedRead r;
    r.tsc_before = TicksAt(t_ns);
    t_ns += d(rng);
    r.other = static_cast<uint64_t>(t_ns);
    t_ns += d(rng);
    r.tsc_after = TicksAt(t_ns);
    return r;
  }
  TscClock::Io Io() {
    TscClock::Io io;
    io.read_bracket = [this] { return Read(); };
    io.now_ticks = [this] { return TicksAt(t_ns); };
    io.sleep = [this](int64_t ns) { t_ns += static_cast<double>(ns); };
    return io;
  }
};

TEST(TscClockTest, CalibratesAKnownFrequency) {
  SimTsc sim{2'899'987'654.0};
  absl::StatusOr<std::unique_ptr<TscClock>> tsc =
      TscClock::CreateWithIo({}, sim.Io());
  ASSERT_TRUE(tsc.ok()) << tsc.status();
  TscCalibration c = (*tsc)->calibration();
  EXPECT_EQ(c.points, 20u);  // 100 ms / 5 ms
  EXPECT_NEAR(c.span_s, 0.095, 0.001);
  const double err_ppb = std::fabs(c.hz - sim.hz) / sim.hz * 1e9;
  EXPECT_LT(err_ppb, c.uncertainty_ppb);
  EXPECT_LT(c.uncertainty_ppb, 5'000);
  // Refining for a minute narrows it.
  for (int i = 0; i < 60; ++i) {
    sim.t_ns += 1e9;
    (*tsc)->Refine();
  }
  c = (*tsc)->calibration();
  EXPECT_LT(std::fabs(c.hz - sim.hz) / sim.hz * 1e9, c.uncertainty_ppb);
  EXPECT_LT(c.uncertainty_ppb, 20);
  EXPECT_EQ(c.steps, 0u);
  EXPECT_DOUBLE_EQ((*tsc)->NominalHz(), c.hz);
  // MONOTONIC_RAW <-> ticks through the fit.
  const uint64_t now = sim.TicksAt(sim.t_ns);
  EXPECT_NEAR(static_cast<double>((*tsc)->MonoRawNsAt(now)), sim.t_ns, 500);
  EXPECT_NEAR(static_cast<double>(
                  (*tsc)->TicksAtMonoRawNs(static_cast<int64_t>(sim.t_ns))),
              static_cast<double>(now), 1500);
}

TEST(TscClockTest, ReportsDriftOfTheEstimate) {
  SimTsc sim{3e9, /*drift_ppb_per_s=*/5.0};
  absl::StatusOr<std::unique_ptr<TscClock>> tsc =
      TscClock::CreateWithIo({.window_points = 16,
                              .initial_calibration_ns = 10'000'000,
                              .initial_point_spacing_ns = 5'000'000},
                             sim.Io());
  ASSERT_TRUE(tsc.ok()) << tsc.status();
  for (int i = 0; i < 200; ++i) {
    sim.t_ns += 1e9;
    (*tsc)->Refine();
  }
  const TscCalibration c = (*tsc)->calibration();
  ASSERT_TRUE(c.drift_ppb_per_s.has_value());
  EXPECT_NEAR(*c.drift_ppb_per_s, 5.0, 1.0);
  // The estimate follows the current rate, not the starting one.
  const double now_s = sim.t_ns / 1e9;
  const double true_now_hz = sim.hz * (1 + 5e-9 * now_s);
  EXPECT_LT(std::fabs(c.hz - true_now_hz) / true_now_hz * 1e9, 60);
}

TEST(TscClockTest, RejectsBadOptionsAndDeadClocks) {
  SimTsc sim{3e9};
  EXPECT_EQ(
      TscClock::CreateWithIo({.reads_per_point = 0}, sim.Io()).status().code(),
      absl::StatusCode::kInvalidArgument);
  TscClock::Io dead = sim.Io();
  dead.read_bracket = [] { return BracketedRead{5, 5, 5}; };
  EXPECT_EQ(TscClock::CreateWithIo({}, dead).status().code(),
            absl::StatusCode::kInternal);
}

// The real TSC of this machine (x86 with an invariant TSC; skipped
// otherwise).
TEST(TscClockTest, CalibratesThisMachinesTsc) {
  absl::StatusOr<std::unique_ptr<TscClock>> tsc = TscClock::Create();
  if (!tsc.ok() &&
      tsc.status().code() == absl::StatusCode::kFailedPrecondition) {
    GTEST_SKIP() << tsc.status();
  }
  ASSERT_TRUE(tsc.ok()) << tsc.status();
  const TscCalibration first = (*tsc)->calibration();
  EXPECT_GT(first.hz, 1e8);
  EXPECT_LT(first.hz, 1e10);
  EXPECT_LT(first.uncertainty_ppb, 100'000) << "brackets too wide?";
  for (int i = 0; i < 30; ++i) {
    struct timespec ts = {0, 10'000'000};
    nanosleep(&ts, nullptr);
    (*tsc)->Refine();
  }
  const TscCalibration later = (*tsc)->calibration();
  std::printf(
      "this machine: TSC %.3f Hz +- %.1f ppb (bound %.1f ppb) over %.3f s, "
      "%zu points, residual rms %.1f ns, widest half-bracket %lu ticks\n",
      later.hz, later.uncertainty_ppb, later.bound_ppb, later.span_s,
      later.points, later.residual_rms_ns,
      static_cast<unsigned long>(later.max_half_width_ticks));
  // Two estimates of the same frequency agree within their uncertainties
  // (plus 1 ppm for a loaded, shared VM).
  EXPECT_LT(std::fabs(later.hz - first.hz) / first.hz * 1e9,
            first.uncertainty_ppb + later.uncertainty_ppb + 1000);
  // The fit maps the TSC to MONOTONIC_RAW.
  struct timespec ts;
  const uint64_t t0 = (*tsc)->NowTicks();
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  const int64_t raw_ns = int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  EXPECT_LT(std::llabs((*tsc)->MonoRawNsAt(t0) - raw_ns), 100'000);
}

}  // namespace
}  // namespace tsc_clock_test
}  // namespace zg::servo
