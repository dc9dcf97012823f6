// SPDX-License-Identifier: Apache-2.0
// Whole-scenario simulations of the clock discipline: cold start, steady
// state, the state / clockClass / stratum sequence through an outage, a
// spoofed reference, falsetickers, failover, popcorn spikes and a majority
// that out-votes the model. The stated bounds are in each test's name and
// comment; doc/servo.md collects them.
//
// Common setting unless a test says otherwise: a 3 GHz raw clock that is
// 20 ppm off nominal with TCXO-like wander, a reference with 20 ns white noise
// claiming 60 ns uncertainty, one poll per second, default configuration
// (linear-regression servo, TCXO profile, in-spec limit 1.5 us).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "servo/holdover/holdover.h"
#include "tests/sim/sim_harness.h"

namespace zg::sim {
namespace {

using core::SyncState;
using servo::EventKind;

OscillatorParams Tcxo(uint64_t seed) {
  SimRng r(seed * 104729 + 3);
  OscillatorParams op;
  op.initial_ppb = r.Uniform(-20'000, 20'000);
  op.aging_ppb_per_day = r.Uniform(-1, 1);
  op.random_walk_ppb2_per_s = servo::TcxoProfile().random_walk_ppb2_per_s;
  return op;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

std::vector<servo::DisciplineEvent> StateEvents(const SimHarness& h) {
  std::vector<servo::DisciplineEvent> out;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kStateChange || e.kind == EventKind::kLocked ||
        e.kind == EventKind::kHoldoverEnter ||
        e.kind == EventKind::kHoldoverExit) {
      out.push_back(e);
    }
  }
  return out;
}

// ---- Cold start and steady state -------------------------------------------

struct ServoCase {
  const char* name;
  servo::ServoType type;
  bool software_pi;
  double lock_within_s;
  double p99_ns;
};

class SteadyStateSimTest : public testing::TestWithParam<ServoCase> {};

// Linreg: LOCKED (within 100 ns + uncertainty for 8 samples) within 30 s of
// the first sample; PI with linuxptp's software constants, which slews a
// sub-step phase error out slowly: within 300 s. Then, from 600 s to 1800 s,
// |error| p99 <= 40 ns (the reference's own noise is 20 ns rms) and the
// published bound covers the true error at >= 99.5 % of the seconds. Ten seeds
// each.
TEST_P(SteadyStateSimTest, LocksInTimeThenTracksWithinStatedP99) {
  const ServoCase& sc = GetParam();
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    servo::DisciplineConfig cfg;
    cfg.servo.type = sc.type;
    if (sc.software_pi) cfg.servo.pi = servo::SoftwarePi();
    SimHarness h(Tcxo(seed), seed, cfg);
    h.AddReference(ReferenceParams{}, SimSourceInfo("gps", 0), seed + 100);
    double locked_at = -1;
    std::vector<double> errors;
    int checks = 0, outside = 0;
    h.RunUntil(1800, [&](const SimCheck& c) {
      if (locked_at < 0 && c.state == SyncState::kLocked) locked_at = c.t_s;
      if (c.t_s < 600) return;
      EXPECT_EQ(c.state, SyncState::kLocked)
          << "seed " << seed << " t " << c.t_s;
      errors.push_back(std::fabs(static_cast<double>(c.error_ns)));
      ++checks;
      outside += std::abs(c.error_ns) > c.bound_ns;
      outside += std::abs(c.aged_error_ns) > c.aged_bound_ns;
    });
    ASSERT_GT(locked_at, 0) << "seed " << seed;
    EXPECT_LE(locked_at, sc.lock_within_s) << "seed " << seed;
    const double p99 = Percentile(errors, 0.99);
    EXPECT_LE(p99, sc.p99_ns) << "seed " << seed;
    EXPECT_LE(outside, 0.005 * 2 * checks) << "seed " << seed;
    if (seed == 1) {
      std::printf("%s: locked at %.0f s, |error| p50 %.0f ns p99 %.0f ns\n",
                  sc.name, locked_at, Percentile(errors, 0.5), p99);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Servos, SteadyStateSimTest,
    testing::Values(
        ServoCase{"linreg", servo::ServoType::kLinreg, false, 30, 40},
        ServoCase{"pi_software", servo::ServoType::kPi, true, 300, 40}),
    [](const auto& info) { return std::string(info.param.name); });

// ---- States, clockClass, stratum through an outage -------------------------

// 1588 default profile, TCXO. Outage 900..2700 s. LOCKED (class 6, stratum
// 1) until the source timeout (5 s after the last sample), then
// HOLDOVER_IN_SPEC (7, stratum 1, synchronised) until the first second the
// bound exceeds 1.5 us, then HOLDOVER_OUT_OF_SPEC (52, stratum 16, NTP
// unsynchronised), then LOCKING when samples return and LOCKED (6) again.
TEST(StatesSimTest, StateClassAndStratumChangeAtTheRightMoments) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(7), 7, cfg);
  const int gps = h.AddReference(ReferenceParams{}, SimSourceInfo("gps", 0), 8);
  h.reference(gps).AddOutage(900, 2700);
  double holdover_at = -1, oos_at = -1, relocked_at = -1;
  int64_t prev_bound = 0;
  h.RunUntil(3000, [&](const SimCheck& c) {
    if (c.t_s < 900) {
      if (c.state == SyncState::kLocked) {
        EXPECT_EQ(c.clock_class, 6);
        EXPECT_EQ(c.stratum, 1);
        EXPECT_TRUE(c.synchronized);
      }
    } else if (c.t_s < 2700) {
      if (c.t_s <= 904) {
        EXPECT_EQ(c.state, SyncState::kLocked) << c.t_s;  // coasting
      } else if (c.state == SyncState::kHoldoverInSpec) {
        if (holdover_at < 0) holdover_at = c.t_s;
        EXPECT_EQ(c.clock_class, 7);
        EXPECT_EQ(c.stratum, 1);
        EXPECT_TRUE(c.synchronized);
        EXPECT_LE(c.bound_ns, 1'500 + 1);
      } else {
        EXPECT_EQ(c.state, SyncState::kHoldoverOutOfSpec) << c.t_s;
        if (oos_at < 0) {
          oos_at = c.t_s;
          EXPECT_LE(prev_bound, 1'500 + 1);  // in spec one second earlier
          EXPECT_GT(c.bound_ns, 1'500);
        }
        EXPECT_EQ(c.clock_class, 52);
        EXPECT_EQ(c.stratum, 16);
        EXPECT_FALSE(c.synchronized);
        EXPECT_EQ(c.model->NtpLeapAt(c.model->tai_anchor),
                  core::NtpLeapIndicator::kUnsynchronized);
      }
      prev_bound = c.bound_ns;
    } else if (c.state == SyncState::kLocked && relocked_at < 0) {
      relocked_at = c.t_s;
      EXPECT_EQ(c.clock_class, 6);
    }
  });
  EXPECT_EQ(holdover_at, 905);
  EXPECT_GT(oos_at, holdover_at);
  EXPECT_GT(relocked_at, 2700);
  EXPECT_LE(relocked_at, 2760);
  std::printf("holdover at %.0f s, out of spec at %.0f s, relocked at %.0f s\n",
              holdover_at, oos_at, relocked_at);

  const auto ev = StateEvents(h);
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev[0].to_state, SyncState::kLocking);
  EXPECT_EQ(ev[1].kind, EventKind::kLocked);
  EXPECT_EQ(ev[2].kind, EventKind::kHoldoverEnter);
  EXPECT_EQ(ev[2].to_state, SyncState::kHoldoverInSpec);
  EXPECT_EQ(ev[3].kind, EventKind::kStateChange);
  EXPECT_EQ(ev[3].to_state, SyncState::kHoldoverOutOfSpec);
  EXPECT_EQ(ev[4].kind, EventKind::kHoldoverExit);
  EXPECT_EQ(ev[5].kind, EventKind::kLocked);
  std::vector<std::pair<int, int>> classes;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kClockClassChange) {
      classes.emplace_back(e.from_class, e.to_class);
    }
  }
  ASSERT_GE(classes.size(), 4u);
  EXPECT_EQ(classes[0], std::make_pair(248, 6));
  EXPECT_EQ(classes[1], std::make_pair(6, 7));
  EXPECT_EQ(classes[2], std::make_pair(7, 52));
  EXPECT_EQ(classes.back().second, 6);
}

// G.8275.1 T-GM classes with a TCXO (frequency category 3) and a 5 us
// free-run limit: 6 -> 7 -> 160 -> 248 as the bound crosses 1.5 us and 5 us;
// FREERUN serves stratum 16; after the outage the clock relocks (class 6).
TEST(StatesSimTest, G8275ClassesAndFreerunLimit) {
  servo::DisciplineConfig cfg;
  cfg.class_policy.profile = servo::ClassProfile::kG8275Gm;
  cfg.holdover.freerun_limit_ns = 5'000;
  SimHarness h(Tcxo(9), 9, cfg);
  const int gps =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps", 0), 10);
  h.reference(gps).AddOutage(600, 4200);
  double freerun_at = -1;
  int64_t prev_bound = 0;
  h.RunUntil(4500, [&](const SimCheck& c) {
    if (c.t_s >= 600 && c.t_s < 4200 && c.state == SyncState::kFreerun) {
      if (freerun_at < 0) {
        freerun_at = c.t_s;
        EXPECT_LE(prev_bound, 5'000 + 1);
        EXPECT_GT(c.bound_ns, 5'000);
      }
      EXPECT_EQ(c.clock_class, 248);
      EXPECT_EQ(c.stratum, 16);
      EXPECT_FALSE(c.synchronized);
    }
    prev_bound = c.bound_ns;
    if (c.t_s == 4500) {
      EXPECT_EQ(c.clock_class, 6);
    }
  });
  EXPECT_GT(freerun_at, 600);
  std::vector<int> classes;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kClockClassChange) classes.push_back(e.to_class);
  }
  const std::vector<int> want_prefix = {6, 7, 160, 248};
  ASSERT_GE(classes.size(), want_prefix.size());
  EXPECT_TRUE(
      std::equal(want_prefix.begin(), want_prefix.end(), classes.begin()));
  EXPECT_EQ(classes.back(), 6);
}

// ---- Spoofing, falsetickers, failover --------------------------------------

// One source, locked; from t = 600 s it reads 1 ms late (a spoofer). Every
// such sample is rejected and reported (reason "jump"); the model is never
// stepped; the served time stays within 1 us of the truth and inside the
// published bound; the discipline holds over from 605 s.
TEST(SpoofSimTest, OneMillisecondJumpIsRejectedAndServedTimeStaysPut) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(11), 11, cfg);
  const int gps =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps", 0), 12);
  h.reference(gps).SetJump(600, 1e6);
  h.RunUntil(599);
  const int startup_steps = h.CountEvents(EventKind::kStep);
  h.RunUntil(900, [&](const SimCheck& c) {
    EXPECT_LT(std::abs(c.error_ns), 1'000) << c.t_s;
    EXPECT_LE(std::abs(c.error_ns), c.bound_ns) << c.t_s;
    if (c.t_s >= 605) {
      EXPECT_EQ(c.state, SyncState::kHoldoverInSpec) << c.t_s;
    }
  });
  int jumps = 0;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kSampleRejected &&
        e.reason == servo::RejectReason::kJump) {
      ++jumps;
      EXPECT_NEAR(static_cast<double>(e.offset_ns), -1e6, 1e3);
      EXPECT_LT(e.limit_ns, 10'000);
    }
  }
  EXPECT_EQ(jumps, 301);  // every sample from 600 to 900 s
  EXPECT_EQ(h.CountEvents(EventKind::kStep), startup_steps);  // none since
  EXPECT_EQ(h.CountEvents(EventKind::kSourceDown), 0);
  EXPECT_TRUE(h.discipline().source_status(0).suspect);
}

// With jump_accept_after = 5 (explicit configuration), the discipline
// follows a reference that really moved: five rejections, then it
// re-acquires and steps once.
TEST(SpoofSimTest, ConfiguredJumpAcceptanceStepsAfterFiveRejections) {
  servo::DisciplineConfig cfg;
  cfg.jump_accept_after = 5;
  SimHarness h(Tcxo(13), 13, cfg);
  const int gps =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps", 0), 14);
  h.reference(gps).SetJump(600, 1e6);
  h.RunUntil(599);
  const int startup_steps = h.CountEvents(EventKind::kStep);
  h.RunUntil(700, [&](const SimCheck& c) {
    if (c.t_s >= 690) {
      EXPECT_NEAR(static_cast<double>(c.error_ns), 1e6, 200) << c.t_s;
      EXPECT_EQ(c.state, SyncState::kLocked);
    }
  });
  int jumps = 0;
  for (const auto& e : h.events()) {
    jumps += e.kind == EventKind::kSampleRejected;
  }
  EXPECT_EQ(jumps, 5);
  EXPECT_EQ(h.CountEvents(EventKind::kStep), startup_steps + 1);
}

// Three sources; the preferred one is spoofed by 1 ms at 600 s. It becomes a
// falseticker, selection moves to the next one within 2 s, and the clock
// stays LOCKED with |error| < 200 ns throughout.
TEST(SelectionSimTest, SpoofedPrimaryIsOutvotedByTwoOthers) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(15), 15, cfg);
  const int a =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps-a", 0), 16);
  h.AddReference(ReferenceParams{}, SimSourceInfo("gps-b", 1), 17);
  h.AddReference(ReferenceParams{}, SimSourceInfo("gps-c", 2), 18);
  h.reference(a).SetJump(600, 1e6);
  h.RunUntil(900, [&](const SimCheck& c) {
    if (c.t_s < 300) return;
    EXPECT_EQ(c.state, SyncState::kLocked) << c.t_s;
    EXPECT_LT(std::abs(c.error_ns), 200) << c.t_s;
  });
  double switched_at = -1;
  bool falseticker = false;
  for (const auto& e : h.events()) {
    if (e.kind == EventKind::kFalseticker && e.source == 0) falseticker = true;
    if (e.kind == EventKind::kSourceSwitch && e.other_source == 0) {
      // The model's TAI at the event, as seconds of the run.
      switched_at = (e.tai - OscillatorParams{}.tai_start) * 1e-9;
      EXPECT_EQ(e.source, 1);
    }
  }
  EXPECT_TRUE(falseticker);
  EXPECT_GE(switched_at, 599.99);
  EXPECT_LE(switched_at, 602.01);
  EXPECT_TRUE(h.discipline().source_status(0).falseticker);
  EXPECT_TRUE(h.discipline().source_status(1).selected);
  EXPECT_EQ(h.CountEvents(EventKind::kHoldoverEnter), 0);
}

// Two sources. The preferred one is silent 600..900 s: selection fails over
// when it times out (605 s) without leaving LOCKED; when it returns it is
// selected again only after 5 consecutive better polls (904 s).
TEST(SelectionSimTest, FailoverWithoutHoldoverAndHysteresisOnReturn) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(19), 19, cfg);
  const int a =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps-a", 0), 20);
  h.AddReference(ReferenceParams{}, SimSourceInfo("gps-b", 1), 21);
  h.reference(a).AddOutage(600, 900);
  std::vector<std::pair<double, int>> selected;
  h.RunUntil(1000, [&](const SimCheck& c) {
    if (c.t_s >= 300) {
      EXPECT_EQ(c.state, SyncState::kLocked) << c.t_s;
      EXPECT_LE(std::abs(c.error_ns), c.bound_ns) << c.t_s;
    }
    const int sel = h.discipline().status().selected;
    if (selected.empty() || selected.back().second != sel) {
      selected.emplace_back(c.t_s, sel);
    }
  });
  ASSERT_EQ(selected.size(), 3u);
  EXPECT_EQ(selected[0], std::make_pair(1.0, 0));
  EXPECT_EQ(selected[1], std::make_pair(605.0, 1));
  EXPECT_EQ(selected[2], std::make_pair(904.0, 0));
  EXPECT_EQ(h.CountEvents(EventKind::kHoldoverEnter), 0);
  EXPECT_EQ(h.CountEvents(EventKind::kSourceDown), 1);
}

// ---- Filters and re-acquisition --------------------------------------------

// 2 % of samples are 500 ns spikes that still claim 60 ns uncertainty. Once
// locked, at least 80 % of all spikes are rejected as outliers and |error|
// p99 stays <= 40 ns.
// An operator's changes while locked (zgctl source ...): a better reference
// added at 300 s is selected at the next update, without hysteresis;
// disabled at 500 s, the first one takes over at once, and again after the
// better one is enabled (550 s) and deleted (700 s). The served time never
// moves by more than 25 ns from one published model to the next at the
// same instant (the references' noise is 20 ns; a step would be
// microseconds), stays within its bound, and nothing steps or holds over.
TEST(SelectionSimTest, OperatorChangesHandOverWithoutAStep) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(23), 23, cfg);
  const int a =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps-a", 1), 24);
  h.RunUntil(300);
  ASSERT_EQ(h.discipline().model().state, SyncState::kLocked);
  const uint64_t steps = h.discipline().status().steps;
  std::vector<std::pair<double, int>> selected;
  double worst_move_ns = 0;
  const auto observe = [&](const SimCheck& c) {
    EXPECT_EQ(c.state, SyncState::kLocked) << c.t_s;
    EXPECT_LE(std::abs(c.error_ns), c.bound_ns) << c.t_s;
    worst_move_ns =
        std::max(worst_move_ns,
                 std::abs(static_cast<double>(c.error_ns - c.aged_error_ns)));
    const int sel = h.discipline().status().selected;
    if (selected.empty() || selected.back().second != sel) {
      selected.emplace_back(c.t_s, sel);
    }
  };
  const int b =
      h.AddReference(ReferenceParams{}, SimSourceInfo("gps-b", 0), 25);
  const int ia = h.source_index(a), ib = h.source_index(b);
  h.RunUntil(500, observe);
  ASSERT_TRUE(h.discipline().SetSourceEnabled(ib, false).ok());
  h.RunUntil(550, observe);
  ASSERT_TRUE(h.discipline().SetSourceEnabled(ib, true).ok());
  h.RunUntil(700, observe);
  h.RemoveReference(b);
  h.RunUntil(900, observe);
  EXPECT_EQ(selected, (std::vector<std::pair<double, int>>{
                          {301, ib}, {501, ia}, {551, ib}, {701, ia}}));
  EXPECT_LE(worst_move_ns, 25);
  EXPECT_EQ(h.discipline().status().steps, steps);
  EXPECT_EQ(h.CountEvents(EventKind::kHoldoverEnter), 0);
  EXPECT_EQ(h.CountEvents(EventKind::kSourceDown), 0)
      << "a removal is not a loss";
  std::printf("largest move of the served time between two models: %.1f ns\n",
              worst_move_ns);
}

TEST(FilterSimTest, PopcornSpikesAreRejected) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(23), 23, cfg);
  ReferenceParams rp;
  rp.outlier_probability = 0.02;
  rp.outlier_ns = 500;
  const int gps = h.AddReference(rp, SimSourceInfo("gps", 0), 24);
  std::vector<double> errors;
  h.RunUntil(3600, [&](const SimCheck& c) {
    if (c.t_s >= 300)
      errors.push_back(std::fabs(static_cast<double>(c.error_ns)));
  });
  const int injected = h.reference(gps).outliers_injected();
  const uint64_t rejected = h.discipline().source_status(0).outliers;
  std::printf("spikes injected %d, rejected %lu\n", injected,
              static_cast<unsigned long>(rejected));
  EXPECT_GT(injected, 40);
  EXPECT_GE(rejected, 0.8 * injected);
  EXPECT_LE(rejected, injected + 5u);  // few good samples lost
  EXPECT_LE(Percentile(errors, 0.99), 40);
}

// Three sources all move 1 ms at 600 s — all spoofed alike, as GNSS
// spoofing does to every antenna. By default the model is reported out-voted
// but not moved: every sample is rejected, no step, holdover from 605 s, and
// the served time stays within 1 us of the truth.
TEST(FilterSimTest, OutvotedModelHoldsByDefault) {
  servo::DisciplineConfig cfg;
  SimHarness h(Tcxo(25), 25, cfg);
  for (int i = 0; i < 3; ++i) {
    const int r =
        h.AddReference(ReferenceParams{}, SimSourceInfo("gps", i), 26 + i);
    h.reference(r).SetJump(600, 1e6);
  }
  h.RunUntil(599);
  const int startup_steps = h.CountEvents(EventKind::kStep);
  h.RunUntil(900, [&](const SimCheck& c) {
    EXPECT_LT(std::abs(c.error_ns), 1'000) << c.t_s;
    if (c.t_s >= 605) {
      EXPECT_EQ(c.state, SyncState::kHoldoverInSpec) << c.t_s;
    }
  });
  EXPECT_EQ(h.CountEvents(EventKind::kModelOutvoted), 1);
  EXPECT_EQ(h.CountEvents(EventKind::kStep), startup_steps);
}

// The same with follow_outvoting_majority (the timescale itself was
// corrected): the model re-acquires with one step and is LOCKED to the new
// time by 700 s.
TEST(FilterSimTest, ConfiguredToFollowTheMajorityTheModelReacquires) {
  servo::DisciplineConfig cfg;
  cfg.follow_outvoting_majority = true;
  SimHarness h(Tcxo(25), 25, cfg);
  for (int i = 0; i < 3; ++i) {
    const int r =
        h.AddReference(ReferenceParams{}, SimSourceInfo("gps", i), 26 + i);
    h.reference(r).SetJump(600, 1e6);
  }
  h.RunUntil(599);
  const int startup_steps = h.CountEvents(EventKind::kStep);
  h.RunUntil(720, [&](const SimCheck& c) {
    if (c.t_s >= 700) {
      EXPECT_EQ(c.state, SyncState::kLocked) << c.t_s;
      EXPECT_NEAR(static_cast<double>(c.error_ns), 1e6, 200) << c.t_s;
    }
  });
  EXPECT_EQ(h.CountEvents(EventKind::kModelOutvoted), 1);
  EXPECT_EQ(h.CountEvents(EventKind::kStep), startup_steps + 1);
}

}  // namespace
}  // namespace zg::sim
