// SPDX-License-Identifier: Apache-2.0
// Send-on-timestamp through the real worker and protocol pipeline on the
// emulated NIC (tests/dataplane/testing/emulated_nic.h) with
// send_on_timestamp: the Port enables RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP
// and registers the TX-timestamp dynfield, the worker's TxScheduler
// (dataplane/clock/tx_scheduler.h) gives each NTP reply a launch time
// `lead` ahead in the NIC clock, and the emulated NIC sends it at exactly
// that time. Checked: the reply's wire time is its launch time and its T3
// is that wire time mapped by the published NIC-clock model, to the bit
// (0 ns); a burst's launch times are distinct, increasing, spaced by at
// least a frame's wire time; MAC-signed replies verify with the exact T3;
// interleaved mode keeps the launch time as the exact transmit time; a lead
// too short is counted late (by the worker and the NIC).
#include "dataplane/clock/tx_scheduler.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/ntp/ntp_interleave.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/tx_launch.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/nts_auth.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/emulated_nic.h"
#include "tests/dataplane/testing/emulated_nic_model.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {
namespace tx_scheduler_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x12345678u};
// Longer than the 20 us default: a test binary on a loaded machine (or
// under ASan) can be preempted between the stamp and tx_burst, and a late
// frame leaves at once (not at its launch time).
constexpr int64_t kLeadNs = 5'000'000;
constexpr char kKeys[] = "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n";

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

std::shared_ptr<const core::NtpKeyTable> Keys() {
  absl::StatusOr<core::NtpKeyTable> t = core::ParseNtpKeys(kKeys);
  EXPECT_TRUE(t.ok()) << t.status();
  return std::make_shared<const core::NtpKeyTable>(std::move(*t));
}

struct Options {
  std::string tag;
  int64_t lead_ns = kLeadNs;
  double drift_ppb = 25'000;  // the NIC clock 25 ppm fast
  bool auth = false;
  bool interleave = false;
  bool nts = false;
};

class TxSchedulerTest : public ::testing::Test {
 protected:
  void SetUpNic(const Options& o) {
    EmulatedNicConfig c;
    c.send_on_timestamp = true;
    c.drift_ppb = o.drift_ppb;
    c.offset_ns = 987'654'321'012'345;  // its own epoch
    nic_ = EmulatedNic::Create(o.tag, c);
    PortOptions opts;
    opts.name = "net_zg_emu_" + o.tag;
    opts.tx_schedule = true;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    ASSERT_TRUE(port_->caps().hardware_rx_stamps());
    ASSERT_TRUE(port_->caps().send_on_timestamp);
    ASSERT_TRUE(port_->tx_launch_field().valid());
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    const uint64_t anchor = rte_rdtsc();
    tsc_model_ = TscModel(anchor);
    tsc_clock_.Write(tsc_model_);
    nic_model_ = EmulatedNicModel(*nic_, tsc_model_, anchor);
    nic_clock_.Write(nic_model_);

    ProtocolPipelineFactory::Options fo;
    if (o.auth) {
      auth_.SetKeys(Keys());
      fo.ntp_auth = &auth_;
      auto m = core::NtpMacer::Create(*Keys());
      ASSERT_TRUE(m.ok());
      client_ = std::move(*m);
    }
    if (o.nts) {
      nts_.SetClock([] { return int64_t{1'800'000'000}; });
      ASSERT_TRUE(nts_.SetMasterKey(core::testing::TestMasterKey(1), {}).ok());
      fo.nts = &nts_;
    }
    if (o.interleave) {
      xleave_.SetConfig({.enabled = true, .slots = 1024});
      fo.ntp_interleave = &xleave_;
    }
    factory_ = std::make_unique<ProtocolPipelineFactory>(std::move(fo));
    ASSERT_TRUE(factory_->RegisterNames(names_).ok());

    StampPlan plan;
    plan.ntp_rx = RxStampSource::kDynfield;
    plan.ntp_tx = plan.ptp_tx = TxStampSource::kScheduled;
    plan.tx_schedule_lead_ns = o.lead_ns;
    WorkerSetup setup = ServerSetup(port_->id(), port_->mac());
    setup.ports[0].stamps = plan;
    auto pipeline = factory_->Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Timestamper::Config stamping{&tsc_clock_, &nic_clock_,
                                 port_->stamp_field()};
    WorkerQueue q{port_->queue(0),
                  stamping,
                  port_->tx_offloads(),
                  plan,
                  {.field = port_->tx_launch_field(),
                   .lead_ns = o.lead_ns,
                   .link_mbps = 10'000}};
    worker_ = std::make_unique<Worker>(std::vector<WorkerQueue>{q},
                                       std::move(*pipeline), &stats_, &stop_);
    flow_ = ClientFlow::V4(port_->mac());
  }

  ClientFlow FlowFrom(int i) const {
    ClientFlow f = flow_;
    f.client_port = static_cast<uint16_t>(40000 + i);
    return f;
  }
  // A request (MACed with key 1 where the test has keys); with an origin,
  // in interleaved form (origin, receive and transmit all set).
  std::vector<uint8_t> Payload(core::NtpTimestamp origin = {},
                               core::NtpTimestamp t1 = kT1) const {
    std::vector<uint8_t> req = NtpRequest(4, t1);
    if (origin != core::NtpTimestamp{}) {
      core::StoreNtpTimestamp(req.data() + core::kNtpOffsetOriginTime, origin);
      core::StoreNtpTimestamp(req.data() + core::kNtpOffsetReceiveTime,
                              {0xe8fe6f81u, 0x40000000u});
    }
    if (client_ != nullptr) {
      req.resize(48 + 24);
      req.resize(48 + client_->Sign(static_cast<uint16_t>(client_->Find(1)),
                                    req.data(), 48));
    }
    return req;
  }
  // Injects `n` requests (client i from port 40000 + i), polls once, and
  // returns what left the NIC.
  std::vector<EmulatedNic::WireFrame> Exchange(int n,
                                               core::NtpTimestamp origin = {},
                                               core::NtpTimestamp t1 = kT1) {
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(nic_->Inject(UdpFrame(FlowFrom(i), Payload(origin, t1)), 0,
                               nic_->NicNowNs() - 1'000'000)
                      .has_value());
    }
    EXPECT_EQ(worker_->PollOnce(), static_cast<uint32_t>(n));
    return nic_->TakeTransmitted();
  }
  // The reply as client i reads it (addressing, UDP checksum, MAC).
  core::NtpHeader Read(const EmulatedNic::WireFrame& f, int i) {
    core::NtpHeader h;
    rte_mbuf* m = ToMbuf(pool_, f.bytes);
    absl::StatusOr<ClientView> v = ReceiveAtClient(FlowFrom(i), m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (v.ok()) {
      EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
      if (client_ != nullptr) {
        const core::NtpTrailer t =
            core::ParseNtpTrailer(v->payload(), v->info.payload_len, 4);
        EXPECT_EQ(t.mac, core::NtpMacKind::kSymmetric);
        EXPECT_EQ(client_->Verify(v->payload(), t).verdict,
                  core::NtpMacVerdict::kOk);
      }
    }
    rte_pktmbuf_free(m);
    return h;
  }
  // A NIC-clock time as a reply's NTP timestamp carries it, through the
  // published NIC model (what the correlator publishes).
  core::NtpTimestamp WireToNtp(int64_t nic_ns) const {
    return core::UtcToNtp(nic_model_.TaiToUtc(
        nic_model_.RawToTai(static_cast<uint64_t>(nic_ns))));
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  core::ClockModel tsc_model_, nic_model_;
  core::PublishedClock tsc_clock_, nic_clock_;
  CounterNames names_;
  NtpAuthFactory auth_;
  NtpInterleaveFactory xleave_;
  NtsFactory nts_;
  std::unique_ptr<core::NtpMacer> client_;
  std::unique_ptr<ProtocolPipelineFactory> factory_;
  std::unique_ptr<Worker> worker_;
  ClientFlow flow_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
};

TEST_F(TxSchedulerTest, ReplyLeavesAtItsLaunchTimeAndT3IsThatWireTime) {
  SetUpNic({.tag = "ts1"});
  const int64_t before = nic_->NicNowNs();
  std::vector<EmulatedNic::WireFrame> out = Exchange(1);
  const int64_t after = nic_->NicNowNs();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].scheduled);
  EXPECT_FALSE(out[0].late);
  // Launched `lead` after the reply was finalised (NIC ns run 25 ppm fast).
  EXPECT_GT(out[0].wire_ns, before + kLeadNs);
  EXPECT_LE(out[0].wire_ns, after + kLeadNs + 200);
  const core::NtpHeader h = Read(out[0], 0);
  EXPECT_EQ(h.origin_time, kT1);
  // Exact: the wire time through the NIC model, to the NTP format's bit.
  EXPECT_EQ(h.transmit_time, WireToNtp(out[0].wire_ns));
  EXPECT_EQ(stats_.tx_scheduled.Load(), 1u);
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 0u);
  EXPECT_EQ(nic_->counters().launch_scheduled, 1u);
  EXPECT_EQ(nic_->counters().launch_late, 0u);
  EXPECT_EQ(ReadNicLateLaunches(port_->id()), std::optional<uint64_t>(0));
}

TEST_F(TxSchedulerTest, BurstGetsIncreasingLaunchTimesSpacedByWireTime) {
  SetUpNic({.tag = "ts2"});
  constexpr int kN = 16;
  std::vector<EmulatedNic::WireFrame> out = Exchange(kN);
  ASSERT_EQ(out.size(), size_t{kN});
  for (int i = 0; i < kN; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(out[i].scheduled);
    EXPECT_FALSE(out[i].late);
    EXPECT_EQ(Read(out[i], i).transmit_time, WireToNtp(out[i].wire_ns));
    if (i == 0) continue;
    // The NIC's ns are 25 ppm short of TAI ns: allow one.
    EXPECT_GE(out[i].wire_ns - out[i - 1].wire_ns,
              core::FrameWireTimeNs(
                  static_cast<uint32_t>(out[i - 1].bytes.size()), 10'000) -
                  1);
  }
  EXPECT_EQ(stats_.tx_scheduled.Load(), uint64_t{kN});
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 0u);
  EXPECT_EQ(nic_->counters().launch_late, 0u);
}

TEST_F(TxSchedulerTest, MacSignedRepliesCarryTheExactT3AndVerify) {
  SetUpNic({.tag = "ts3", .auth = true});
  std::vector<EmulatedNic::WireFrame> out = Exchange(4);
  ASSERT_EQ(out.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(out[i].scheduled);
    EXPECT_FALSE(out[i].late);
    // Read() verifies the MAC (computed over the final T3).
    EXPECT_EQ(Read(out[i], i).transmit_time, WireToNtp(out[i].wire_ns));
  }
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 0u);
}

TEST_F(TxSchedulerTest, NtsSealedRepliesCarryTheExactT3AndOpen) {
  SetUpNic({.tag = "ts7", .nts = true});
  const core::NtsKeys keys = core::testing::TestKeys(5);
  core::testing::NtsClientSpec spec;
  spec.cookie = core::testing::MintCookie(*nts_.CurrentKeystore(), keys);
  spec.c2s = keys.c2s;
  spec.t1 = kT1;
  const std::vector<uint8_t> req = core::testing::BuildNtsRequest(spec);
  constexpr int kN = 4;
  for (int i = 0; i < kN; ++i) {
    ASSERT_TRUE(nic_->Inject(UdpFrame(FlowFrom(i), req), 0,
                             nic_->NicNowNs() - 1'000'000)
                    .has_value());
  }
  ASSERT_EQ(worker_->PollOnce(), static_cast<uint32_t>(kN));
  std::vector<EmulatedNic::WireFrame> out = nic_->TakeTransmitted();
  ASSERT_EQ(out.size(), size_t{kN});
  for (int i = 0; i < kN; ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(out[i].scheduled);
    EXPECT_FALSE(out[i].late);
    rte_mbuf* m = ToMbuf(pool_, out[i].bytes);
    absl::StatusOr<ClientView> v = ReceiveAtClient(FlowFrom(i), m);
    ASSERT_TRUE(v.ok()) << v.status();
    // The seal covers the reply as sent: it opens, and T3 is exact.
    const core::testing::NtsReplyView r = core::testing::OpenNtsReply(
        v->payload(), v->info.payload_len, spec.uid, keys.s2c);
    rte_pktmbuf_free(m);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.header.transmit_time, WireToNtp(out[i].wire_ns));
  }
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 0u);
}

TEST_F(TxSchedulerTest, InterleavedReplyCarriesThePreviousLaunchTime) {
  SetUpNic({.tag = "ts4", .interleave = true});
  // The first request in interleaved form (its origin's lowest bit set: one
  // of "our" receive stamps, unknown here) gets a basic reply, saved.
  std::vector<EmulatedNic::WireFrame> r1 =
      Exchange(1, {0x1000u, 0x1u}, {0xe8fe6f80u, 0x1u});
  ASSERT_EQ(r1.size(), 1u);
  const core::NtpHeader h1 = Read(r1[0], 0);
  // Basic reply: the launch time with the interleave tag bit cleared.
  EXPECT_EQ(h1.transmit_time, core::TagNtpTx(WireToNtp(r1[0].wire_ns)));
  // The client's next request names reply 1's T2: the interleaved reply's
  // T3 is reply 1's exact launch time (SetExactTx), not a software stamp.
  std::vector<EmulatedNic::WireFrame> r2 =
      Exchange(1, h1.receive_time, {0xe8fe6f82u, 0x1u});
  ASSERT_EQ(r2.size(), 1u);
  const core::NtpHeader h2 = Read(r2[0], 0);
  EXPECT_EQ(xleave_.stats(0).interleaved.Load(), 1u);
  EXPECT_EQ(h2.transmit_time, core::TagNtpTx(WireToNtp(r1[0].wire_ns)));
  EXPECT_GT(r2[0].wire_ns, r1[0].wire_ns);
}

TEST_F(TxSchedulerTest, TooShortALeadIsCountedLate) {
  // Lead 0: the launch time is "now" when the reply is finalised, past by
  // the time it reaches tx_burst. The flags refuse it (flags/timestamps.h);
  // a stall would do the same.
  SetUpNic({.tag = "ts5", .lead_ns = 0});
  std::vector<EmulatedNic::WireFrame> out = Exchange(3);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(stats_.tx_scheduled.Load(), 3u);
  EXPECT_EQ(stats_.tx_schedule_late.Load(), 3u);
  EXPECT_EQ(nic_->counters().launch_late, 3u);
  // What the exporter reads from the NIC's xstats.
  EXPECT_EQ(ReadNicLateLaunches(port_->id()), std::optional<uint64_t>(3));
  for (const EmulatedNic::WireFrame& f : out) {
    EXPECT_TRUE(f.scheduled);
    EXPECT_TRUE(f.late);
  }
}

TEST_F(TxSchedulerTest, WithoutANicModelRepliesGoUnscheduled) {
  SetUpNic({.tag = "ts6"});
  nic_clock_.Write(core::ClockModel{});  // nothing usable published
  std::vector<EmulatedNic::WireFrame> out = Exchange(1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].scheduled);
  EXPECT_EQ(stats_.tx_scheduled.Load(), 0u);
  Read(out[0], 0);
}

}  // namespace
}  // namespace tx_scheduler_test
}  // namespace zg::dataplane::testing
