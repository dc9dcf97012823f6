// SPDX-License-Identifier: Apache-2.0
// PTP on a send-on-timestamp port (dataplane/ptp/ptp_tx_schedule.cc): the
// PtpPlugin from the --ptp_* flags (two-step by default) in zeitgeberd's
// protocol pipeline, the real worker, on the emulated NIC
// (tests/dataplane/testing/emulated_nic.h) with send_on_timestamp and the
// worker's plan ptp_tx = kScheduled. Its multicast Syncs go one-step, with
// no Follow_Up, and each Sync's originTimestamp is exactly its wire time
// mapped by the published NIC-clock model (0 ns).
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/tsc.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/ptp/ptp_plugin.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/emulated_nic.h"
#include "tests/dataplane/testing/emulated_nic_model.h"

ABSL_DECLARE_FLAG(bool, ptp);
ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_DECLARE_FLAG(std::string, ptp_unicast_negotiation);
ABSL_DECLARE_FLAG(int, ptp_log_sync_interval);
ABSL_DECLARE_FLAG(int, ptp_log_announce_interval);
ABSL_DECLARE_FLAG(std::string, ptp_transport);

namespace zg::dataplane::testing {
namespace ptp_tx_schedule_test {
namespace {

using core::PtpMessageType;
constexpr int64_t kS = core::kNanosPerSecond;
// Long enough that a loaded test machine's preemption between the stamp and
// tx_burst does not make a Sync late (it would then leave at once).
constexpr int64_t kLeadNs = 5'000'000;
const core::Ipv4Addr kServerIp = core::Ipv4Addr::FromOctets(10, 1, 0, 1);

core::ClockModel LockedModel(uint64_t tsc) {
  core::ClockModel m;
  m.raw_anchor = tsc;
  m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(static_cast<double>(TscHz()));
  m.error_bound_ns = 100;
  m.max_extrapolation_ns = 1000 * kS;
  m.state = core::SyncState::kLocked;
  m.ptp_quality = {6, 0x21, 0x4E5D};
  m.ptp_time_source = core::PtpTimeSource::kGnss;
  m.time_traceable = m.frequency_traceable = true;
  return m;
}

class PtpTxScheduleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::SetFlag(&FLAGS_ptp, true);
    absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "");
    absl::SetFlag(&FLAGS_ptp_log_sync_interval, -4);  // 16/s
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
    absl::SetFlag(&FLAGS_ptp_transport, "");
  }

  void Start() {
    EmulatedNicConfig c;
    c.send_on_timestamp = true;
    c.drift_ppb = -30'000;  // its own rate and epoch
    c.offset_ns = 555'000'000'123;
    nic_ = EmulatedNic::Create("ptpts", c);
    PortOptions opts;
    opts.name = "net_zg_emu_ptpts";
    opts.tx_schedule = true;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    ASSERT_TRUE(port_->caps().send_on_timestamp);
    const uint64_t t0 = core::ReadTsc();
    const core::ClockModel tsc = LockedModel(t0);
    clock_.Write(tsc);
    nic_model_ = EmulatedNicModel(*nic_, tsc, t0);
    nic_clock_.Write(nic_model_);
    DaemonConfig config;
    InterfaceAddress a;
    a.family = InterfaceAddress::kIpv4;
    kServerIp.Store(a.bytes.data());
    a.prefix_len = 24;
    config.addresses = {a};
    addresses_ = config.addresses;
    ASSERT_TRUE(factory_.Configure(config).ok());
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
    StampPlan plan;
    plan.ntp_rx = plan.ptp_rx = RxStampSource::kDynfield;
    plan.ntp_tx = plan.ptp_tx = TxStampSource::kScheduled;
    plan.tx_schedule_lead_ns = kLeadNs;
    WorkerSetup setup;
    setup.lcore_id = rte_get_main_lcore();
    setup.ports = {{port_->id(), 0, port_->mac(), port_->mtu(),
                    port_->tx_offloads(), plan}};
    setup.addresses = addresses_;
    auto pipeline = factory_.Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Timestamper::Config stamping{&clock_, &nic_clock_, port_->stamp_field()};
    worker_ = std::make_unique<Worker>(
        std::vector<WorkerQueue>{{port_->queue(0),
                                  stamping,
                                  port_->tx_offloads(),
                                  plan,
                                  {.field = port_->tx_launch_field(),
                                   .lead_ns = kLeadNs,
                                   .link_mbps = 10'000}}},
        std::move(*pipeline), &stats_, &stop_);
    // MASTER once the receipt timeout has passed.
    Tick();
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ptp_.runtime()->state() != core::PtpPortState::kMaster &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Tick();
    }
    ASSERT_EQ(ptp_.runtime()->state(), core::PtpPortState::kMaster);
  }
  void Tick() {
    factory_.ControlStep(
        {&clock_, core::ReadTsc(), static_cast<double>(TscHz())});
  }

  struct Sent {
    core::PtpMessage msg;
    std::vector<uint8_t> bytes;  // the PTP message
    EmulatedNic::WireFrame wire;
  };
  std::vector<Sent> Run(int ms) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) worker_->PollOnce();
    core::LocalAddresses any = *core::LocalAddresses::Create(
        core::MacAddr{{0x02, 0xC1, 0x1E, 0x00, 0x00, 0x02}}, std::nullopt);
    (void)any.AddIpv4(core::Ipv4Addr::FromOctets(10, 1, 0, 2));
    std::vector<Sent> out;
    for (EmulatedNic::WireFrame& f : nic_->TakeTransmitted()) {
      const core::FrameInfo info = core::ClassifyFrame(
          f.bytes.data(), static_cast<uint32_t>(f.bytes.size()), any);
      if (info.kind == core::FrameKind::kDrop) continue;
      Sent s;
      s.bytes.assign(f.bytes.begin() + info.payload_offset,
                     f.bytes.begin() + info.payload_offset + info.payload_len);
      if (core::ParsePtpMessage(s.bytes, &s.msg) != core::PtpDrop::kOk) {
        continue;
      }
      s.wire = std::move(f);
      out.push_back(std::move(s));
    }
    return out;
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  core::ClockModel nic_model_;
  core::PublishedClock clock_, nic_clock_;
  absl::FlagSaver saver_;
  PtpPlugin ptp_;
  ProtocolPipelineFactory factory_{
      ProtocolPipelineFactory::Options{nullptr, {&ptp_}}};
  CounterNames names_;
  std::vector<InterfaceAddress> addresses_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<Worker> worker_;
};

TEST_F(PtpTxScheduleTest, SyncsAreOneStepWithTheExactLaunchTime) {
  Start();
  const std::vector<Sent> sent = Run(300);
  int syncs = 0;
  for (const Sent& s : sent) {
    EXPECT_NE(s.msg.header.message_type, PtpMessageType::kFollowUp);
    if (s.msg.header.message_type != PtpMessageType::kSync) continue;
    ++syncs;
    SCOPED_TRACE(syncs);
    EXPECT_FALSE(s.msg.header.flags.Has(core::PtpFlag::kTwoStep));
    EXPECT_TRUE(s.wire.scheduled);
    EXPECT_FALSE(s.wire.late);
    const core::TaiNs origin =
        core::PtpToTai(std::get<core::PtpSync>(s.msg.body).origin_timestamp);
    EXPECT_EQ(origin,
              nic_model_.RawToTai(static_cast<uint64_t>(s.wire.wire_ns)));
  }
  EXPECT_GE(syncs, 2);
  // Every Sync (also those on transports not parsed here) was scheduled.
  EXPECT_GE(stats_.tx_scheduled.Load(), static_cast<uint64_t>(syncs));
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 0u);
}

}  // namespace
}  // namespace ptp_tx_schedule_test
}  // namespace zg::dataplane::testing
