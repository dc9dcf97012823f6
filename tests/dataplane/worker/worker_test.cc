// SPDX-License-Identifier: Apache-2.0
// Integration tests of the worker loop on in-process ring ports: frames
// injected into a port's RX ring go through stamping, classification,
// dispatch, the late-TX hook and tx_burst into the TX ring, where the test
// inspects them. Runs zeitgeberd's own protocol pipeline
// (dataplane/worker/protocol_pipeline.h); the NTP reply carries the receive
// (T2) and transmit (T3) stamps the loop took, so the test reads them back.
#include "dataplane/worker/worker.h"

#include <pthread.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_mempool.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/net/xdp_stamp.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/tsc.h"
#include "core/time/tx_kick_estimate.h"
#include "dataplane/clock/nic_clock.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace worker_test {
namespace {

using testing::ClientFlow;
using testing::ClientView;

constexpr int64_t kS = core::kNanosPerSecond;
constexpr uint8_t kNtpKind = static_cast<uint8_t>(core::FrameKind::kNtp);
constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x12345678u};
// Ring ports have no MAC of their own: the server's, as --address would
// pair it with the port's.
const rte_ether_addr kServerMac = {{0x02, 0, 0, 0, 0, 0x01}};

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

// An NTP reply as the client reads it.
struct NtpReply {
  ClientView view;
  core::NtpHeader header;
};

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
    flow_ = ClientFlow::V4(kServerMac);
  }

  Pipeline MakePipeline() {
    auto made = factory_.Create(testing::ServerSetup(port_->id(), kServerMac));
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? std::move(*made) : Pipeline();
  }

  std::unique_ptr<Worker> MakeWorker(Timestamper::Config stamping,
                                     bool with_pipeline = true) {
    stamping.tsc_clock = &tsc_clock_;
    std::vector<WorkerQueue> queues = {
        {port_->queue(0), stamping, port_->tx_offloads()}};
    return std::make_unique<Worker>(std::move(queues),
                                    with_pipeline ? MakePipeline() : Pipeline(),
                                    &stats_, &stop_);
  }

  void Inject(rte_mbuf* m) {
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(rte_ring_enqueue(ring_.rx[0], m), 0);
  }
  void InjectFrame(const std::vector<uint8_t>& frame) {
    ASSERT_FALSE(frame.empty());
    Inject(testing::ToMbuf(pool_, frame));
  }
  ClientFlow FlowFrom(int i) const {
    ClientFlow f = flow_;
    f.client_port = static_cast<uint16_t>(40000 + i);
    return f;
  }
  // Bounded wait (20 s) for a worker launched on the other lcore to put
  // `n` frames on the TX ring.
  void WaitForTx(unsigned n) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (rte_ring_count(ring_.tx[0]) < n &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void InjectNtp(int n) {
    for (int i = 0; i < n; ++i) {
      InjectFrame(testing::UdpFrame(FlowFrom(i), testing::NtpRequest(4, kT1)));
    }
  }
  // Reads replies [i] as NTP replies to FlowFrom(i).
  std::vector<NtpReply> ReadNtpReplies(const std::vector<rte_mbuf*>& out) {
    std::vector<NtpReply> replies;
    for (size_t i = 0; i < out.size(); ++i) {
      absl::StatusOr<ClientView> v =
          testing::ReceiveAtClient(FlowFrom(static_cast<int>(i)), out[i]);
      EXPECT_TRUE(v.ok()) << v.status();
      if (!v.ok()) continue;
      NtpReply r{*v, {}};
      EXPECT_EQ(v->info.src_port, 123);
      EXPECT_EQ(v->info.dst_port, 40000 + i);
      EXPECT_EQ(v->info.payload_len, core::kNtpHeaderSize);
      EXPECT_TRUE(
          core::ParseNtpHeader(v->payload(), v->info.payload_len, &r.header));
      replies.push_back(r);
    }
    return replies;
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
  ProtocolPipelineFactory factory_;
  ClientFlow flow_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
};

// NTP timestamps (UTC, 2^-32 s) of TAI instants, for comparisons that allow
// the half-nanosecond rounding of the format.
core::UtcNs Utc(const core::ClockModel& m, core::NtpTimestamp ts) {
  return core::NtpToUtc(ts, m.TaiToUtc(m.tai_anchor));
}

TEST_F(WorkerTest, AnswersNtpThroughLateTxHookWithTscStamps) {
  SetUpPort("ntp");
  auto worker = MakeWorker({});
  InjectNtp(4);
  const uint64_t before = core::ReadTsc();
  EXPECT_EQ(worker->PollOnce(), 4u);
  const uint64_t after = core::ReadTsc();

  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 4u);
  core::ClockModel model;
  ASSERT_TRUE(tsc_clock_.TryRead(&model));
  const std::vector<NtpReply> replies = ReadNtpReplies(out);
  ASSERT_EQ(replies.size(), 4u);
  for (const NtpReply& r : replies) {
    EXPECT_EQ(r.header.mode, core::NtpMode::kServer);
    EXPECT_EQ(r.header.origin_time, kT1);
    // T2 and T3 come from TSC reads during PollOnce, through the model;
    // T3 (the late-TX hook) is taken after T2.
    const core::UtcNs t2 = Utc(model, r.header.receive_time);
    const core::UtcNs t3 = Utc(model, r.header.transmit_time);
    EXPECT_GE(t2.value, model.TaiToUtc(model.RawToTai(before)).value - 1);
    EXPECT_LE(t3.value, model.TaiToUtc(model.RawToTai(after)).value + 1);
    EXPECT_GT(t3.value, t2.value) << "T3 is stamped after receive";
  }
  testing::FreeAll(out);
  EXPECT_EQ(stats_.rx_packets.Load(), 4u);
  EXPECT_EQ(stats_.tx_packets.Load(), 4u);
  EXPECT_EQ(stats_.tx_bytes.Load(), stats_.rx_bytes.Load())
      << "a 48-byte request gets a reply of the same size";
  EXPECT_EQ(stats_.handled[kNtpKind].Load(), 4u);
  EXPECT_EQ(stats_.replied[kNtpKind].Load(), 4u);
  EXPECT_EQ(stats_.bursts.Load(), 1u);
  EXPECT_EQ(stats_.sw_stamped.Load(), 4u);
  EXPECT_EQ(stats_.hw_stamped.Load(), 0u);
  EXPECT_EQ(stats_.model_refresh_failures.Load(), 0u);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, CountsEveryDropByReasonAndFreesTheFrames) {
  SetUpPort("drops");
  auto worker = MakeWorker({});
  ClientFlow mdns = flow_;
  mdns.server_port = 5353;
  InjectFrame(testing::UdpFrame(mdns, testing::NtpRequest(4, kT1)));
  ClientFlow ptp = flow_;  // PTP event: classified, no handler yet
  ptp.server_port = 319;
  InjectFrame(testing::UdpFrame(ptp, std::vector<uint8_t>(44, 0)));
  InjectFrame(testing::UdpFrame(ptp, std::vector<uint8_t>(44, 0)));
  std::vector<uint8_t> mode7 = testing::NtpRequest(2, kT1);
  mode7[0] = (2 << 3) | 7;                       // ntpdc
  InjectFrame(testing::UdpFrame(flow_, mode7));  // handler drop
  rte_mbuf* head = testing::ToMbuf(
      pool_, testing::UdpFrame(flow_, testing::NtpRequest(4, kT1)));
  rte_mbuf* tail = rte_pktmbuf_alloc(pool_);
  ASSERT_NE(rte_pktmbuf_append(tail, 10), nullptr);
  ASSERT_EQ(rte_pktmbuf_chain(head, tail), 0);
  Inject(head);  // two segments

  EXPECT_EQ(worker->PollOnce(), 5u);
  EXPECT_EQ(rte_ring_count(ring_.tx[0]), 0u);
  const uint8_t not_served = factory_.frame_drops().not_served();
  const uint8_t private_mode =
      factory_.ntp_drops().Of(core::NtpDrop::kModePrivate);
  EXPECT_EQ(Dropped(not_served), 1u);
  EXPECT_EQ(Dropped(CounterNames::kDropNoHandler), 2u);
  EXPECT_EQ(Dropped(private_mode), 1u);
  EXPECT_EQ(Dropped(CounterNames::kDropMultiSegment), 1u);
  EXPECT_EQ(stats_.handled[kNtpKind].Load(), 1u);
  EXPECT_EQ(stats_.replied[kNtpKind].Load(), 0u);
  EXPECT_EQ(
      stats_.handled[static_cast<uint8_t>(core::FrameKind::kPtpEvent)].Load(),
      0u);
  EXPECT_EQ(WorkerStatsSnapshot::Of(stats_).TotalDropped(), 5u);
  EXPECT_EQ(names_.DropReasonName(not_served), "frame_not_served");
  EXPECT_EQ(names_.DropReasonName(private_mode), "ntp_mode_private");
  EXPECT_EQ(names_.DropReasonName(CounterNames::kDropNoHandler),
            "worker_no_handler");
  EXPECT_EQ(names_.KindName(kNtpKind), "ntp");
  ExpectPoolRestored();
}

TEST_F(WorkerTest, ShortTxBurstIsCountedAndFreed) {
  SetUpPort("txfull", /*tx_ring_size=*/4);  // the TX ring takes 3 frames
  auto worker = MakeWorker({});
  InjectNtp(8);
  EXPECT_EQ(worker->PollOnce(), 8u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(stats_.tx_packets.Load(), 3u);
  EXPECT_EQ(stats_.tx_dropped.Load(), 5u);
  EXPECT_EQ(stats_.replied[kNtpKind].Load(), 8u) << "queued for tx_burst";
  testing::FreeAll(out);
  ExpectPoolRestored();
}

// A handler whose FinaliseTx costs 2 us (as a burst of NTS seals would) and
// records the stamp each frame was finalised with.
class SlowFinaliser final : public FrameHandler {
 public:
  explicit SlowFinaliser(std::vector<uint64_t>* stamps) : stamps_(stamps) {}
  HandleResult Handle(Packet&, const BurstContext&) override {
    return HandleResult::TransmitFinalise();
  }
  void FinaliseTx(Packet&, const TxStamp& tx) override {
    stamps_->push_back(tx.tsc_ticks);
    const uint64_t until = core::ReadTsc() + rte_get_tsc_hz() / 500'000;
    while (core::ReadTsc() < until) {
    }
  }

 private:
  std::vector<uint64_t>* stamps_;
};

// Every frame is of the NTP kind.
class AllNtp final : public FrameClassifier {
 public:
  Verdict Classify(Packet&) override { return Verdict::Kind(kNtpKind); }
};

// A batch whose hooks run past kFinaliseBudgetNs goes out in chunks of
// kFinaliseCheckEvery frames (each hook alone is past the budget), each
// chunk finalised with its own fresh stamp; every frame is sent, in order.
TEST_F(WorkerTest, CostlyFinaliseHooksSplitTheBatchWithFreshStamps) {
  SetUpPort("split");
  std::vector<uint64_t> stamps;
  Pipeline pipeline;
  pipeline.SetClassifier(std::make_unique<AllNtp>());
  ASSERT_TRUE(pipeline
                  .SetHandler(core::FrameKind::kNtp,
                              std::make_unique<SlowFinaliser>(&stamps))
                  .ok());
  Timestamper::Config stamping;
  stamping.tsc_clock = &tsc_clock_;
  Worker worker({{port_->queue(0), stamping, port_->tx_offloads()}},
                std::move(pipeline), &stats_, &stop_);
  InjectNtp(static_cast<int>(kBurstSize));
  EXPECT_EQ(worker.PollOnce(), kBurstSize);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), kBurstSize);
  for (size_t i = 0; i < out.size(); ++i) {  // the requests, unchanged
    const uint8_t* udp = rte_pktmbuf_mtod(out[i], const uint8_t*) + 14 + 20;
    EXPECT_EQ(udp[0] << 8 | udp[1], 40000 + static_cast<int>(i)) << i;
  }
  EXPECT_EQ(stats_.tx_packets.Load(), kBurstSize);
  const uint64_t chunks = kBurstSize / kFinaliseCheckEvery;
  EXPECT_EQ(stats_.tx_finalise_splits.Load(), chunks - 1);
  ASSERT_EQ(stamps.size(), kBurstSize);
  for (size_t i = 0; i < stamps.size(); ++i) {
    const bool chunk_start = i % kFinaliseCheckEvery == 0;
    if (i == 0) continue;
    if (chunk_start) {
      EXPECT_GT(stamps[i], stamps[i - 1]) << "frame " << i;
    } else {
      EXPECT_EQ(stamps[i], stamps[i - 1]) << "frame " << i;
    }
  }
  testing::FreeAll(out);
  ExpectPoolRestored();
}

// Records the --ntp_tx_stamp estimate each FinaliseTx was handed.
class EstimateRecorder final : public FrameHandler {
 public:
  explicit EstimateRecorder(std::vector<TxStamp>* seen) : seen_(seen) {}
  HandleResult Handle(Packet&, const BurstContext&) override {
    return HandleResult::TransmitFinalise();
  }
  void FinaliseTx(Packet&, const TxStamp& tx) override { seen_->push_back(tx); }

 private:
  std::vector<TxStamp>* seen_;
};

// The worker brackets every tx_burst and hands the next batch's FinaliseTx
// its estimate (core/time/tx_kick_estimate.h): none before a bracket was
// measured and for "before"; for midpoint/after the finalise span plus
// (half) the kick, so leave_ticks >= kick_ticks > 0.
class WorkerKickTest : public WorkerTest {
 protected:
  void Check(core::TxStampPlacement placement) {
    SetUpPort(std::string("kick_") + core::TxStampPlacementName(placement));
    std::vector<TxStamp> seen;
    Pipeline pipeline;
    pipeline.SetClassifier(std::make_unique<AllNtp>());
    ASSERT_TRUE(pipeline
                    .SetHandler(core::FrameKind::kNtp,
                                std::make_unique<EstimateRecorder>(&seen))
                    .ok());
    Timestamper::Config stamping;
    stamping.tsc_clock = &tsc_clock_;
    StampPlan plan;
    plan.ntp_tx_placement = placement;
    Worker worker({{port_->queue(0), stamping, port_->tx_offloads(), plan}},
                  std::move(pipeline), &stats_, &stop_);
    for (int poll = 0; poll < 3; ++poll) {
      InjectNtp(2);
      EXPECT_EQ(worker.PollOnce(), 2u);
      testing::FreeAll(testing::DrainRing(ring_.tx[0]));
    }
    ASSERT_EQ(seen.size(), 6u);
    EXPECT_EQ(seen[0].leave_ticks, 0u) << "nothing measured yet";
    EXPECT_EQ(seen[0].kick_ticks, 0u);
    for (size_t i = 2; i < seen.size(); ++i) {
      if (placement == core::TxStampPlacement::kBefore) {
        EXPECT_EQ(seen[i].leave_ticks, 0u) << i;
        EXPECT_EQ(seen[i].kick_ticks, 0u) << i;
      } else {
        EXPECT_GT(seen[i].kick_ticks, 0u) << i;
        EXPECT_GE(seen[i].leave_ticks, seen[i].kick_ticks) << i;
        // Far below a millisecond on a ring port.
        EXPECT_LT(seen[i].leave_ticks, rte_get_tsc_hz() / 1000) << i;
      }
    }
    ExpectPoolRestored();
  }
};
TEST_F(WorkerKickTest, BeforeAddsNothing) {
  Check(core::TxStampPlacement::kBefore);
}
TEST_F(WorkerKickTest, MidpointAddsFinaliseAndHalfTheKick) {
  Check(core::TxStampPlacement::kMidpoint);
}
TEST_F(WorkerKickTest, AfterAddsFinaliseAndTheKick) {
  Check(core::TxStampPlacement::kAfter);
}

// A policy that logs its calls: 'P' for Prefetch, 'C' for Check.
class RecordingPolicy final : public NtpRequestPolicy {
 public:
  explicit RecordingPolicy(std::string* log) : log_(log) {}
  NtpPolicyVerdict Check(const core::FrameInfo&, const core::NtpRequestCheck&,
                         core::TaiNs) override {
    log_->push_back('C');
    return NtpPolicyVerdict::Answer();
  }
  bool WantsPrefetch() const override { return true; }
  NtpPolicyHint Prefetch(const core::FrameInfo&) override {
    log_->push_back('P');
    return {};
  }

 private:
  std::string* log_;
};
class RecordingPolicyFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::unique_ptr<NtpRequestPolicy>(
        std::make_unique<RecordingPolicy>(&log));
  }
  std::string log;
};

TEST_F(WorkerTest, BurstIsPrefetchedBeforeAnyFrameIsHandled) {
  SetUpPort("prefetch");
  RecordingPolicyFactory policy;
  ProtocolPipelineFactory factory({&policy, {}});
  CounterNames names;
  ASSERT_TRUE(factory.RegisterNames(names).ok());
  auto pipeline = factory.Create(testing::ServerSetup(port_->id(), kServerMac));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Timestamper::Config stamping;
  stamping.tsc_clock = &tsc_clock_;
  Worker worker({{port_->queue(0), stamping, port_->tx_offloads()}},
                std::move(*pipeline), &stats_, &stop_);
  InjectNtp(8);
  EXPECT_EQ(worker.PollOnce(), 8u);
  EXPECT_EQ(policy.log, "PPPPPPPPCCCCCCCC");
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(out.size(), 8u);
  testing::FreeAll(out);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, WithoutClassifierFramesAreDroppedAsUnclassified) {
  SetUpPort("nocls");
  auto worker = MakeWorker({}, /*with_pipeline=*/false);
  EXPECT_EQ(worker->PollOnce(), 0u);
  EXPECT_EQ(stats_.empty_polls.Load(), 1u);
  InjectNtp(3);
  EXPECT_EQ(worker->PollOnce(), 3u);
  EXPECT_EQ(Dropped(CounterNames::kDropUnclassified), 3u);
  EXPECT_NE(stats_.heartbeat_tsc.Load(), 0u);
  ExpectPoolRestored();
}

TEST_F(WorkerTest, UnpublishedClockIsCountedAndAnsweredUnsynchronised) {
  SetUpPort("noclk");
  core::PublishedClock never_written;
  std::vector<WorkerQueue> queues = {
      {port_->queue(0), {&never_written, nullptr, {}}, {}}};
  Worker worker(std::move(queues), MakePipeline(), &stats_, &stop_);
  InjectNtp(1);
  EXPECT_EQ(worker.PollOnce(), 1u);
  EXPECT_EQ(stats_.model_refresh_failures.Load(), 1u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 1u);
  const std::vector<NtpReply> replies = ReadNtpReplies(out);
  ASSERT_EQ(replies.size(), 1u);
  // The default (never published) model is unsynchronised: LI=3, stratum 0.
  EXPECT_EQ(replies[0].header.leap, core::NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(replies[0].header.stratum, 0);
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
  InjectNtp(2);
  EXPECT_EQ(worker->PollOnce(), 2u);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 2u);
  testing::FreeAll(out);
  EXPECT_EQ(stats_.hw_stamped.Load(), 0u);

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

  InjectNtp(3);
  const uint64_t before = core::ReadTsc();
  EXPECT_EQ(worker->PollOnce(), 3u);
  out = testing::DrainRing(ring_.tx[0]);
  ASSERT_EQ(out.size(), 3u);
  for (const NtpReply& r : ReadNtpReplies(out)) {
    // The stamp was taken inside rx_burst: after `before`, before T3. The
    // NIC clock ticks every 2 TSC ticks, so allow 2 ns of rounding (and 1
    // for the NTP format).
    const core::UtcNs t2 = Utc(nic, r.header.receive_time);
    const core::UtcNs t3 = Utc(nic, r.header.transmit_time);
    EXPECT_GE(t2.value, nic.TaiToUtc(tsc_model.RawToTai(before)).value - 3);
    EXPECT_LE(t2.value, t3.value);
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
  InjectNtp(16);
  WaitForTx(16);
  stop_.store(true, std::memory_order_relaxed);
  group.Join();  // returns only once the worker left its loop
  EXPECT_EQ(rte_eal_get_lcore_state(WorkerLcores()[0]), WAIT);
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(out.size(), 16u);
  EXPECT_EQ(ReadNtpReplies(out).size(), 16u);
  testing::FreeAll(out);
  const WorkerStatsSnapshot s = WorkerStatsSnapshot::Of(stats_);
  EXPECT_EQ(s.rx_packets, 16u);
  EXPECT_EQ(s.tx_packets, 16u);
  EXPECT_GT(s.empty_polls, 0u);
  ExpectPoolRestored();
}

// --idle_sleep: an idle worker gives its core back (its thread's CPU time
// is a fraction of the wall time; busy polling would use all of it) and
// still answers what arrives while it sleeps.
TEST_F(WorkerTest, IdleSleepGivesTheCoreBackAndStillAnswers) {
  SetUpPort("idle");
  std::vector<std::unique_ptr<Worker>> workers;
  ASSERT_EQ(WorkerLcores().size(), 1u);
  workers.push_back(MakeWorker({}));
  workers.back()->SetIdleSleep(1'000'000);  // 1 ms
  // The CPU clock of the lcore's thread (the same thread every launch),
  // read on that lcore.
  clockid_t cpu_clock{};
  ASSERT_EQ(rte_eal_remote_launch(
                [](void* arg) {
                  return pthread_getcpuclockid(pthread_self(),
                                               static_cast<clockid_t*>(arg));
                },
                &cpu_clock, WorkerLcores()[0]),
            0);
  ASSERT_EQ(rte_eal_wait_lcore(WorkerLcores()[0]), 0);
  WorkerGroup group;
  ASSERT_TRUE(group.Launch(std::move(workers)).ok());
  timespec cpu0{}, cpu1{};
  clock_gettime(cpu_clock, &cpu0);
  const auto wall0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  clock_gettime(cpu_clock, &cpu1);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
          .count();
  const double cpu_s =
      (cpu1.tv_sec - cpu0.tv_sec) + (cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  // Once kIdlePassesBeforeSleep passes were idle, it sleeps before every
  // pass: at most one empty poll per 1 ms sleep after those, not that many
  // per sleep.
  const uint64_t empty_polls = WorkerStatsSnapshot::Of(stats_).empty_polls;
  std::printf("idle worker: %.3f s CPU in %.3f s, %llu empty polls\n", cpu_s,
              wall_s, static_cast<unsigned long long>(empty_polls));
  EXPECT_LT(cpu_s, 0.5 * wall_s) << "an idle worker sleeps";
  EXPECT_LE(empty_polls, Worker::kIdlePassesBeforeSleep +
                             2 * static_cast<uint64_t>(wall_s * 1000 + 1))
      << "an idle worker sleeps before each pass, not after each "
      << Worker::kIdlePassesBeforeSleep;
  InjectNtp(16);
  WaitForTx(16);
  stop_.store(true, std::memory_order_relaxed);
  group.Join();
  std::vector<rte_mbuf*> out = testing::DrainRing(ring_.tx[0]);
  EXPECT_EQ(ReadNtpReplies(out).size(), 16u);
  testing::FreeAll(out);
  ExpectPoolRestored();
}

// Reload's grace period (dataplane/trust/config_swap.h): every pass is a
// burst boundary, so a config replaced while the worker runs is freed after
// its next pass, and a stopped worker never holds one back.
TEST_F(WorkerTest, EveryPassIsABurstBoundaryForReloadedConfigs) {
  SetUpPort("epochs");
  ReaderEpochs epochs;
  SwappableConfig<int> config(std::make_unique<const int>(1), &epochs);
  auto worker = MakeWorker({});
  EXPECT_FALSE(worker->AttachEpochs(&epochs, ReaderEpochs::kMaxReaders).ok());
  ASSERT_TRUE(worker->AttachEpochs(&epochs, 0).ok());
  epochs.Online(0);  // Run() does this itself
  ASSERT_TRUE(config.Publish(std::make_unique<const int>(2)).ok());
  EXPECT_EQ(epochs.pending(), 1u);
  EXPECT_EQ(worker->PollOnce(), 0u);  // an empty pass counts too
  EXPECT_EQ(epochs.Reclaim(), 1u);

  // Launched: online while it runs, offline once stopped.
  std::vector<std::unique_ptr<Worker>> workers;
  workers.push_back(std::move(worker));
  WorkerGroup group;
  ASSERT_TRUE(group.Launch(std::move(workers)).ok());
  ASSERT_TRUE(config.Publish(std::make_unique<const int>(3)).ok());
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (epochs.Reclaim() == 0 && epochs.pending() != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(epochs.pending(), 0u);
  stop_.store(true, std::memory_order_relaxed);
  group.Join();
  ASSERT_TRUE(config.Publish(std::make_unique<const int>(4)).ok());
  EXPECT_EQ(epochs.pending(), 0u);  // freed at once: nobody online
  EXPECT_EQ(*config.Current(), 4);
}

// The XDP program's RX stamp is a 16-byte header in front of the Ethernet
// header (magic, CLOCK_MONOTONIC ns): TakeStamps moves it into the dynfield
// and strips it; frames without it are left alone. A 58-byte PTP-over-
// Ethernet Delay_Req is the case a trailer could not serve (doc/ptp.md).
TEST(XdpStampClockTest, TakeStampsStripsTheHeaderAndFillsTheDynfield) {
  auto field = RegisterNicStampField();
  ASSERT_TRUE(field.ok()) << field.status();
  rte_mempool* mp = rte_pktmbuf_pool_create(
      "zg_xdpstamp", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(mp, nullptr);
  std::vector<uint8_t> l2(58, 0x5a);
  l2[12] = 0x88;
  l2[13] = 0xf7;
  const uint64_t magic = XdpStampClock::kStampMagic;
  const uint64_t ns = 123'456'789'012ULL;
  rte_mbuf* stamped = rte_pktmbuf_alloc(mp);
  rte_mbuf* plain = rte_pktmbuf_alloc(mp);
  ASSERT_NE(stamped, nullptr);
  ASSERT_NE(plain, nullptr);
  char* d = rte_pktmbuf_append(stamped, XdpStampClock::kStampLen + 58);
  std::memcpy(d, &magic, 8);
  std::memcpy(d + 8, &ns, 8);
  std::memcpy(d + 16, l2.data(), l2.size());
  std::memcpy(rte_pktmbuf_append(plain, 58), l2.data(), l2.size());
  rte_mbuf* burst[2] = {stamped, plain};
  EXPECT_EQ(XdpStampClock::TakeStamps(*field, burst, 2), 1u);
  EXPECT_EQ(rte_pktmbuf_pkt_len(stamped), 58u);
  EXPECT_EQ(std::memcmp(rte_pktmbuf_mtod(stamped, const uint8_t*), l2.data(),
                        l2.size()),
            0);
  EXPECT_NE(stamped->ol_flags & field->flag, 0u);
  EXPECT_EQ(field->Read(stamped), ns);
  EXPECT_EQ(rte_pktmbuf_pkt_len(plain), 58u);
  EXPECT_EQ(plain->ol_flags & field->flag, 0u);
  rte_pktmbuf_free(stamped);
  rte_pktmbuf_free(plain);
  rte_mempool_free(mp);
}

// zg_xdp_hwts.o tags each stamp with its clock (core/net/xdp_stamp.h): the
// clock's own stamps go into the dynfield, the other clock's only lose
// their header (the frame keeps the burst's TSC stamp).
TEST(XdpStampClockTest, TakeStampsKeepsOnlyTheChosenClocksStamps) {
  auto field = RegisterNicStampField();
  ASSERT_TRUE(field.ok()) << field.status();
  rte_mempool* mp = rte_pktmbuf_pool_create(
      "zg_xdpstamp2", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(mp, nullptr);
  const std::vector<uint8_t> l2(60, 0x5a);
  auto frame = [&](core::XdpClock clock, uint64_t ns) {
    rte_mbuf* m = rte_pktmbuf_alloc(mp);
    char* d = rte_pktmbuf_append(m, core::kXdpStampLen + l2.size());
    core::WriteXdpStamp({clock, ns}, reinterpret_cast<uint8_t*>(d));
    std::memcpy(d + core::kXdpStampLen, l2.data(), l2.size());
    return m;
  };
  for (core::XdpClock keep : {core::XdpClock::kKernel, core::XdpClock::kNic}) {
    rte_mbuf* burst[2] = {frame(core::XdpClock::kKernel, 111),
                          frame(core::XdpClock::kNic, 222)};
    EXPECT_EQ(XdpStampClock::TakeStamps(*field, burst, 2, keep), 1u);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(rte_pktmbuf_pkt_len(burst[i]), l2.size());
      const bool kept = (i == 1) == (keep == core::XdpClock::kNic);
      EXPECT_EQ((burst[i]->ol_flags & field->flag) != 0, kept) << i;
      if (kept) {
        EXPECT_EQ(field->Read(burst[i]), i == 0 ? 111u : 222u);
      }
      rte_pktmbuf_free(burst[i]);
    }
  }
  rte_mempool_free(mp);
}

}  // namespace
}  // namespace worker_test
}  // namespace zg::dataplane
