// SPDX-License-Identifier: Apache-2.0
// The fixture of the protocol pipeline's integration tests
// (ntp_pipeline_*_test.cc): zeitgeberd's protocol pipeline (classifier,
// L2/L3 and NTP handlers, late-TX stamping) in the worker loop on an
// in-process ring port, serving a ClockModel the test publishes (and may
// change); Run() injects frames, polls once and collects what was sent
// with the counters' deltas, ExpectNtpReply() checks a reply field by field
// against the served model.
//
// Frames come from core's builders and the known-answer vectors of
// tests/core (validated by tshark there); replies are read back as the
// client would (ClassifyFrame with the client's addresses checks addressing
// and checksums).
//
//   TEST_F(NtpPipelineTest, X) {
//     SetUpServer();
//     Exchange e = Run({testing::UdpFrame(Flow4(), req)});
//     ExpectNtpReply(e.out[0], Flow4(), req, e);
//     Free(e);
//   }
#ifndef ZG_TESTS_DATAPLANE_NTP_NTP_PIPELINE_FIXTURE_H_
#define ZG_TESTS_DATAPLANE_NTP_NTP_PIPELINE_FIXTURE_H_

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/tsc.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/dataplane/testing/dpdk_env.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {

class NtpPipelineTest : public ::testing::Test {
 protected:
  static constexpr int64_t kS = core::kNanosPerSecond;
  static constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x80000001u};
  static constexpr int64_t kRootDelayNs = 1'234'567;
  static constexpr int64_t kErrorBoundNs = 50'000'000;
  static constexpr uint8_t kNtpKind =
      static_cast<uint8_t>(core::FrameKind::kNtp);

  static core::ClockModel ServedModel() {
    core::ClockModel m;
    m.raw_anchor = core::ReadTsc();
    m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
    m.ns_per_tick_q32 =
        core::NsPerTickQ32FromHz(static_cast<double>(testing::TscHz()));
    m.error_bound_ns = kErrorBoundNs;
    m.error_growth_ns_per_s = 0;
    m.max_extrapolation_ns = 3600 * kS;
    m.state = core::SyncState::kLocked;
    m.stratum = 1;
    m.precision_log2 = -23;
    m.reference_id = core::NtpRefId("GPS\0");
    m.root_delay_ns = kRootDelayNs;
    m.reference_time = m.tai_anchor - 10 * kS;
    return m;
  }

  // What one PollOnce did with the injected frames.
  struct Exchange {
    std::vector<rte_mbuf*> out;
    WorkerStatsSnapshot delta;
    uint64_t tsc_before = 0, tsc_after = 0;
  };

  // The server: MAC 02:00:00:00:00:01, 10.99.0.1/24, 2001:db8::1/64 and
  // fe80::1/64 (the addresses of tests/core's frame vectors).
  void SetUpServer(std::optional<uint16_t> vlan = std::nullopt,
                   NtpPolicyFactory* policy = nullptr,
                   std::vector<ProtocolPlugin*> plugins = {},
                   NtpAuthFactory* ntp_auth = nullptr,
                   NtsFactory* nts = nullptr,
                   NtpInterleaveFactory* ntp_interleave = nullptr) {
    static int instance = 0;
    ring_ = testing::MakeRingPort("np" + std::to_string(instance++), 1);
    PortOptions opts;
    opts.name = ring_.name;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    initial_avail_ = rte_mempool_avail_count(pool_);
    model_ = ServedModel();
    tsc_clock_.Write(model_);

    factory_ = std::make_unique<ProtocolPipelineFactory>(
        ProtocolPipelineFactory::Options{policy, std::move(plugins), ntp_auth,
                                         nts, ntp_interleave});
    ASSERT_TRUE(factory_->RegisterNames(names_).ok());
    for (auto [ip, len] :
         {std::pair{core::IpAddress::V4(core::testing::kOur4), 24},
          std::pair{core::IpAddress::V6(core::testing::kOur6), 64},
          std::pair{core::IpAddress::V6(core::testing::kOurLinkLocal), 64}}) {
      InterfaceAddress a;
      a.family = ip.is_v6() ? InterfaceAddress::kIpv6 : InterfaceAddress::kIpv4;
      if (ip.is_v6()) {
        ip.v6.Store(a.bytes.data());
      } else {
        ip.v4.Store(a.bytes.data());
      }
      a.prefix_len = static_cast<uint8_t>(len);
      addresses_.push_back(a);
    }
    WorkerSetup setup;
    WorkerPort wp;
    wp.port_id = port_->id();
    core::testing::kOurMac.Store(wp.mac.addr_bytes);
    wp.stamps = stamps_;
    setup.ports.push_back(wp);
    setup.addresses = addresses_;
    setup.vlan_id = vlan.value_or(0);
    auto pipeline = factory_->Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    worker_ = std::make_unique<Worker>(
        std::vector<WorkerQueue>{
            {port_->queue(0), {&tsc_clock_, nullptr, {}}, {}}},
        std::move(*pipeline), &stats_, &stop_);
  }
  void TearDown() override {
    if (pool_ != nullptr) {
      EXPECT_EQ(rte_mempool_avail_count(pool_), initial_avail_)
          << "mbufs leaked or double-freed";
    }
  }

  ClientFlow Flow4(uint16_t client_port = 40000) const {
    ClientFlow f;
    f.client_mac = core::testing::kPeerMac;
    f.server_mac = core::testing::kOurMac;
    f.client_ip = core::IpAddress::V4(core::testing::kPeer4);
    f.server_ip = core::IpAddress::V4(core::testing::kOur4);
    f.client_port = client_port;
    return f;
  }
  ClientFlow Flow6(uint16_t client_port = 40000) const {
    ClientFlow f = Flow4(client_port);
    f.client_ip = core::IpAddress::V6(core::testing::kPeer6);
    f.server_ip = core::IpAddress::V6(core::testing::kOur6);
    return f;
  }

  // Injects `frames`, runs one poll, collects what was sent.
  Exchange Run(const std::vector<std::vector<uint8_t>>& frames) {
    for (const auto& f : frames) {
      rte_mbuf* m = testing::ToMbuf(pool_, f);
      EXPECT_NE(m, nullptr);
      EXPECT_EQ(rte_ring_enqueue(ring_.rx[0], m), 0);
    }
    Exchange e;
    const WorkerStatsSnapshot before = WorkerStatsSnapshot::Of(stats_);
    e.tsc_before = core::ReadTsc();
    EXPECT_EQ(worker_->PollOnce(), frames.size());
    e.tsc_after = core::ReadTsc();
    e.out = testing::DrainRing(ring_.tx[0]);
    e.delta = WorkerStatsSnapshot::Of(stats_);
    for (size_t i = 0; i < kMaxDropReasons; ++i)
      e.delta.dropped[i] -= before.dropped[i];
    for (size_t i = 0; i < kMaxFrameKinds; ++i) {
      e.delta.handled[i] -= before.handled[i];
      e.delta.replied[i] -= before.replied[i];
    }
    e.delta.tx_packets -= before.tx_packets;
    return e;
  }

  core::UtcNs Utc(core::NtpTimestamp ts) const {
    return core::NtpToUtc(ts, model_.TaiToUtc(model_.tai_anchor));
  }
  core::UtcNs UtcAtTsc(uint64_t tsc) const {
    return model_.TaiToUtc(model_.RawToTai(tsc));
  }

  // Reads `m` as the NTP reply to `request` (UDP payload) sent on `flow`,
  // and checks every field against the served model.
  core::NtpHeader ExpectNtpReply(const rte_mbuf* m, const ClientFlow& flow,
                                 const std::vector<uint8_t>& request,
                                 const Exchange& e) {
    core::NtpHeader h;
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(flow, m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return h;
    EXPECT_EQ(v->info.ip_version, flow.server_ip.is_v6() ? 6 : 4);
    if (flow.server_ip.is_v6()) {
      EXPECT_EQ(v->info.src_ipv6, flow.server_ip.v6);
    } else {
      EXPECT_EQ(v->info.src_ipv4, flow.server_ip.v4);
    }
    EXPECT_EQ(v->info.src_port, 123);
    EXPECT_EQ(v->info.dst_port, flow.client_port);
    EXPECT_EQ(v->info.payload_len, core::kNtpHeaderSize);
    core::NtpHeader req;
    EXPECT_TRUE(core::ParseNtpHeader(
        request.data(), static_cast<uint32_t>(request.size()), &req));
    EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    EXPECT_EQ(h.leap, core::NtpLeapIndicator::kNoWarning);
    EXPECT_EQ(h.version, req.version);
    EXPECT_EQ(h.mode, core::NtpMode::kServer);
    EXPECT_EQ(h.stratum, 1);
    EXPECT_EQ(h.precision_log2, -23);
    EXPECT_EQ(h.root_delay, core::NtpShortCeilFromNanos(kRootDelayNs));
    EXPECT_EQ(h.root_dispersion, core::NtpShortCeilFromNanos(kErrorBoundNs));
    EXPECT_EQ(h.reference_id, core::NtpRefId("GPS\0"));
    EXPECT_EQ(h.reference_time,
              core::UtcToNtp(model_.TaiToUtc(model_.reference_time)));
    EXPECT_EQ(h.origin_time, req.transmit_time);
    const core::UtcNs t2 = Utc(h.receive_time), t3 = Utc(h.transmit_time);
    EXPECT_GE(t2.value, UtcAtTsc(e.tsc_before).value - 1);
    EXPECT_LT(t2.value, t3.value);
    EXPECT_LE(t3.value, UtcAtTsc(e.tsc_after).value + 1);
    return h;
  }

  void Free(Exchange& e) {
    testing::FreeAll(e.out);
    e.out.clear();
  }

  MbufPools pools_{2047};
  testing::RingPort ring_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  unsigned initial_avail_ = 0;
  core::ClockModel model_;
  core::PublishedClock tsc_clock_;
  CounterNames names_;
  std::vector<InterfaceAddress> addresses_;
  StampPlan stamps_;  // the port's stamp plan (WorkerPort::stamps)
  std::unique_ptr<ProtocolPipelineFactory> factory_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<Worker> worker_;
};

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_NTP_NTP_PIPELINE_FIXTURE_H_
