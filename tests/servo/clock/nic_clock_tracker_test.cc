// SPDX-License-Identifier: Apache-2.0
// NIC clock <-> TSC correlation and the composed NIC ticks -> TAI model: the
// same instant reads the same TAI through either model; the correlation's
// error is added to the bound; a stepped NIC clock restarts the line; a NIC
// whose rate drifts has its drift measured; read errors are reported.
#include "servo/clock/nic_clock_tracker.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace zg::servo {
namespace nic_clock_tracker_test {
namespace {

constexpr double kTscHz = 3e9;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

// A simulated TSC and NIC clock: NIC ticks (1 GHz nominal, its own epoch and
// rate error) as a function of TSC ticks.
struct FakeNic {
  uint64_t tsc = 9'000'000'000;
  double nic_per_tsc = 1.0 / 3.0 * (1 + 25e-6);  // 25 ppm fast
  double drift_per_tick = 0;  // change of nic_per_tsc per TSC tick
  double offset = 5e12;
  uint64_t bracket = 300;      // TSC ticks a read takes
  bool read_at_start = false;  // the NIC latches at tsc_before, not mid-way
  bool fail = false;

  double NicAt(uint64_t t) const {
    const double dt = static_cast<double>(t);
    return offset + dt * nic_per_tsc + 0.5 * drift_per_tick * dt * dt;
  }
  absl::StatusOr<BracketedRead> Read() {
    if (fail) return absl::UnavailableError("rte_eth_read_clock: -5");
    const uint64_t before = tsc;
    tsc += bracket;
    const uint64_t nic = static_cast<uint64_t>(
        NicAt(read_at_start ? before : before + bracket / 2));
    tsc += 7;
    return BracketedRead{before, nic, before + bracket};
  }
};

// A TSC model: TAI = 1.7e18 + (tsc - anchor) / 3 GHz, bound 100 ns.
core::ClockModel TscModel(uint64_t anchor) {
  core::ClockModel m;
  m.raw_anchor = anchor;
  m.tai_anchor = core::TaiNs{1'700'000'037'000'000'000};
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(kTscHz);
  m.error_bound_ns = 100;
  m.error_growth_ns_per_s = 10;
  m.max_extrapolation_ns = 10 * kS;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  return m;
}

class NicClockTrackerTest : public ::testing::Test {
 protected:
  NicClockTracker Make(NicTrackerOptions o = {}) {
    return NicClockTracker(
        "port0", [this] { return nic_.Read(); }, &out_, kTscHz, o);
  }
  // Ticks every 100 ms of TSC time for `seconds`.
  void Run(NicClockTracker& t, double seconds) {
    const int steps = static_cast<int>(seconds * 10);
    for (int i = 0; i < steps; ++i) {
      nic_.tsc += static_cast<uint64_t>(kTscHz / 10);
      mono_ += 100 * kMs;
      ASSERT_TRUE(t.Tick(mono_, TscModel(anchor_), nic_.tsc).ok());
    }
  }

  FakeNic nic_;
  core::PublishedClock out_;
  int64_t mono_ = 0;
  uint64_t anchor_ = 10'000'000'000;
};

TEST_F(NicClockTrackerTest, ComposedModelAgreesWithTheTscModel) {
  NicClockTracker t = Make();
  core::ClockModel m;
  ASSERT_TRUE(t.Tick(mono_, TscModel(anchor_), nic_.tsc).ok());
  EXPECT_FALSE(out_.TryRead(&m)) << "one point is no line";
  Run(t, 5);
  ASSERT_TRUE(out_.TryRead(&m));
  EXPECT_TRUE(t.status().published);
  EXPECT_EQ(t.status().name, "port0");
  // The same instant through both models.
  for (uint64_t dt : {0ULL, 1'500'000'000ULL, 6'000'000'000ULL}) {
    const uint64_t tsc = nic_.tsc + dt;
    const int64_t via_nic =
        m.RawToTai(static_cast<uint64_t>(nic_.NicAt(tsc))).value;
    const int64_t via_tsc = TscModel(anchor_).RawToTai(tsc).value;
    EXPECT_LE(std::llabs(via_nic - via_tsc), 3) << "dt " << dt;
  }
  // The correlation's error is on top of the TSC model's.
  EXPECT_GT(m.error_bound_ns, 100);
  EXPECT_LT(m.error_bound_ns, 100 + 200);
  EXPECT_GE(m.error_growth_ns_per_s, 10);
  EXPECT_EQ(m.state, core::SyncState::kLocked);
  EXPECT_EQ(m.max_extrapolation_ns, 10 * kS);
  EXPECT_NEAR(t.status().ticks_per_second, 1e9 * (1 + 25e-6), 1.0);
  EXPECT_GT(t.status().rate_uncertainty_ppb, 0);
  EXPECT_LT(t.status().rate_uncertainty_ppb, 100);
}

TEST_F(NicClockTrackerTest, SamplesFastUntilWarmThenAtTheInterval) {
  NicClockTracker t = Make({.sample_interval_ns = kS, .warmup_points = 8});
  Run(t, 0.8);
  EXPECT_EQ(t.status().points, 8u);
  Run(t, 3.0);
  EXPECT_EQ(t.status().points, 11u);  // then one a second
}

TEST_F(NicClockTrackerTest, SteppedNicClockRestartsTheLine) {
  NicClockTracker t = Make();
  Run(t, 10);
  nic_.offset += 5e6;  // the NIC clock is stepped by 5 ms of ticks
  Run(t, 10);
  EXPECT_EQ(t.status().steps, 1u);
  core::ClockModel m;
  ASSERT_TRUE(out_.TryRead(&m));
  const uint64_t tsc = nic_.tsc;
  EXPECT_LE(
      std::llabs(m.RawToTai(static_cast<uint64_t>(nic_.NicAt(tsc))).value -
                 TscModel(anchor_).RawToTai(tsc).value),
      3);
}

TEST_F(NicClockTrackerTest, DriftIsMeasuredNotAssumedZero) {
  // The NIC's rate moves by 2 ppb per second (relative).
  nic_.drift_per_tick = nic_.nic_per_tsc * 2e-9 / kTscHz;
  NicClockTracker t = Make({.window_points = 16, .segment_points = 8});
  Run(t, 200);
  ASSERT_TRUE(t.status().drift_ppb_per_s.has_value());
  EXPECT_NEAR(*t.status().drift_ppb_per_s, 2.0, 0.5);
  // ... and the published growth covers it over the horizon.
  core::ClockModel m;
  ASSERT_TRUE(out_.TryRead(&m));
  EXPECT_GE(m.error_growth_ns_per_s, 10 + 2 * 10);
}

TEST_F(NicClockTrackerTest, ReadErrorsAreReported) {
  NicClockTracker t = Make();
  nic_.fail = true;
  const absl::Status s = t.Tick(mono_, TscModel(anchor_), nic_.tsc);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("NIC clock port0"), std::string::npos) << s;
  EXPECT_EQ(t.status().read_errors, 1u);
  EXPECT_EQ(t.status().last_error, "rte_eth_read_clock: -5");
  core::ClockModel m;
  EXPECT_FALSE(out_.TryRead(&m));
}

TEST_F(NicClockTrackerTest, NoTscRateNoNicModel) {
  NicClockTracker t = Make();
  Run(t, 2);
  core::ClockModel none;  // ns_per_tick_q32 == 0: not synchronised yet
  EXPECT_FALSE(t.Compose(none, nic_.tsc).has_value());
  EXPECT_TRUE(t.Compose(TscModel(anchor_), nic_.tsc).has_value());
}

// A read that falls at the start of its bracket (a real NIC read may fall
// anywhere in it) puts the NIC model off by the bracket's half-width: the
// tracker cannot know where in the bracket the NIC latched, so it places the
// read mid-way and publishes the half-width in the bound. 300 TSC ticks at
// 3 GHz: 100 ns wide, 50 ns off.
TEST_F(NicClockTrackerTest, BracketPlacementErrorIsInThePublishedBound) {
  nic_.read_at_start = true;
  NicClockTracker t = Make();
  Run(t, 5);
  core::ClockModel m;
  ASSERT_TRUE(out_.TryRead(&m));
  const uint64_t tsc = nic_.tsc;
  const int64_t gap =
      std::llabs(m.RawToTai(static_cast<uint64_t>(nic_.NicAt(tsc))) -
                 TscModel(anchor_).RawToTai(tsc));
  EXPECT_GE(gap, 45) << "the bias is the half-width, 50 ns";
  EXPECT_LE(gap, 55);
  const int64_t mapping_ns =
      m.error_bound_ns - TscModel(anchor_).error_bound_ns;
  EXPECT_GE(mapping_ns, gap) << "the bound must cover the bracket";
  EXPECT_NEAR(t.status().mapping_error_ns, static_cast<double>(mapping_ns), 1);
  // Published as zeitgeber_nic_clock_bracket_half_width_seconds.
  EXPECT_NEAR(t.status().bracket_half_width_ns, 50, 1);
  EXPECT_LE(t.status().bracket_half_width_ns, t.status().mapping_error_ns);
}

}  // namespace
}  // namespace nic_clock_tracker_test
}  // namespace zg::servo
