// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's real worker loop and protocol pipeline, unchanged, on the
// emulated timestamping NIC (emulated_nic.h): zeitgeber's Port opens it and
// finds hardware RX stamps (RX-timestamp dynfield + rte_eth_read_clock); the
// test publishes a NIC-clock model (NIC ns -> TAI) as the control plane's
// correlator would, injects NTP requests at known NIC wire times, and reads
// T2 of each reply: it is exactly the wire time mapped by that model. A NIC
// without the dynfield gets software (TSC) stamps, and replies leave on the
// queue their request came in on.
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/emulated_nic.h"
#include "tests/dataplane/testing/emulated_nic_model.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {
namespace emulated_nic_worker_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x12345678u};

core::ClockModel TscModel(uint64_t tsc_anchor) {
  core::ClockModel m;
  m.raw_anchor = tsc_anchor;
  m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(static_cast<double>(TscHz()));
  m.error_bound_ns = 1000;
  m.max_extrapolation_ns = 100 * kS;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  return m;
}

core::UtcNs Utc(const core::ClockModel& m, core::NtpTimestamp ts) {
  return core::NtpToUtc(ts, m.TaiToUtc(m.tai_anchor));
}

class EmulatedNicWorkerTest : public ::testing::Test {
 protected:
  void SetUpNic(const std::string& tag, const EmulatedNicConfig& c) {
    nic_ = EmulatedNic::Create(tag, c);
    PortOptions opts;
    opts.name = "net_zg_emu_" + tag;
    opts.num_queues = c.queues;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    tsc_model_ = TscModel(rte_rdtsc());
    tsc_clock_.Write(tsc_model_);
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
    flow_ = ClientFlow::V4(port_->mac());
  }
  // One worker polling every queue of the port, with the port's stamps.
  std::unique_ptr<Worker> MakeWorker() {
    std::vector<WorkerQueue> queues;
    for (uint16_t q = 0; q < port_->num_queues(); ++q) {
      Timestamper::Config stamping{&tsc_clock_, nullptr, {}};
      if (port_->caps().hardware_rx_stamps()) {
        stamping.nic_clock = &nic_clock_;
        stamping.nic_field = port_->stamp_field();
      }
      queues.push_back({port_->queue(q), stamping, port_->tx_offloads()});
    }
    auto pipeline = factory_.Create(ServerSetup(port_->id(), port_->mac()));
    EXPECT_TRUE(pipeline.ok()) << pipeline.status();
    return std::make_unique<Worker>(std::move(queues), std::move(*pipeline),
                                    &stats_, &stop_);
  }
  ClientFlow FlowFrom(int i) const {
    ClientFlow f = flow_;
    f.client_port = static_cast<uint16_t>(40000 + i);
    return f;
  }
  std::vector<uint8_t> Request(int i) const {
    return UdpFrame(FlowFrom(i), NtpRequest(4, kT1));
  }
  // The reply in `f` as client i reads it.
  core::NtpHeader ReadReply(const EmulatedNic::WireFrame& f, int i) {
    core::NtpHeader h;
    rte_mbuf* m = ToMbuf(pool_, f.bytes);
    absl::StatusOr<ClientView> v = ReceiveAtClient(FlowFrom(i), m);
    rte_pktmbuf_free(m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return h;
    EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    EXPECT_EQ(h.origin_time, kT1);
    return h;
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  core::ClockModel tsc_model_;
  core::PublishedClock tsc_clock_, nic_clock_;
  CounterNames names_;
  ProtocolPipelineFactory factory_;
  ClientFlow flow_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
};

TEST_F(EmulatedNicWorkerTest, T2IsTheWireTimeMappedByTheNicModel) {
  SetUpNic("hwrx", EmulatedNicConfig{});
  ASSERT_TRUE(port_->caps().hardware_rx_stamps());
  const core::ClockModel nic = EmulatedNicModel(*nic_, tsc_model_, rte_rdtsc());
  nic_clock_.Write(nic);
  std::unique_ptr<Worker> worker = MakeWorker();

  // Frames that reached the wire 1..4 ms ago (odd ns, to see rounding).
  const int64_t now = nic_->NicNowNs();
  std::vector<int64_t> wire;
  for (int i = 0; i < 4; ++i) {
    wire.push_back(now - (i + 1) * 1'000'000 + 2 * i + 1);
    ASSERT_EQ(nic_->Inject(Request(i), 0, wire.back()), wire.back());
  }
  ASSERT_EQ(worker->PollOnce(), 4u);
  const int64_t after = nic_->NicNowNs();
  std::vector<EmulatedNic::WireFrame> sent = nic_->TakeTransmitted();
  ASSERT_EQ(sent.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const core::NtpHeader h = ReadReply(sent[i], i);
    const core::UtcNs want =
        nic.TaiToUtc(nic.RawToTai(static_cast<uint64_t>(wire[i])));
    // Exact but for the NTP format's 2^-32 s (compared as integers: as
    // doubles, nanoseconds since 1970 are 256 apart).
    EXPECT_LE(std::abs(Utc(nic, h.receive_time).value - want.value), 1) << i;
    // T3 comes from the TSC model, consistent with the NIC's here.
    const core::UtcNs t3 = Utc(nic, h.transmit_time);
    EXPECT_GT(t3.value, want.value);
    EXPECT_LE(
        t3.value,
        nic.TaiToUtc(nic.RawToTai(static_cast<uint64_t>(after))).value + 2);
    EXPECT_GE(sent[i].wire_ns, wire[i]);
  }
  EXPECT_EQ(stats_.hw_stamped.Load(), 4u);
  EXPECT_EQ(stats_.sw_stamped.Load(), 0u);
  EXPECT_EQ(nic_->counters().rx_stamped, 4u);
}

// A NIC clock 40 ppm fast with its own epoch: the published model maps its
// stamps onto the TSC model's time scale (what the correlator achieves).
TEST_F(EmulatedNicWorkerTest, DriftingNicStampsMapOntoTheTscTimeScale) {
  EmulatedNicConfig c;
  c.drift_ppb = 40'000;
  c.offset_ns = 123'456'789'012;  // an epoch of its own
  SetUpNic("drift", c);
  const uint64_t anchor = rte_rdtsc();
  const core::ClockModel nic = EmulatedNicModel(*nic_, tsc_model_, anchor);
  nic_clock_.Write(nic);
  std::unique_ptr<Worker> worker = MakeWorker();
  const uint64_t hz = TscHz();
  const std::vector<uint64_t> tscs = {anchor, anchor + hz, anchor + 5 * hz};
  for (size_t i = 0; i < tscs.size(); ++i) {
    ASSERT_TRUE(
        nic_->Inject(Request(static_cast<int>(i)), 0, nic_->NicNsAtTsc(tscs[i]))
            .has_value());
  }
  ASSERT_EQ(worker->PollOnce(), tscs.size());
  std::vector<EmulatedNic::WireFrame> sent = nic_->TakeTransmitted();
  ASSERT_EQ(sent.size(), tscs.size());
  for (size_t i = 0; i < tscs.size(); ++i) {
    const core::NtpHeader h = ReadReply(sent[i], static_cast<int>(i));
    const core::UtcNs want = tsc_model_.TaiToUtc(tsc_model_.RawToTai(tscs[i]));
    // 40 ppm over 5 s would be 200 us; the model leaves rounding only.
    EXPECT_LE(std::abs(Utc(nic, h.receive_time).value - want.value), 4) << i;
  }
}

TEST_F(EmulatedNicWorkerTest, WithoutTheDynfieldStampsAreSoftware) {
  EmulatedNicConfig c;
  c.rx_dynfield = false;
  SetUpNic("swrx", c);
  EXPECT_FALSE(port_->caps().hardware_rx_stamps());
  std::unique_ptr<Worker> worker = MakeWorker();
  ASSERT_TRUE(nic_->Inject(Request(0), 0, 1).has_value());  // ignored time
  const uint64_t before = rte_rdtsc();
  ASSERT_EQ(worker->PollOnce(), 1u);
  std::vector<EmulatedNic::WireFrame> sent = nic_->TakeTransmitted();
  ASSERT_EQ(sent.size(), 1u);
  const core::NtpHeader h = ReadReply(sent[0], 0);
  EXPECT_GE(Utc(tsc_model_, h.receive_time).value,
            tsc_model_.TaiToUtc(tsc_model_.RawToTai(before)).value - 1);
  EXPECT_EQ(stats_.hw_stamped.Load(), 0u);
  EXPECT_EQ(stats_.sw_stamped.Load(), 1u);
}

TEST_F(EmulatedNicWorkerTest, RepliesLeaveOnTheQueueOfTheirRequest) {
  EmulatedNicConfig c;
  c.queues = 3;
  SetUpNic("mq", c);
  nic_clock_.Write(EmulatedNicModel(*nic_, tsc_model_, rte_rdtsc()));
  std::unique_ptr<Worker> worker = MakeWorker();
  for (uint16_t q = 0; q < 3; ++q) {
    ASSERT_TRUE(nic_->Inject(Request(q), q).has_value());
  }
  ASSERT_EQ(worker->PollOnce(), 3u);
  std::vector<EmulatedNic::WireFrame> sent = nic_->TakeTransmitted();
  ASSERT_EQ(sent.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sent[i].queue, i);
    ReadReply(sent[i], i);
  }
  rte_eth_stats st{};
  ASSERT_EQ(rte_eth_stats_get(port_->id(), &st), 0);
  EXPECT_EQ(st.opackets, 3u);
  EXPECT_EQ(st.q_opackets[2], 1u);
  EXPECT_EQ(stats_.hw_stamped.Load(), 3u);
}

// The worker on its own lcore while the test thread injects and collects:
// the PMD's two sides on two threads, as in zeitgeberd.
TEST_F(EmulatedNicWorkerTest, WorkerOnItsLcoreAnswersConcurrentInjects) {
  SetUpNic("lcore", EmulatedNicConfig{});
  nic_clock_.Write(EmulatedNicModel(*nic_, tsc_model_, rte_rdtsc()));
  ASSERT_EQ(WorkerLcores().size(), 1u);
  std::vector<std::unique_ptr<Worker>> workers;
  workers.push_back(MakeWorker());
  WorkerGroup group;
  ASSERT_TRUE(group.Launch(std::move(workers)).ok());
  constexpr int kFrames = 256;
  std::vector<EmulatedNic::WireFrame> sent;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int i = 0; i < kFrames; ++i) {
    while (!nic_->Inject(Request(i % 64)).has_value() &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();  // ring full: the worker is behind
    }
  }
  while (sent.size() < kFrames && std::chrono::steady_clock::now() < deadline) {
    for (EmulatedNic::WireFrame& f : nic_->TakeTransmitted()) {
      sent.push_back(std::move(f));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop_.store(true, std::memory_order_relaxed);
  group.Join();
  ASSERT_EQ(sent.size(), static_cast<size_t>(kFrames));
  for (int i = 0; i < kFrames; i += 37) ReadReply(sent[i], i % 64);
  EXPECT_EQ(stats_.hw_stamped.Load(), static_cast<uint64_t>(kFrames));
}

}  // namespace
}  // namespace emulated_nic_worker_test
}  // namespace zg::dataplane::testing
