// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/clock_discipline.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace clock_discipline_test {
namespace {

using core::SyncState;

constexpr uint64_t kRaw0 = 10'000'000'000ULL;
const core::TaiNs kT0{1'700'000'037'000'000'000};
constexpr uint64_t kTicksPerSecond = 1'000'000'000;  // 1 GHz raw clock

DisciplineConfig Config() {
  DisciplineConfig c;
  c.raw_nominal_hz = 1e9;
  return c;
}

SourceInfo Gps(int priority = 0) {
  SourceInfo i;
  i.name = "gps";
  i.kind = SourceKind::kGpsd;
  i.ntp_refid = NtpRefId("GPS");
  i.stratum = 0;
  i.ptp_time_source = core::PtpTimeSource::kGnss;
  i.time_traceable = true;
  i.frequency_traceable = true;
  i.priority = priority;
  return i;
}

// A perfect reference against a perfect 1 GHz raw clock, offset by `err_ns`.
ReferenceSample At(int64_t second, int64_t err_ns = 0, int64_t u = 50) {
  ReferenceSample s;
  s.raw_ticks = kRaw0 + static_cast<uint64_t>(second) * kTicksPerSecond;
  s.reference_tai = kT0 + second * 1'000'000'000 + err_ns;
  s.uncertainty_ns = u;
  s.taken_at = s.reference_tai;
  return s;
}

uint64_t RawAt(int64_t second) {
  return kRaw0 + static_cast<uint64_t>(second) * kTicksPerSecond;
}

class DisciplineTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(Config()); }
  void Make(const DisciplineConfig& c) {
    auto d = ClockDiscipline::Create(c);
    ASSERT_TRUE(d.ok()) << d.status();
    d_ = *std::move(d);
    d_->SetEventSink(
        [this](const DisciplineEvent& e) { events_.push_back(e); });
    gps_ = *d_->AddSource(Gps());
  }
  // Feeds one sample per second from `from` to `to` (inclusive).
  const core::ClockModel& Feed(int64_t from, int64_t to, int64_t err_ns = 0) {
    for (int64_t t = from; t <= to; ++t) {
      const ReferenceSample s = At(t, err_ns);
      d_->AddSamples(gps_, {&s, 1});
      d_->Update(RawAt(t));
    }
    return d_->model();
  }
  int Count(EventKind kind) const {
    int n = 0;
    for (const auto& e : events_) n += e.kind == kind;
    return n;
  }

  std::unique_ptr<ClockDiscipline> d_;
  std::vector<DisciplineEvent> events_;
  int gps_ = -1;
};

TEST_F(DisciplineTest, BeforeAnySampleItIsUnsynchronised) {
  const core::ClockModel& m = d_->Update(RawAt(0));
  EXPECT_EQ(m.state, SyncState::kFreerun);
  EXPECT_FALSE(m.IsSynchronized(m.tai_anchor));
  EXPECT_EQ(m.stratum, 16);
  EXPECT_EQ(m.ptp_quality.clock_class, 248);
  EXPECT_EQ(m.ptp_quality.clock_accuracy, 0xFE);
  EXPECT_EQ(m.ptp_quality.offset_scaled_log_variance, 0xFFFF);
  EXPECT_EQ(m.reference_id, NtpRefId("INIT"));  // ClockModel: BE value
  EXPECT_GT(m.error_bound_ns, int64_t{1} << 60);
  EXPECT_EQ(d_->status().bound_ns, -1);
}

TEST_F(DisciplineTest, FirstSampleSetsTheTimeAndIsAudited) {
  const core::ClockModel& m = Feed(0, 0);
  EXPECT_EQ(m.RawToTai(RawAt(0)), kT0);
  EXPECT_EQ(m.state, SyncState::kLocking);
  EXPECT_EQ(m.stratum, 1);
  EXPECT_EQ(m.reference_id, NtpRefId("GPS"));
  EXPECT_EQ(m.error_bound_ns, 50 + 1);  // uncertainty + anchor rounding
  ASSERT_GE(events_.size(), 4u);
  EXPECT_EQ(events_[0].kind, EventKind::kSourceUp);
  EXPECT_EQ(events_[1].kind, EventKind::kSourceSwitch);
  EXPECT_EQ(events_[1].source, gps_);
  EXPECT_EQ(events_[1].other_source, -1);
  EXPECT_EQ(events_[2].kind, EventKind::kStep);
  EXPECT_EQ(events_[3].kind, EventKind::kStateChange);
  EXPECT_EQ(events_[3].from_state, SyncState::kFreerun);
  EXPECT_EQ(events_[3].to_state, SyncState::kLocking);
}

TEST_F(DisciplineTest, LocksAndAdvertisesItsQuality) {
  const core::ClockModel& m = Feed(0, 60);
  EXPECT_EQ(m.state, SyncState::kLocked);
  EXPECT_EQ(Count(EventKind::kLocked), 1);
  EXPECT_EQ(m.ptp_quality.clock_class, 6);
  EXPECT_LE(m.ptp_quality.clock_accuracy, 0x22);  // within 250 ns
  EXPECT_NE(m.ptp_quality.offset_scaled_log_variance, 0xFFFF);
  EXPECT_TRUE(m.time_traceable);
  EXPECT_TRUE(m.frequency_traceable);
  EXPECT_EQ(m.ptp_time_source, core::PtpTimeSource::kGnss);
  EXPECT_EQ(m.reference_time, At(60).reference_tai);
  EXPECT_EQ(m.RawToTai(RawAt(60)), At(60).reference_tai);
  EXPECT_LE(m.error_bound_ns, 100);
  EXPECT_EQ(m.max_extrapolation_ns, 10'000'000'000);
  EXPECT_TRUE(m.IsSynchronized(m.tai_anchor + 9'000'000'000));
  EXPECT_EQ(Count(EventKind::kStep), 1);  // only the start-up one
}

TEST_F(DisciplineTest, JumpedSampleIsRejectedAndReported) {
  Feed(0, 60);
  const core::TaiNs before = d_->model().RawToTai(RawAt(61));
  events_.clear();
  Feed(61, 61, /*err_ns=*/1'000'000);  // a 1 ms spoof
  ASSERT_EQ(Count(EventKind::kSampleRejected), 1);
  const DisciplineEvent& e = events_[0];
  EXPECT_EQ(e.reason, RejectReason::kJump);
  EXPECT_NEAR(static_cast<double>(e.offset_ns), -1e6, 100);
  EXPECT_LT(e.limit_ns, 2'000);
  EXPECT_EQ(d_->model().RawToTai(RawAt(61)), before);
  EXPECT_EQ(d_->source_status(gps_).jumps, 1u);
  Feed(62, 63, 1'000'000);
  EXPECT_TRUE(d_->source_status(gps_).suspect);
  EXPECT_EQ(Count(EventKind::kStep), 0);
}

TEST_F(DisciplineTest, ReferenceLossEntersHoldoverAtTheTimeout) {
  Feed(0, 60);
  events_.clear();
  d_->Update(RawAt(64));  // 4 s without samples: coasting, still LOCKED
  EXPECT_EQ(d_->model().state, SyncState::kLocked);
  d_->Update(RawAt(66));
  EXPECT_EQ(d_->model().state, SyncState::kHoldoverInSpec);
  EXPECT_EQ(d_->model().ptp_quality.clock_class, 7);
  EXPECT_EQ(d_->model().ptp_time_source,
            core::PtpTimeSource::kInternalOscillator);
  EXPECT_EQ(Count(EventKind::kSourceDown), 1);
  EXPECT_EQ(Count(EventKind::kHoldoverEnter), 1);
  EXPECT_EQ(Count(EventKind::kClockClassChange), 1);
  // Samples back: holdover exit, LOCKING (class kept from the bound), LOCKED.
  Feed(67, 67);
  EXPECT_EQ(d_->model().state, SyncState::kLocking);
  EXPECT_EQ(d_->model().ptp_quality.clock_class, 7);
  EXPECT_EQ(Count(EventKind::kHoldoverExit), 1);
  Feed(68, 90);
  EXPECT_EQ(d_->model().state, SyncState::kLocked);
}

TEST_F(DisciplineTest, InvalidSamplesAreCountedAndReported) {
  ReferenceSample s = At(0);
  s.uncertainty_ns = -1;
  d_->AddSamples(gps_, {&s, 1});
  d_->AddSamples(99, {&s, 1});  // unknown source: ignored
  s = At(0);
  s.reference_tai = core::TaiNs{INT64_MIN};  // far outside 2000..2116
  d_->AddSamples(gps_, {&s, 1});
  s.reference_tai = core::TaiNs{INT64_MAX};
  d_->AddSamples(gps_, {&s, 1});
  EXPECT_EQ(d_->source_status(gps_).invalid, 3u);
  EXPECT_EQ(d_->source_status(gps_).samples, 0u);
  ASSERT_EQ(events_.size(), 3u);
  EXPECT_EQ(events_[0].reason, RejectReason::kInvalid);
  EXPECT_EQ(d_->Update(RawAt(0)).state, SyncState::kFreerun);
}

TEST_F(DisciplineTest, RawTicksFarFromNowAreInvalid) {
  Feed(0, 10);
  ReferenceSample s = At(11);
  s.raw_ticks += 7'200 * kTicksPerSecond;  // two hours ahead of the clock
  d_->AddSamples(gps_, {&s, 1});
  EXPECT_EQ(d_->source_status(gps_).invalid, 1u);
  ASSERT_FALSE(events_.empty()) << "no event for the invalid sample";
  EXPECT_EQ(events_.back().reason, RejectReason::kInvalid);
}

TEST_F(DisciplineTest, BurstKeepsTheLeastUncertainSample) {
  const ReferenceSample burst[] = {At(0, 500, 900), At(0, 7, 20),
                                   At(0, -300, 400)};
  d_->AddSamples(gps_, burst);
  const core::ClockModel& m = d_->Update(RawAt(0));
  EXPECT_EQ(m.RawToTai(RawAt(0)), kT0 + 7);
  EXPECT_EQ(d_->source_status(gps_).samples, 1u);
}

TEST_F(DisciplineTest, LeapInformationIsPublished) {
  d_->SetLeap(37, core::LeapPending::kInsert, kT0 + 1'000);
  const core::ClockModel& m = Feed(0, 0);
  EXPECT_EQ(m.utc_offset_s, 37);
  EXPECT_EQ(m.leap, core::LeapPending::kInsert);
  EXPECT_EQ(m.leap_at, kT0 + 1'000);
}

TEST_F(DisciplineTest, IsDeterministic) {
  Feed(0, 40, 3);
  const core::ClockModel a = d_->model();
  events_.clear();
  Make(Config());
  Feed(0, 40, 3);
  const core::ClockModel& b = d_->model();
  EXPECT_EQ(a.raw_anchor, b.raw_anchor);
  EXPECT_EQ(a.tai_anchor, b.tai_anchor);
  EXPECT_EQ(a.ns_per_tick_q32, b.ns_per_tick_q32);
  EXPECT_EQ(a.error_bound_ns, b.error_bound_ns);
  EXPECT_EQ(a.error_growth_ns_per_s, b.error_growth_ns_per_s);
  EXPECT_EQ(a.generation, b.generation);
  EXPECT_EQ(a.generation, 41u);
}

TEST(DisciplineConfigTest, RejectsWhatAnOperatorMustFix) {
  DisciplineConfig c = Config();
  EXPECT_TRUE(ClockDiscipline::Create(c).ok());
  c.raw_nominal_hz = 0;
  EXPECT_FALSE(ClockDiscipline::Create(c).ok());
  c.raw_nominal_hz = 1e-3;  // rate would overflow the q32 fixed point
  EXPECT_FALSE(ClockDiscipline::Create(c).ok());
  c = Config();
  c.coast_after_ns = c.source_timeout_ns + 1;
  EXPECT_FALSE(ValidateDisciplineConfig(c).ok());
  c = Config();
  c.holdover.freerun_limit_ns = 10;
  EXPECT_FALSE(ValidateDisciplineConfig(c).ok());
  c = Config();
  c.selection.min_voters = 1;
  EXPECT_FALSE(ValidateDisciplineConfig(c).ok());
  c = Config();
  c.servo.max_frequency_ppb = 0;
  EXPECT_FALSE(ValidateDisciplineConfig(c).ok());
  c = Config();
  c.oscillator.frequency_floor_ppb = -1;
  EXPECT_FALSE(ValidateDisciplineConfig(c).ok());
}

TEST(DisciplineConfigTest, BoundedNumberOfSources) {
  auto d = *ClockDiscipline::Create(Config());
  for (int i = 0; i < 32; ++i) ASSERT_TRUE(d->AddSource(Gps(i)).ok());
  EXPECT_EQ(d->AddSource(Gps()).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(d->source_count(), 32);
}

}  // namespace
}  // namespace clock_discipline_test
}  // namespace zg::servo
