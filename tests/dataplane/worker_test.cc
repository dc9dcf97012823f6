// Integration tests of the worker loop on in-process ring ports: frames
// injected into a port's RX ring go through stamping, classification,
// dispatch, the late-TX hook and tx_burst into the TX ring, where the test
// inspects them. Uses the TEST-ONLY UDP echo pipeline.
#include "dataplane/worker.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "core/clock_model.h"
#include "core/tsc.h"
#include "dataplane/mempools.h"
#include "dataplane/nic_clock.h"
#include "dataplane/port.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/udp_echo.h"

namespace zg::dataplane {
namespace {

using testing::BuildUdpFrame;
using testing::EchoKind;
using testing::EchoReply;
using testing::ParseEchoReply;
using testing::UdpFrameSpec;

constexpr int64_t kS = core::kNanosPerSecond;

core::ClockModel TscModel(uint64_t tsc_anchor) {
  core::ClockModel m;
  m.raw_anchor = tsc_anchor;
  m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
  m.ns_per_tick_q32 =
      core::NsPerTickQ32FromHz(static_cast<double>(testing::TscHz()));
  m.error_bound_ns = 1000;
  m.max_extrapolation_ns = 100 * kS;
  m.state = core::SyncState::kLocked;
  m.stratum = 2;
  return m;
}

class WorkerTest : public ::testing::Test {
 protected:
  void SetUpPort(const std::string& tag, unsigned tx_ring_size = 1024) {
    ring_ = testing::MakeRingPort(tag, 1, tx_ring_size);
    PortOptions opts;
    opts.name = ring_.name;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    auto mp = pools_.ForSocket(SOCKET_ID_ANY);
    ASSERT_TRUE(mp.ok());
    pool_ = *mp;
    initial_avail_ = rte_mempool_avail_count(pool_);
    tsc_clock_.Write(TscModel(core::ReadTsc()));
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
  }

  std::unique_ptr<Worker> MakeWorker(Timestamper::Config stamping,
                                     bool with_pipeline = true) {
    stamping.tsc_clock = &tsc_clock_;
    std::vector<WorkerQueue> queues = {
        {port_->queue(0), stamping, port_->tx_offloads()}};
    Pipeline p;
    if (with_pipeline) {
      auto made = factory_.Create(WorkerSetup{});
      EXPECT_TRUE(made.ok());
      p = std::move(*made);
    }
    return std::make_unique<Worker>(std::move(queues), std::move(p), &stats_,
                                    &stop_);
  }

  void Inject(rte_mbuf* m) {
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(rte_ring_enqueue(ring_.rx[0], m), 0);
  }
  void InjectEcho(int n, uint16_t dst_port = testing::kEchoPort) {
    for (int i = 0; i < n; ++i) {
      UdpFrameSpec spec;
      spec.src_port = static_cast<uint16_t>(40000 + i);
      spec.dst_port = dst_port;
      Inject(BuildUdpFrame(pool_, spec));
    }
  }
  uint64_t Dropped(uint8_t reason) { return stats_.dropped[reason].Load(); }
  // Every mbuf is back in the pool (nothing leaked, nothing double-freed).
  void ExpectPoolRestored() {
    EXPECT_EQ(rte_mempool_avail_count(pool_), initial_avail_);
  }

  MbufPools pools_{2047};
  testing::RingPort ring_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  unsigned initial_avail_ = 0;
  core::PublishedClock tsc_clock_;
  CounterNames names_;
  testing::UdpEchoFactory factory_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
};

TEST_F(WorkerTest, EchoesThroughLateTxHookWithTscStamps) {
  SetUpPort("echo");
  auto worker = MakeWorker({});
  InjectEcho(4);
  const uint64_t before = core::ReadTsc();
  EXPECT_EQ(worker->PollOnce(), 4u);
  const uint64_t after = core::ReadTsc();

  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 4u);
  core::ClockModel model;
  ASSERT_TRUE(tsc_clock_.TryRead(&model));
  for (size_t i = 0; i < out.size(); ++i) {
    EchoReply r;
    ASSERT_TRUE(ParseEchoReply(out[i], &r));
    EXPECT_EQ(r.src_ip, 0x0a630001u);
    EXPECT_EQ(r.dst_ip, 0x0a630002u);
    EXPECT_EQ(r.src_port, testing::kEchoPort);
    EXPECT_EQ(r.dst_port, 40000 + i);
    EXPECT_TRUE(r.udp_checksum_ok) << "FinaliseTx must fix the checksum";
    EXPECT_EQ(r.clock, 0) << "TSC stamp expected";
    // Stamps come from the TSC read during PollOnce, through the model.
    EXPECT_GE(r.rx_tai_ns, model.RawToTai(before).value);
    EXPECT_LE(r.tx_tai_ns, model.RawToTai(after).value);
    EXPECT_GE(r.tx_tai_ns, r.rx_tai_ns) << "T3 is taken after receive";
  }
  testing::FreeAll(out);
  EXPECT_EQ(stats_.rx_packets.Load(), 4u);
  EXPECT_EQ(stats_.tx_packets.Load(), 4u);
  EXPECT_EQ(stats_.tx_bytes.Load(), stats_.rx_bytes.Load());
  EXPECT_EQ(stats_.handled[static_cast<uint8_t>(EchoKind::kEcho)].Load(), 4u);
  EXPECT_EQ(stats_.bursts.Load(), 1u);
  EXPECT_EQ(stats_.sw_stamped.Load(), 4u);
  EXPECT_EQ(stats_.hw_stamped.Load(), 0u);
  EXPECT_EQ(stats_.model_refresh_failures.Load(), 0u);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, CountsEveryDropByReasonAndFreesTheFrames) {
  SetUpPort("drops");
  auto worker = MakeWorker({});
  const uint8_t base = factory_.drop_base();
  UdpFrameSpec not_echo;
  not_echo.dst_port = 5353;
  Inject(BuildUdpFrame(pool_, not_echo));  // classifier drop
  InjectEcho(2, testing::kUnhandledPort);  // classified, no handler
  UdpFrameSpec small;
  small.payload.resize(8);
  Inject(BuildUdpFrame(pool_, small));  // handler drop
  rte_mbuf* head = BuildUdpFrame(pool_, UdpFrameSpec{});
  rte_mbuf* tail = rte_pktmbuf_alloc(pool_);
  ASSERT_NE(rte_pktmbuf_append(tail, 10), nullptr);
  ASSERT_EQ(rte_pktmbuf_chain(head, tail), 0);
  Inject(head);  // two segments

  EXPECT_EQ(worker->PollOnce(), 5u);
  EXPECT_EQ(rte_ring_count(ring_.tx[0]), 0u);
  EXPECT_EQ(Dropped(base + testing::kNotUdp), 1u);
  EXPECT_EQ(Dropped(CounterNames::kDropNoHandler), 2u);
  EXPECT_EQ(Dropped(base + testing::kShort), 1u);
  EXPECT_EQ(Dropped(CounterNames::kDropMultiSegment), 1u);
  EXPECT_EQ(stats_.handled[static_cast<uint8_t>(EchoKind::kEcho)].Load(), 1u);
  EXPECT_EQ(stats_.handled[static_cast<uint8_t>(EchoKind::kUnhandled)].Load(),
            0u);
  EXPECT_EQ(WorkerStatsSnapshot::Of(stats_).TotalDropped(), 5u);
  EXPECT_EQ(names_.DropReasonName(base + testing::kShort), "echo_test_short");
  EXPECT_EQ(names_.DropReasonName(CounterNames::kDropNoHandler),
            "worker_no_handler");
  ExpectPoolRestored();
}

TEST_F(WorkerTest, ShortTxBurstIsCountedAndFreed) {
  SetUpPort("txfull", /*tx_ring_size=*/4);  // the TX ring takes 3 frames
  auto worker = MakeWorker({});
  InjectEcho(8);
  EXPECT_EQ(worker->PollOnce(), 8u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(stats_.tx_packets.Load(), 3u);
  EXPECT_EQ(stats_.tx_dropped.Load(), 5u);
  testing::FreeAll(out);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, WithoutClassifierFramesAreDroppedAsUnclassified) {
  SetUpPort("nocls");
  auto worker = MakeWorker({}, /*with_pipeline=*/false);
  EXPECT_EQ(worker->PollOnce(), 0u);
  EXPECT_EQ(stats_.empty_polls.Load(), 1u);
  InjectEcho(3);
  EXPECT_EQ(worker->PollOnce(), 3u);
  EXPECT_EQ(Dropped(CounterNames::kDropUnclassified), 3u);
  EXPECT_NE(stats_.heartbeat_tsc.Load(), 0u);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, UnpublishedClockIsCountedAsRefreshFailure) {
  SetUpPort("noclk");
  core::PublishedClock never_written;
  std::vector<WorkerQueue> queues = {
      {port_->queue(0), {&never_written, nullptr, {}}, {}}};
  auto made = factory_.Create(WorkerSetup{});
  ASSERT_TRUE(made.ok());
  Worker worker(std::move(queues), std::move(*made), &stats_, &stop_);
  InjectEcho(1);
  EXPECT_EQ(worker.PollOnce(), 1u);
  EXPECT_EQ(stats_.model_refresh_failures.Load(), 1u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 1u);
  EchoReply r;
  ASSERT_TRUE(ParseEchoReply(out[0], &r));
  // The default (never synchronised) model maps every tick to its anchor.
  EXPECT_EQ(r.rx_tai_ns, 0);
  testing::FreeAll(out);
}

// The fake NIC clock stamps frames in the RX callback (as a NIC would fill
// the dynfield); the Timestamper converts them with the NIC model.
TEST_F(WorkerTest, FakeNicClockStampsAreConvertedWithTheNicModel) {
  SetUpPort("fakenic");
  auto field = RegisterNicStampField();
  ASSERT_TRUE(field.ok()) << field.status();
  // A NIC clock at half the TSC rate with its own epoch.
  FakeNicClock fake(*field, /*offset_ticks=*/5'000'000'000'000ULL, 0.5);
  ASSERT_TRUE(fake.AttachRx(port_->id(), 0).ok());
  core::PublishedClock nic_clock;
  auto worker = MakeWorker({nullptr, &nic_clock, *field});

  // No NIC model yet: flagged frames fall back to the burst's TSC stamp.
  InjectEcho(2);
  EXPECT_EQ(worker->PollOnce(), 2u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 2u);
  EchoReply r;
  ASSERT_TRUE(ParseEchoReply(out[0], &r));
  EXPECT_EQ(r.clock, 0);
  testing::FreeAll(out);

  // Publish NIC ticks -> TAI, composed from the fake's exact mapping and the
  // TSC model, as the control plane's correlator would.
  core::ClockModel tsc_model;
  ASSERT_TRUE(tsc_clock_.TryRead(&tsc_model));
  const uint64_t tsc_anchor = core::ReadTsc();
  core::ClockModel nic = tsc_model;
  nic.raw_anchor = fake.TicksAt(tsc_anchor);
  nic.tai_anchor = tsc_model.RawToTai(tsc_anchor);
  nic.ns_per_tick_q32 = tsc_model.ns_per_tick_q32 * 2;  // 0.5 ticks per TSC
  nic_clock.Write(nic);

  InjectEcho(3);
  const uint64_t before = core::ReadTsc();
  EXPECT_EQ(worker->PollOnce(), 3u);
  out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 3u);
  for (rte_mbuf* m : out) {
    ASSERT_TRUE(ParseEchoReply(m, &r));
    EXPECT_EQ(r.clock, 1) << "NIC stamp expected";
    // The stamp was taken inside rx_burst: after `before`, before T3. The
    // NIC clock ticks every 2 TSC ticks, so allow 2 ns of rounding.
    EXPECT_GE(r.rx_tai_ns, tsc_model.RawToTai(before).value - 2);
    EXPECT_LE(r.rx_tai_ns, r.tx_tai_ns);
  }
  testing::FreeAll(out);
  EXPECT_EQ(stats_.hw_stamped.Load(), 3u);
  EXPECT_EQ(stats_.sw_stamped.Load(), 2u);
  fake.Detach();
  ExpectPoolRestored();
}

TEST_F(WorkerTest, LaunchedWorkerAnswersAndStopsCleanly) {
  SetUpPort("launch");
  std::vector<std::unique_ptr<Worker>> workers;
  ASSERT_EQ(WorkerLcores().size(), 1u);
  workers.push_back(MakeWorker({}));
  WorkerGroup group;
  ASSERT_TRUE(group.Launch(std::move(workers)).ok());
  InjectEcho(16);
  // Bounded wait for the worker on the other lcore to answer everything.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (rte_ring_count(ring_.tx[0]) < 16 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop_.store(true, std::memory_order_relaxed);
  group.Join();  // returns only once the worker left its loop
  EXPECT_EQ(rte_eal_get_lcore_state(WorkerLcores()[0]), WAIT);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(out.size(), 16u);
  testing::FreeAll(out);
  const WorkerStatsSnapshot s = WorkerStatsSnapshot::Of(stats_);
  EXPECT_EQ(s.rx_packets, 16u);
  EXPECT_EQ(s.tx_packets, 16u);
  EXPECT_GT(s.empty_polls, 0u);
  ExpectPoolRestored();
}

}  // namespace
}  // namespace zg::dataplane
