// SPDX-License-Identifier: Apache-2.0
// NTP interleaved mode through the real worker on the emulated timestamping
// NIC (tests/dataplane/testing/emulated_nic.h): RX stamps from the NIC
// (dynfield), the NIC-clock model consistent with the TSC model, as the
// control plane's correlator publishes it. A client's second request gets
// the interleaved reply; its T3 is the AfterTx stamp of the first reply
// (exactly, as in ntp_pipeline_interleave_test.cc), and here it is also set
// against the emulated wire time of that first reply: never before it (the
// stamp is read when tx_burst returned, the wire time inside tx_burst), and
// the difference (the software after-stamp's lateness on this NIC) is
// printed. T2s are the NIC wire times mapped by the model, tagged.
#include <rte_cycles.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/ntp/ntp_interleave.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/emulated_nic.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {
namespace ntp_interleave_emulated_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;

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

// NIC ns -> TAI, consistent with `tsc` at `tsc_anchor` (no drift here).
core::ClockModel NicModel(const core::ClockModel& tsc, const EmulatedNic& nic,
                          uint64_t tsc_anchor) {
  core::ClockModel m = tsc;
  m.raw_anchor = static_cast<uint64_t>(nic.NicNsAtTsc(tsc_anchor));
  m.tai_anchor = tsc.RawToTai(tsc_anchor);
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  return m;
}

class NtpInterleaveEmulatedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nic_ = EmulatedNic::Create("xl0", EmulatedNicConfig{});
    PortOptions opts;
    opts.name = "net_zg_emu_xl0";
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    ASSERT_TRUE(port_->caps().hardware_rx_stamps());
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    const uint64_t anchor = rte_rdtsc();
    tsc_model_ = TscModel(anchor);
    tsc_clock_.Write(tsc_model_);
    nic_model_ = NicModel(tsc_model_, *nic_, anchor);
    nic_clock_.Write(nic_model_);
    xleave_.SetConfig({.enabled = true, .slots = 1024});
    ProtocolPipelineFactory::Options o;
    o.ntp_interleave = &xleave_;
    factory_ = std::make_unique<ProtocolPipelineFactory>(std::move(o));
    ASSERT_TRUE(factory_->RegisterNames(names_).ok());
    Timestamper::Config stamping{&tsc_clock_, nullptr, {}};
    stamping.nic_clock = &nic_clock_;
    stamping.nic_field = port_->stamp_field();
    WorkerSetup setup = ServerSetup(port_->id(), port_->mac());
    setup.ports[0].stamps.ntp_tx = TxStampSource::kSoftwareAfter;
    auto pipeline = factory_->Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    worker_ = std::make_unique<Worker>(
        std::vector<WorkerQueue>{
            {port_->queue(0), stamping, port_->tx_offloads()}},
        std::move(*pipeline), &stats_, &stop_);
    flow_ = ClientFlow::V4(port_->mac());
  }

  // Injects an interleaved-form request at NIC time `wire_ns`, polls once,
  // returns the reply as the client reads it and its wire time.
  core::NtpHeader Exchange(core::NtpTimestamp origin, core::NtpTimestamp t1,
                           int64_t wire_ns, int64_t* reply_wire_ns) {
    std::vector<uint8_t> req = NtpRequest(4, t1);
    core::StoreNtpTimestamp(req.data() + core::kNtpOffsetOriginTime, origin);
    core::StoreNtpTimestamp(req.data() + core::kNtpOffsetReceiveTime,
                            {0xe8fe6f81u, 0x40000000u});
    core::NtpHeader h;
    EXPECT_EQ(nic_->Inject(UdpFrame(flow_, req), 0, wire_ns), wire_ns);
    EXPECT_EQ(worker_->PollOnce(), 1u);
    std::vector<EmulatedNic::WireFrame> sent = nic_->TakeTransmitted();
    EXPECT_EQ(sent.size(), 1u);
    if (sent.size() != 1) return h;
    *reply_wire_ns = sent[0].wire_ns;
    rte_mbuf* m = ToMbuf(pool_, sent[0].bytes);
    absl::StatusOr<ClientView> v = ReceiveAtClient(flow_, m);
    rte_pktmbuf_free(m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (v.ok()) {
      EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    }
    return h;
  }
  // NIC ns as the reply's NTP timestamp would carry it (model, UTC, NTP).
  core::NtpTimestamp NicToNtp(int64_t nic_ns) const {
    return core::UtcToNtp(nic_model_.TaiToUtc(
        nic_model_.RawToTai(static_cast<uint64_t>(nic_ns))));
  }
  int64_t NtpDiffNs(core::NtpTimestamp a, core::NtpTimestamp b) const {
    const core::UtcNs pivot = nic_model_.TaiToUtc(nic_model_.tai_anchor);
    return core::NtpToUtc(a, pivot).value - core::NtpToUtc(b, pivot).value;
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  core::ClockModel tsc_model_, nic_model_;
  core::PublishedClock tsc_clock_, nic_clock_;
  CounterNames names_;
  NtpInterleaveFactory xleave_;
  std::unique_ptr<ProtocolPipelineFactory> factory_;
  std::unique_ptr<Worker> worker_;
  ClientFlow flow_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
};

TEST_F(NtpInterleaveEmulatedTest, InterleavedT3AgainstTheEmulatedWireTime) {
  const int64_t wire1 = nic_->NicNowNs() - 2'000'001;  // odd ns
  int64_t out1 = 0, out2 = 0;
  const core::NtpHeader r1 =
      Exchange({0x1000u, 0x1u}, {0xe8fe6f80u, 0x1u}, wire1, &out1);
  // T2: the wire time mapped by the NIC model, tagged (2^-32 s).
  EXPECT_EQ(r1.receive_time, core::TagNtpRx(NicToNtp(wire1)));
  const int64_t wire2 = nic_->NicNowNs();
  const core::NtpHeader r2 =
      Exchange(r1.receive_time, {0xe8fe6f82u, 0x1u}, wire2, &out2);
  EXPECT_EQ(r2.origin_time, (core::NtpTimestamp{0xe8fe6f81u, 0x40000000u}));
  EXPECT_EQ(xleave_.stats(0).interleaved.Load(), 1u);
  // T3 of reply 2 is reply 1's AfterTx stamp; reply 1 reached the wire
  // inside tx_burst, before it.
  const core::NtpTimestamp wire_ntp = core::TagNtpTx(NicToNtp(out1));
  const int64_t late_ns = NtpDiffNs(r2.transmit_time, wire_ntp);
  EXPECT_GE(late_ns, -1) << "the after-stamp is read after the wire time";
  std::printf(
      "interleaved T3 (AfterTx TSC stamp) - emulated wire time of that "
      "reply: %lld ns\n",
      static_cast<long long>(late_ns));
  // The basic reply 1's T3 (read before tx_burst) is before its wire time.
  EXPECT_LE(NtpDiffNs(r1.transmit_time, core::TagNtpTx(NicToNtp(out1))), 1);
}

}  // namespace
}  // namespace ntp_interleave_emulated_test
}  // namespace zg::dataplane::testing
