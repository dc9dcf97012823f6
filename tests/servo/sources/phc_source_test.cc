// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/phc_source.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace phc_source_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

constexpr int64_t kS = core::kNanosPerSecond;

// A PHC counting true TAI (plus `offset_ns`), read in the simulated world:
// every read of either clock takes SimWorld::step_per_read_ns. Extended
// reads disturb all but the middle triple by 2 us (before the PHC read);
// basic reads disturb every triple.

class FakePhcDevice final : public PhcDevice {
 public:
  FakePhcDevice(SimWorld* w, FakeSystemClockOps* ops) : w_(w), ops_(ops) {}

  const std::string& path() const override { return path_; }
  absl::StatusOr<PhcCaps> GetCaps() override { return caps; }

  absl::Status ReadExtended(clockid_t clock, int n,
                            std::vector<PhcTriple>* out) override {
    ++extended_calls;
    if (clock == CLOCK_MONOTONIC_RAW && !monoraw_status.ok()) {
      return monoraw_status;
    }
    if (!extended_status.ok()) return extended_status;
    for (int i = 0; i < n; ++i) out->push_back(Triple(clock, i != n / 2));
    return absl::OkStatus();
  }
  absl::Status ReadPrecise(PhcCrossStamp* out) override {
    if (!precise_status.ok()) return precise_status;
    w_->Advance(100);
    out->phc_ns = Phc();
    out->sys_realtime_ns = w_->Realtime();
    out->sys_monoraw_ns = w_->true_utc_ns - SimWorld::kStart + 1'000 * kS;
    return absl::OkStatus();
  }
  absl::Status ReadBasic(int n, std::vector<PhcTriple>* out) override {
    if (!basic_status.ok()) return basic_status;
    for (int i = 0; i < n; ++i) out->push_back(Triple(CLOCK_REALTIME, true));
    return absl::OkStatus();
  }

  PhcCaps caps;
  absl::Status monoraw_status;
  absl::Status extended_status;
  absl::Status precise_status = absl::UnimplementedError("no PTM");
  absl::Status basic_status;
  int64_t offset_ns = 0;
  std::optional<int64_t> fixed_ns;  // a PHC that does not count
  bool utc = false;
  int extended_calls = 0;

 private:
  int64_t Phc() const {
    if (fixed_ns) return *fixed_ns;
    return w_->true_utc_ns + (utc ? 0 : 37 * kS) + offset_ns;
  }
  PhcTriple Triple(clockid_t clock, bool disturbed) {
    PhcTriple t;
    ops_->ReadNs(clock, &t.sys_before_ns);
    if (disturbed) w_->Advance(2000);
    w_->Advance(w_->step_per_read_ns);  // the PHC read
    t.phc_ns = Phc();
    ops_->ReadNs(clock, &t.sys_after_ns);  // advances one step itself
    return t;
  }

  SimWorld* w_;
  FakeSystemClockOps* ops_;
  std::string path_ = "/dev/ptp7";
};

// A simulated world, TSC, kernel clocks and PHC device.
struct PhcRig {
  PhcRig() : tsc_(&w_), ops_(&w_) {
    auto dev = std::make_unique<FakePhcDevice>(&w_, &ops_);
    dev_ = dev.get();
    owned_ = std::move(dev);
  }
  absl::StatusOr<std::unique_ptr<PhcSource>> Make(PhcSourceOptions o = {}) {
    return PhcSource::Create(&tsc_, std::move(owned_), std::move(o), &ops_);
  }
  // |reference - truth| <= uncertainty, and the error itself is small.
  void ExpectHonest(const ReferenceSample& s, int64_t max_error_ns) {
    const int64_t truth =
        w_.TrueUtcAtTicks(s.raw_ticks) + 37 * kS + dev_->offset_ns;
    const int64_t err = s.reference_tai.value - truth;
    EXPECT_LE(std::llabs(err), s.uncertainty_ns);
    EXPECT_LE(std::llabs(err), max_error_ns);
  }

  SimWorld w_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
  FakePhcDevice* dev_;
  std::unique_ptr<PhcDevice> owned_;
};

class PhcSourceTest : public ::testing::Test, public PhcRig {};

TEST_F(PhcSourceTest, ExtendedMonoRawSampleIsExactAndHonest) {
  auto src = Make();
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ((*src)->method(), PhcReadMethod::kExtendedMonoRaw);
  EXPECT_EQ((*src)->info().name, "phc:/dev/ptp7");
  std::vector<ReferenceSample> out;
  for (int i = 0; i < 3; ++i) {
    w_.Advance(100'000'000);
    ASSERT_TRUE((*src)->Poll(&out).ok()) << (*src)->problem();
  }
  ASSERT_EQ(out.size(), 3u);
  for (const ReferenceSample& s : out) ExpectHonest(s, 5);
  // The undisturbed triple was kept: 2 reads of 10 ns between the stamps.
  EXPECT_EQ((*src)->last_bracket_ns(), 20);
  // 10 ns half-bracket + anchor mapping (tens of ns) + the 1 us PHC error.
  EXPECT_LT(out.back().uncertainty_ns, 1'000 + 200);
  EXPECT_GT(out.back().uncertainty_ns, 1'000);
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
}

TEST_F(PhcSourceTest, PhcOffsetShowsUpInTheSample) {
  dev_->offset_ns = 12'345;  // ptp4l has not converged yet
  auto src = Make();
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  ExpectHonest(out[0], 5);  // truth includes the offset
}

TEST_F(PhcSourceTest, FallsBackToRealtimeStampsThenBasic) {
  dev_->monoraw_status = absl::InvalidArgumentError("EINVAL");
  auto src = Make();
  ASSERT_TRUE(src.ok()) << src.status();
  EXPECT_EQ((*src)->method(), PhcReadMethod::kExtendedRealtime);
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ExpectHonest(out.at(0), 5);

  PhcRig basic_fixture_world;  // fresh world and device
  basic_fixture_world.dev_->extended_status =
      absl::UnimplementedError("EOPNOTSUPP");
  auto basic = basic_fixture_world.Make();
  ASSERT_TRUE(basic.ok()) << basic.status();
  EXPECT_EQ((*basic)->method(), PhcReadMethod::kBasic);
  out.clear();
  ASSERT_TRUE((*basic)->Poll(&out).ok());
  // Every basic triple was disturbed by 2 us before the PHC read: the PHC
  // read sits 1 us off the bracket's middle, which the half-width covers.
  basic_fixture_world.ExpectHonest(out.at(0), 1'100);
  EXPECT_GT(out.at(0).uncertainty_ns, 1'000 + 1'000);
}

TEST_F(PhcSourceTest, PrefersPreciseCrossTimestamps) {
  dev_->caps.cross_timestamping = true;
  dev_->precise_status = absl::OkStatus();
  auto src = Make();
  ASSERT_TRUE(src.ok());
  EXPECT_EQ((*src)->method(), PhcReadMethod::kPrecise);
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ExpectHonest(out.at(0), 5);
  EXPECT_EQ(dev_->extended_calls, 0);
  // Not allowed: extended instead.
  PhcRig other;
  other.dev_->caps.cross_timestamping = true;
  other.dev_->precise_status = absl::OkStatus();
  PhcSourceOptions o;
  o.allow_precise = false;
  auto src2 = other.Make(o);
  ASSERT_TRUE(src2.ok());
  EXPECT_EQ((*src2)->method(), PhcReadMethod::kExtendedMonoRaw);
}

TEST_F(PhcSourceTest, NoWorkingMethodIsAClearError) {
  dev_->monoraw_status = absl::InvalidArgumentError("EINVAL");
  dev_->extended_status = absl::UnimplementedError("EOPNOTSUPP");
  dev_->basic_status = absl::InternalError("EIO");
  const absl::Status s = Make().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("PTP_SYS_OFFSET: EIO"), std::string::npos) << s;
  EXPECT_NE(s.message().find("phc_ctl /dev/ptp7 get"), std::string::npos);
}

TEST_F(PhcSourceTest, UnsetPhcIsDownWithAHint) {
  dev_->fixed_ns = 5 * kS;  // 1970-01-01T00:00:05
  auto src = Make();
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  const absl::Status s = (*src)->Poll(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("never been set"), std::string::npos) << s;
  EXPECT_NE(s.message().find("ptp4l"), std::string::npos);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
}

TEST_F(PhcSourceTest, ReadFailureIsDownUntilItRecovers) {
  auto src = Make();
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  dev_->monoraw_status = absl::UnavailableError("EBUSY");
  EXPECT_EQ((*src)->Poll(&out).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
  dev_->monoraw_status = absl::OkStatus();
  ASSERT_TRUE((*src)->Poll(&out).ok());
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
  EXPECT_EQ(out.size(), 1u);
}

TEST_F(PhcSourceTest, UtcTimescaleIsMappedToTai) {
  dev_->utc = true;
  PhcSourceOptions o;
  o.timescale = PhcSourceOptions::Timescale::kUtc;
  EXPECT_EQ(PhcSource::Create(&tsc_, nullptr, o, &ops_).status().code(),
            absl::StatusCode::kInvalidArgument);  // no leap table
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  auto src = Make(o);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  ASSERT_TRUE((*src)->Poll(&out).ok());
  ExpectHonest(out.at(0), 5);
}

TEST(TightestPhcTripleTest, IgnoresBackwardsTriples) {
  EXPECT_FALSE(TightestPhcTriple({{10, 1, 5}}).has_value());
  const auto t = TightestPhcTriple({{0, 1, 100}, {200, 2, 230}, {300, 3, 250}});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->phc_ns, 2);
}

TEST(OpenPhcDeviceTest, ErrorsTellTheOperatorWhatToCheck) {
  const absl::Status missing = OpenPhcDevice("/dev/ptp_zg_missing").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("ls /sys/class/ptp/"), std::string::npos);
  EXPECT_NE(missing.message().find("ethtool -T"), std::string::npos);
  const absl::Status not_ptp = OpenPhcDevice("/dev/null").status();
  EXPECT_EQ(not_ptp.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(not_ptp.message().find("not a PTP hardware clock"),
            std::string::npos)
      << not_ptp;
}

}  // namespace
}  // namespace phc_source_test
}  // namespace zg::servo
