// The INTERIM clock publisher: the TSC model tracks CLOCK_REALTIME + TAI-UTC,
// NIC models compose NIC -> TSC with TSC -> TAI, and a stepped NIC clock
// restarts its estimate.
#include "dataplane/interim_clock_publisher.h"

#include <rte_cycles.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <thread>

#include "core/tsc.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"

namespace zg::dataplane {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;

int64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * kS + ts.tv_nsec;
}

void Sleep(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

InterimClockPublisher::Options Opts() {
  InterimClockPublisher::Options o;
  o.tsc_hz = static_cast<double>(testing::TscHz());
  o.fallback_tai_offset_s = 37;
  return o;
}

// A NIC clock the test can step.
class SteppableNicClock final : public NicClock {
 public:
  absl::StatusOr<NicTscSample> Sample() override {
    const uint64_t tsc = core::ReadTscOrdered();
    return NicTscSample{tsc, static_cast<uint64_t>(tsc / 3) + offset, tsc};
  }
  std::string name() const override { return "steppable"; }
  uint64_t TicksAt(uint64_t tsc) const { return tsc / 3 + offset; }
  uint64_t offset = 1'000'000'000;
};

TEST(InterimClockPublisherTest, TscModelTracksRealtimePlusTaiOffset) {
  core::PublishedClock published;
  InterimClockPublisher pub(&published, Opts());
  ASSERT_TRUE(pub.Step().ok());
  Sleep(20);
  ASSERT_TRUE(pub.Step().ok());
  core::ClockModel m;
  ASSERT_TRUE(published.TryRead(&m));
  EXPECT_EQ(m.generation, 2u);
  const int32_t offset = pub.system_clock().tai_offset_s;
  EXPECT_EQ(m.utc_offset_s, offset);
  // Bracket a realtime read with TSC reads and compare through the model.
  const uint64_t t1 = core::ReadTscOrdered();
  const int64_t utc = RealtimeNs();
  const uint64_t t2 = core::ReadTscOrdered();
  const int64_t model_utc =
      m.RawToTai(t1 + (t2 - t1) / 2).value - int64_t{offset} * kS;
  // Generous for a shared, noisy machine; typical error is far below 1 us.
  EXPECT_NEAR(static_cast<double>(model_utc), static_cast<double>(utc), 1e6);
  EXPECT_EQ(m.stratum, pub.system_clock().synchronized ? 2 : 16);
  EXPECT_EQ(m.IsSynchronized(m.tai_anchor), pub.system_clock().synchronized);
  EXPECT_GT(m.error_bound_ns, 0);
  EXPECT_EQ(m.max_extrapolation_ns, 2 * kS);
}

// --require_system_clock_sync=false: served as synchronised whatever the
// kernel says; an unsynchronised kernel clock gets the assumed error.
TEST(InterimClockPublisherTest, UnsynchronisedSystemClockMayBeTrusted) {
  core::PublishedClock published;
  InterimClockPublisher::Options o = Opts();
  o.require_synchronized = false;
  o.unsynchronized_error_ns = 70'000'000;
  InterimClockPublisher pub(&published, o);
  ASSERT_TRUE(pub.Step().ok());
  core::ClockModel m;
  ASSERT_TRUE(published.TryRead(&m));
  EXPECT_TRUE(pub.system_clock().synchronized);
  EXPECT_EQ(m.state, core::SyncState::kLocked);
  EXPECT_EQ(m.stratum, 2);
  EXPECT_TRUE(m.IsSynchronized(m.tai_anchor));
  if (!pub.system_clock().kernel_synchronized) {
    EXPECT_GE(m.error_bound_ns, o.unsynchronized_error_ns);
    EXPECT_LT(m.error_bound_ns, o.unsynchronized_error_ns + 1'000'000);
  }
}

TEST(InterimClockPublisherTest, NicModelIsComposedWithTheTscModel) {
  core::PublishedClock tsc_clock, nic_clock;
  InterimClockPublisher pub(&tsc_clock, Opts());
  SteppableNicClock nic;
  pub.AddNicClock(&nic, &nic_clock);
  ASSERT_TRUE(pub.Step().ok());
  core::ClockModel m;
  EXPECT_FALSE(nic_clock.TryRead(&m)) << "no rate from a single sample";
  Sleep(60);
  ASSERT_TRUE(pub.Step().ok());
  ASSERT_TRUE(nic_clock.TryRead(&m));
  core::ClockModel tsc_model;
  ASSERT_TRUE(tsc_clock.TryRead(&tsc_model));
  // The same instant through both models (3 TSC ticks per NIC tick).
  const uint64_t tsc = core::ReadTsc();
  const int64_t via_nic = m.RawToTai(nic.TicksAt(tsc)).value;
  const int64_t via_tsc = tsc_model.RawToTai(tsc).value;
  EXPECT_NEAR(static_cast<double>(via_nic), static_cast<double>(via_tsc), 10);

  // Step the NIC clock by 5 ms of ticks: the estimate restarts, and once it
  // has a span again the model follows the new offset.
  nic.offset += 5'000'000'000ULL / 3 / 1000 * 3;  // any large jump
  ASSERT_TRUE(pub.Step().ok());
  Sleep(60);
  ASSERT_TRUE(pub.Step().ok());
  ASSERT_TRUE(nic_clock.TryRead(&m));
  ASSERT_TRUE(tsc_clock.TryRead(&tsc_model));
  const uint64_t tsc2 = core::ReadTsc();
  EXPECT_NEAR(static_cast<double>(m.RawToTai(nic.TicksAt(tsc2)).value),
              static_cast<double>(tsc_model.RawToTai(tsc2).value), 10);
}

TEST(InterimClockPublisherTest, FakeNicClockRoundTrip) {
  core::PublishedClock tsc_clock, nic_clock;
  InterimClockPublisher pub(&tsc_clock, Opts());
  FakeNicClock fake(NicStampField{}, 123'456'789, 0.37);
  pub.AddNicClock(&fake, &nic_clock);
  ASSERT_TRUE(pub.Step().ok());
  Sleep(60);
  ASSERT_TRUE(pub.Step().ok());
  core::ClockModel nic, tsc_model;
  ASSERT_TRUE(nic_clock.TryRead(&nic));
  ASSERT_TRUE(tsc_clock.TryRead(&tsc_model));
  const uint64_t tsc = core::ReadTsc();
  EXPECT_NEAR(static_cast<double>(nic.RawToTai(fake.TicksAt(tsc)).value),
              static_cast<double>(tsc_model.RawToTai(tsc).value), 10);
}

}  // namespace
}  // namespace zg::dataplane
