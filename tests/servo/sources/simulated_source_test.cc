// SPDX-License-Identifier: Apache-2.0
// The simulated reference: its truth is CLOCK_REALTIME at creation advancing
// with MONOTONIC_RAW; its script (outage, control file, jump) and its claimed
// uncertainty; health follows the script through the timeout.
#include "servo/sources/simulated_source.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "servo/sources/refid.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace simulated_source_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

constexpr int64_t kS = 1'000'000'000;

class SimulatedSourceTest : public ::testing::Test {
 protected:
  SimulatedSourceTest() : tsc_(&world_), ops_(&world_) {}

  std::unique_ptr<SimulatedSource> Make(SimulatedSourceOptions o) {
    o.tai_minus_utc = FixedTaiMinusUtc(37);
    auto s = SimulatedSource::Create(&tsc_, std::move(o), &ops_);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  }

  // Error of a sample against the true TAI at its raw ticks (ns).
  int64_t Error(const ReferenceSample& s) const {
    return s.reference_tai.value -
           (world_.TrueUtcAtTicks(s.raw_ticks) + 37 * kS);
  }

  SimWorld world_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
};

TEST_F(SimulatedSourceTest, TracksTruthWithinItsUncertainty) {
  world_.realtime_error_ns = 0;
  auto src = Make({.uncertainty_ns = 500});
  ASSERT_NE(src, nullptr);
  EXPECT_EQ(src->info().name, "sim");
  EXPECT_EQ(src->info().kind, SourceKind::kSimulated);
  EXPECT_EQ(src->info().ntp_refid, NtpRefId("SIM"));
  EXPECT_EQ(src->health(), SourceHealth::kUnknown);
  std::vector<ReferenceSample> out;
  for (int i = 0; i < 5; ++i) {
    world_.Advance(kS);
    ASSERT_TRUE(src->Poll(&out).ok());
  }
  ASSERT_EQ(out.size(), 5u);
  for (const ReferenceSample& s : out) {
    EXPECT_LE(std::abs(Error(s)), 50) << "fake reads take 10 ns each";
    EXPECT_GE(s.uncertainty_ns, 500);
    EXPECT_LT(s.uncertainty_ns, 600);
  }
  EXPECT_EQ(src->health(), SourceHealth::kUp);
  EXPECT_TRUE(src->problem().ok());
  EXPECT_EQ(src->samples(), 5u);
}

TEST_F(SimulatedSourceTest, TruthIgnoresLaterStepsOfTheSystemClock) {
  auto src = Make({});
  world_.realtime_error_ns = 3 * kS;  // someone steps CLOCK_REALTIME
  world_.Advance(kS);
  std::vector<ReferenceSample> out;
  ASSERT_TRUE(src->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_LE(std::abs(Error(out[0])), 50);
}

TEST_F(SimulatedSourceTest, ScriptedOutageAndRecovery) {
  auto src = Make(
      {.up_for_ns = 10 * kS, .down_for_ns = 20 * kS, .timeout_ns = 3 * kS});
  std::vector<ReferenceSample> out;
  int ok_polls = 0;
  for (int t = 1; t <= 40; ++t) {
    world_.Advance(kS);
    const size_t before = out.size();
    const absl::Status st = src->Poll(&out);
    const bool up = out.size() > before;
    EXPECT_EQ(up, t < 10 || t >= 30) << "t=" << t;
    if (st.ok()) ++ok_polls;
    if (t == 11) {
      EXPECT_EQ(src->health(), SourceHealth::kUp) << "not yet";
    }
    if (t == 15) {
      EXPECT_EQ(src->health(), SourceHealth::kDown);
      EXPECT_NE(src->problem().message().find("scripted outage"),
                std::string::npos)
          << src->problem();
      EXPECT_FALSE(st.ok());
    }
    if (t == 31) {
      EXPECT_EQ(src->health(), SourceHealth::kUp);
    }
  }
  EXPECT_GT(ok_polls, 20);
}

TEST_F(SimulatedSourceTest, ControlFileSwitchesItDown) {
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/zg-sim-control-", getpid());
  auto src = Make({.control_file = path, .timeout_ns = 2 * kS});
  std::vector<ReferenceSample> out;
  world_.Advance(kS);
  ASSERT_TRUE(src->Poll(&out).ok());  // no file: up
  std::ofstream(path) << "down\n";
  for (int i = 0; i < 4; ++i) {
    world_.Advance(kS);
    (void)src->Poll(&out);
  }
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(src->health(), SourceHealth::kDown);
  EXPECT_NE(src->problem().message().find("says down"), std::string::npos);
  std::ofstream(path) << "up\n";
  world_.Advance(kS);
  ASSERT_TRUE(src->Poll(&out).ok());
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(src->health(), SourceHealth::kUp);
  std::remove(path.c_str());
}

TEST_F(SimulatedSourceTest, OffsetAndJump) {
  auto src = Make({.noise_ns = 0,
                   .offset_ns = 700,
                   .jump_ns = -5'000'000,
                   .jump_after_ns = 3 * kS});
  std::vector<ReferenceSample> out;
  for (int t = 1; t <= 5; ++t) {
    world_.Advance(kS);
    ASSERT_TRUE(src->Poll(&out).ok());
  }
  EXPECT_NEAR(Error(out[0]), 700, 50);
  EXPECT_NEAR(Error(out[1]), 700, 50);
  EXPECT_NEAR(Error(out[3]), 700 - 5'000'000, 50);
}

// Noise is seeded: the same seed gives identical samples, another seed other
// draws, with the configured sigma. Each source gets a world of its own, all
// in the same state and advanced alike, so only the seed tells them apart.
TEST_F(SimulatedSourceTest, NoiseIsSeeded) {
  struct World {
    SimWorld w;
    FakeRawClock tsc{&w};
    FakeSystemClockOps ops{&w};
  };
  World wa, wb, wc;
  const auto make = [](World& world, uint64_t seed) {
    SimulatedSourceOptions o{.noise_ns = 1'000, .seed = seed};
    o.tai_minus_utc = FixedTaiMinusUtc(37);
    auto s = SimulatedSource::Create(&world.tsc, std::move(o), &world.ops);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  };
  auto a = make(wa, 42), b = make(wb, 42), c = make(wc, 43);
  ASSERT_TRUE(a != nullptr && b != nullptr && c != nullptr);
  std::vector<ReferenceSample> sa, sb, sc;
  for (int i = 0; i < 400; ++i) {
    for (World* w : {&wa, &wb, &wc}) w->w.Advance(kS);
    ASSERT_TRUE(a->Poll(&sa).ok());
    ASSERT_TRUE(b->Poll(&sb).ok());
    ASSERT_TRUE(c->Poll(&sc).ok());
  }
  ASSERT_EQ(sa.size(), 400u);
  ASSERT_EQ(sb.size(), 400u);
  ASSERT_EQ(sc.size(), 400u);
  double sum2 = 0;
  int differ = 0;
  for (size_t i = 0; i < sa.size(); ++i) {
    // Same seed: the same sample, field by field.
    ASSERT_EQ(sb[i].raw_ticks, sa[i].raw_ticks) << "sample " << i;
    ASSERT_EQ(sb[i].reference_tai.value, sa[i].reference_tai.value)
        << "sample " << i;
    ASSERT_EQ(sb[i].uncertainty_ns, sa[i].uncertainty_ns) << "sample " << i;
    ASSERT_EQ(sb[i].taken_at.value, sa[i].taken_at.value) << "sample " << i;
    // Another seed: read at the same ticks, other noise.
    ASSERT_EQ(sc[i].raw_ticks, sa[i].raw_ticks) << "sample " << i;
    if (sc[i].reference_tai.value != sa[i].reference_tai.value) ++differ;
    const double e =
        static_cast<double>(sa[i].reference_tai.value -
                            (wa.w.TrueUtcAtTicks(sa[i].raw_ticks) + 37 * kS));
    sum2 += e * e;
  }
  // Two independent draws of sigma 1 us, rounded to 1 ns, coincide with
  // probability ~1 / (2 sqrt(pi) 1000) ~ 3e-4: about 0.1 of 400 samples.
  EXPECT_GE(differ, 395) << "seeds 42 and 43 drew the same noise";
  EXPECT_NEAR(std::sqrt(sum2 / 400), 1'000, 150);
}

TEST_F(SimulatedSourceTest, RejectsBadOptions) {
  SimulatedSourceOptions o;
  EXPECT_EQ(SimulatedSource::Create(&tsc_, o, &ops_).status().code(),
            absl::StatusCode::kInvalidArgument)
      << "no TAI-UTC";
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  o.uncertainty_ns = -1;
  EXPECT_EQ(SimulatedSource::Create(&tsc_, o, &ops_).status().code(),
            absl::StatusCode::kInvalidArgument);
  o.uncertainty_ns = 1;
  world_.fail_reads = true;
  EXPECT_EQ(SimulatedSource::Create(&tsc_, o, &ops_).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace simulated_source_test
}  // namespace zg::servo
