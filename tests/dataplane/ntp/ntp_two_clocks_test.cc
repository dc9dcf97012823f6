// SPDX-License-Identifier: Apache-2.0
// An NTP reply whose receive stamp (T2) comes from the NIC clock and whose
// transmit stamp (T3) from the TSC (StampPlan::ntp_one_clock false: mlx5 RX
// dynfield, AF_XDP kernel stamps) tells the client about the correlation
// error between the two clocks: the NIC model the control plane publishes
// carries its mapping error (NicClockTracker: the reads' bracket, the fit's
// scatter and rate) on top of the TSC model's bound, and the reply's root
// dispersion is that model's bound. A software-stamped reply on the same
// port keeps the TSC model's bound.
#include <cmath>
#include <memory>

#include "dataplane/clock/nic_clock.h"
#include "gtest/gtest.h"
#include "servo/clock/nic_clock_tracker.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"

namespace zg::dataplane {
namespace ntp_two_clocks_test {
namespace {

using testing::ClientView;

class NtpTwoClocksTest : public testing::NtpPipelineTest {
 protected:
  // Replaces the fixture's worker by one whose queue has NIC RX stamps.
  void SetUpNicStamps() {
    SetUpServer();
    auto field = RegisterNicStampField();
    ASSERT_TRUE(field.ok()) << field.status();
    fake_ = std::make_unique<FakeNicClock>(*field, 7'000'000'000'000ULL, 0.5);
    WorkerSetup setup;
    WorkerPort wp;
    wp.port_id = port_->id();
    core::testing::kOurMac.Store(wp.mac.addr_bytes);
    setup.ports.push_back(wp);
    setup.addresses = addresses_;
    auto pipeline = factory_->Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    WorkerQueue q{port_->queue(0), {&tsc_clock_, &nic_clock_, *field}, {}};
    q.stamps.ntp_rx = RxStampSource::kDynfield;
    q.stamps.ntp_one_clock = false;
    worker_ = std::make_unique<Worker>(std::vector<WorkerQueue>{q},
                                       std::move(*pipeline), &stats_, &stop_);
  }

  // The NIC model from a tracker whose reads fall somewhere in a bracket
  // of +-half_width TSC ticks (as rte_eth_read_clock over PCIe does).
  int64_t PublishNicModel(uint64_t half_width) {
    servo::NicClockTracker tracker(
        "two-clocks",
        [&]() -> absl::StatusOr<servo::BracketedRead> {
          const uint64_t tsc = core::ReadTsc();
          return servo::BracketedRead{tsc - half_width, fake_->TicksAt(tsc),
                                      tsc + half_width};
        },
        &nic_clock_, static_cast<double>(testing::TscHz()));
    for (int i = 0; i < 12; ++i) {
      EXPECT_TRUE(tracker.Tick(i * 1'000'000, model_, core::ReadTsc()).ok());
    }
    EXPECT_TRUE(tracker.status().published);
    return static_cast<int64_t>(tracker.status().mapping_error_ns);
  }

  int64_t RootDispersionNs(const rte_mbuf* m) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), m);
    EXPECT_TRUE(v.ok()) << v.status();
    core::NtpHeader h;
    EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    return core::NtpShortToNanos(h.root_dispersion);
  }

  core::PublishedClock nic_clock_;
  std::unique_ptr<FakeNicClock> fake_;
};

TEST_F(NtpTwoClocksTest, RootDispersionCarriesTheNicToTscCorrelationError) {
  SetUpNicStamps();
  const uint64_t half_width = testing::TscHz() / 5'000;  // 200 us
  const int64_t mapping_ns = PublishNicModel(half_width);
  EXPECT_GE(mapping_ns, 200'000) << "the bracket is in the published error";

  // Not stamped by the NIC (no RX callback yet): the TSC model's bound.
  Exchange sw = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(sw.out.size(), 1u);
  const int64_t sw_disp = RootDispersionNs(sw.out[0]);
  EXPECT_GE(sw_disp, kErrorBoundNs);
  EXPECT_LE(sw_disp, kErrorBoundNs + 16'000);  // 2^-16 s format
  Free(sw);

  ASSERT_TRUE(fake_->AttachRx(port_->id(), 0).ok());
  Exchange hw = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(hw.out.size(), 1u);
  EXPECT_EQ(hw.delta.hw_stamped, 1u);
  const int64_t hw_disp = RootDispersionNs(hw.out[0]);
  EXPECT_GE(hw_disp, kErrorBoundNs + mapping_ns);
  // At most the NIC model's bound now (it grows with the fit's rate
  // uncertainty: large for 12 reads in a few ms with 200 us brackets).
  core::ClockModel nic;
  ASSERT_TRUE(nic_clock_.TryRead(&nic));
  const int64_t bound_now =
      nic.ErrorBoundNs(nic.RawToTai(fake_->TicksAt(core::ReadTsc())));
  EXPECT_LE(hw_disp, bound_now + 16'000);
  Free(hw);
  fake_->Detach();
}

}  // namespace
}  // namespace ntp_two_clocks_test
}  // namespace zg::dataplane
