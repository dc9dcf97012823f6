// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/pps_source.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace pps_source_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

constexpr int64_t kS = core::kNanosPerSecond;

// A PPS input whose edges arrive `delay_ns` after every true UTC second; the
// kernel stamps them with CLOCK_REALTIME `latency_ns` later.
class FakePpsDevice final : public PpsDevice {
 public:
  explicit FakePpsDevice(SimWorld* w) : w_(w) {}
  const std::string& path() const override { return path_; }
  absl::Status Configure(PpsEdge edge) override {
    configured = edge;
    return configure_status;
  }
  absl::Status Fetch(PpsFetch* out) override {
    if (!fetch_status.ok()) return fetch_status;
    const int64_t t = std::min(w_->true_utc_ns, stopped_at);
    const int64_t second = core::FloorDiv(t - delay_ns, kS);
    const int64_t edge_true = second * kS + delay_ns;
    const uint64_t seq =
        static_cast<uint64_t>(second - core::FloorDiv(SimWorld::kStart, kS));
    const int64_t stamp = edge_true + w_->realtime_error_ns + latency_ns;
    out->assert_sequence = seq;
    out->assert_realtime_ns = stamp;
    out->clear_sequence = seq;
    out->clear_realtime_ns = stamp + 100'000'000;  // 100 ms pulses
    return absl::OkStatus();
  }

  int64_t delay_ns = 0;
  int64_t latency_ns = 0;
  int64_t stopped_at = INT64_MAX;  // no edges after this true time
  std::optional<PpsEdge> configured;
  absl::Status configure_status;
  absl::Status fetch_status;

 private:
  SimWorld* w_;
  std::string path_ = "/dev/pps3";
};

// A simulated world, TSC, kernel clocks and PPS device.
struct PpsRig {
  PpsRig() : tsc_(&w_), ops_(&w_) {
    auto dev = std::make_unique<FakePpsDevice>(&w_);
    dev_ = dev.get();
    owned_ = std::move(dev);
    w_.Advance(300'000'000);  // start mid-second
  }
  PpsSourceOptions Options() {
    PpsSourceOptions o;
    o.coarse = SystemClockCoarseUtc();
    o.tai_minus_utc = FixedTaiMinusUtc(37);
    return o;
  }
  absl::StatusOr<std::unique_ptr<PpsSource>> Make(PpsSourceOptions o) {
    return PpsSource::Create(&tsc_, std::move(owned_), std::move(o), &ops_);
  }
  // Polls every `period_ns` for `total_ns`.
  void PollFor(PpsSource& src, int64_t total_ns, int64_t period_ns,
               std::vector<ReferenceSample>* out) {
    for (int64_t t = 0; t < total_ns; t += period_ns) {
      ASSERT_TRUE(src.Poll(out).ok()) << src.problem();
      w_.Advance(period_ns);
    }
  }
  void ExpectHonest(const ReferenceSample& s) {
    const int64_t truth = w_.TrueUtcAtTicks(s.raw_ticks) + 37 * kS;
    const int64_t err = s.reference_tai.value - truth;
    EXPECT_LE(std::llabs(err), s.uncertainty_ns) << "error " << err;
    EXPECT_EQ(core::FloorMod(s.reference_tai.value - dev_->delay_ns, kS), 0);
  }

  SimWorld w_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
  FakePpsDevice* dev_;
  std::unique_ptr<PpsDevice> owned_;
};

class PpsSourceTest : public ::testing::Test, public PpsRig {};

TEST_F(PpsSourceTest, EachEdgeBecomesAnHonestSampleOnTheRightSecond) {
  w_.realtime_error_ns = 180'000'000;  // system clock 180 ms off: still fine
  auto src = Make(Options());
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ(dev_->configured, PpsEdge::kAssert);
  EXPECT_EQ((*src)->info().name, "pps:/dev/pps3");
  std::vector<ReferenceSample> out;
  PollFor(**src, 5 * kS, 250'000'000, &out);
  ASSERT_EQ(out.size(), 5u);
  for (const ReferenceSample& s : out) {
    ExpectHonest(s);
    // Interpolated between anchors <= 250 ms apart: 10 ppm of <= 125 ms,
    // plus the 2 us edge error.
    EXPECT_LE(s.uncertainty_ns, 2'000 + 1'300);
  }
  EXPECT_EQ((*src)->stats().edges, 5u);
  EXPECT_EQ((*src)->stats().samples, 5u);
  EXPECT_EQ((*src)->stats().missed_edges, 0u);
  EXPECT_NEAR((*src)->stats().last_coarse_disagreement_ns, 180'000'000, 10);
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
}

TEST_F(PpsSourceTest, CoarseTimeTooFarFromASecondIsRejected) {
  w_.realtime_error_ns = 450'000'000;
  auto src = Make(Options());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  PollFor(**src, 2 * kS, 250'000'000, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->stats().rejected_coarse, 2u);
  EXPECT_EQ((*src)->health(), SourceHealth::kDegraded);
  EXPECT_NE((*src)->problem().message().find("0.450 s"), std::string::npos)
      << (*src)->problem();
  // Still rejected after the timeout: down, saying why.
  PollFor(**src, 3 * kS, 250'000'000, &out);
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
  EXPECT_NE((*src)->problem().message().find("coarse time"), std::string::npos)
      << (*src)->problem();
}

TEST_F(PpsSourceTest, CoarseSourceFromElsewhere) {
  PpsSourceOptions o = Options();
  // e.g. gpsd: 1 ms behind the truth, independent of the system clock.
  o.coarse = [this](core::UtcNs sys) -> absl::StatusOr<core::UtcNs> {
    return sys - w_.realtime_error_ns - 1'000'000;
  };
  w_.realtime_error_ns = -3 * kS;  // the system clock is 3 s wrong
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  PollFor(**src, 2 * kS, 250'000'000, &out);
  ASSERT_EQ(out.size(), 2u);
  for (const ReferenceSample& s : out) ExpectHonest(s);
}

TEST_F(PpsSourceTest, NoCoarseTimeMeansNoSample) {
  PpsSourceOptions o = Options();
  o.coarse = [](core::UtcNs) -> absl::StatusOr<core::UtcNs> {
    return absl::UnavailableError("gpsd: no GNSS fix");
  };
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  PollFor(**src, 2 * kS, 250'000'000, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->stats().coarse_unavailable, 2u);
  EXPECT_NE((*src)->problem().message().find("no GNSS fix"), std::string::npos);
}

TEST_F(PpsSourceTest, EdgeDelayAndClearEdge) {
  dev_->delay_ns = 250'000;  // 50 m of antenna cable + receiver
  PpsSourceOptions o = Options();
  o.edge_delay_ns = 250'000;
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  PollFor(**src, 3 * kS, 200'000'000, &out);
  ASSERT_EQ(out.size(), 3u);
  for (const ReferenceSample& s : out) ExpectHonest(s);

  PpsRig clear_rig;
  PpsSourceOptions c = clear_rig.Options();
  c.edge = PpsEdge::kClear;
  auto clear = clear_rig.Make(c);
  ASSERT_TRUE(clear.ok());
  EXPECT_EQ(clear_rig.dev_->configured, PpsEdge::kClear);
}

TEST_F(PpsSourceTest, CountsMissedEdgesAndTimesOut) {
  auto src = Make(Options());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  PollFor(**src, 2 * kS, 250'000'000, &out);
  w_.Advance(3 * kS);  // the control thread stalled for 3 s
  PollFor(**src, kS, 250'000'000, &out);
  EXPECT_EQ((*src)->stats().missed_edges, 2u);
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
  dev_->stopped_at = w_.true_utc_ns;  // the PPS signal stops
  PollFor(**src, 4 * kS, 250'000'000, &out);
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
  EXPECT_NE((*src)->problem().message().find("ppstest /dev/pps3"),
            std::string::npos)
      << (*src)->problem();
}

TEST_F(PpsSourceTest, StaleEdgeAtStartIsIgnored) {
  dev_->stopped_at = w_.true_utc_ns - 10 * kS;
  auto src = Make(Options());
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->stats().stale_edges, 1u);
}

TEST_F(PpsSourceTest, FetchFailureIsDown) {
  auto src = Make(Options());
  ASSERT_TRUE(src.ok());
  dev_->fetch_status = absl::UnavailableError("time_pps_fetch: EIO");
  std::vector<ReferenceSample> out;
  EXPECT_FALSE((*src)->Poll(&out).ok());
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
}

TEST_F(PpsSourceTest, SetupIsValidated) {
  PpsSourceOptions o = Options();
  o.coarse = nullptr;
  EXPECT_EQ(Make(o).status().code(), absl::StatusCode::kInvalidArgument);
  PpsRig rig2;
  PpsSourceOptions bad = rig2.Options();
  bad.max_coarse_disagreement_ns = 600'000'000;
  EXPECT_EQ(rig2.Make(bad).status().code(), absl::StatusCode::kInvalidArgument);
  PpsRig rig3;
  rig3.dev_->configure_status = absl::PermissionDeniedError("CAP_SYS_TIME");
  EXPECT_EQ(rig3.Make(rig3.Options()).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(OpenPpsDeviceTest, ErrorsTellTheOperatorWhatToCheck) {
  const absl::Status missing = OpenPpsDevice("/dev/pps_zg_missing").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("ls /sys/class/pps/"), std::string::npos);
  EXPECT_NE(missing.message().find("ldattach"), std::string::npos);
  const absl::Status not_pps = OpenPpsDevice("/dev/null").status();
  EXPECT_EQ(not_pps.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(not_pps.message().find("not a PPS device"), std::string::npos)
      << not_pps;
}

}  // namespace
}  // namespace pps_source_test
}  // namespace zg::servo
