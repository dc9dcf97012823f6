// SPDX-License-Identifier: Apache-2.0
// The fixture of the PTP pipeline integration tests (ptp_pipeline_test.cc,
// ptp_trust_pipeline_test.cc): a PtpPlugin from the --ptp_* flags in
// zeitgeberd's protocol pipeline on an in-process ring port, one worker
// polled by the test, the control side stepped by Tick(). Frames injected
// into the port's RX ring go through the worker loop; what the port
// transmits is parsed back with core/net/frame.h and core/ptp/ptp_wire.h.
//
//   TEST_F(PtpPipelineTest, X) {
//     Start("ptpx");                        // MASTER within 10 s
//     InjectPtp(ClientMessage(...), false, core::kPtpGeneralPort);
//     std::vector<Sent> out = Run(100);     // what it sent in 100 ms
//   }
// With serve_ipv6_ set before Start, the port also serves kServerIp6 and
// InjectPtp6 sends over UDP/IPv6 (from kClientIp6).
//
// Start(tag, 2) builds two workers, one per queue of the ring port, as
// zeitgeberd does with two lcores; the test is the NIC and picks the RX
// queue of what it injects (`queue`). Run polls every worker and Collect
// drains every TX queue (Sent::queue says which).
//
// Start(tag, 1, true, /*ports=*/2) gives the worker a second ring port
// ("ring1"; the first is "ring0"), as zeitgeberd with two --port: frames
// go into port inject_port_ and Sent::port says which port sent.
#ifndef ZG_TESTS_DATAPLANE_PTP_PTP_PIPELINE_FIXTURE_H_
#define ZG_TESTS_DATAPLANE_PTP_PTP_PIPELINE_FIXTURE_H_

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/ip_prefix.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
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

ABSL_DECLARE_FLAG(bool, ptp);
ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_DECLARE_FLAG(std::string, ptp_unicast_negotiation);
ABSL_DECLARE_FLAG(int, ptp_log_sync_interval);
ABSL_DECLARE_FLAG(int, ptp_log_announce_interval);
ABSL_DECLARE_FLAG(std::string, ptp_transport);
ABSL_DECLARE_FLAG(bool, ptp_two_step);
ABSL_DECLARE_FLAG(int64_t, ptp_tx_budget);

namespace zg::dataplane::ptp_test {

using core::PtpMessageType;
constexpr int64_t kS = core::kNanosPerSecond;
const core::MacAddr kClientMac{{0x02, 0xC1, 0x1E, 0x00, 0x00, 0x02}};
const core::Ipv4Addr kServerIp = core::Ipv4Addr::FromOctets(10, 1, 0, 1);
const core::Ipv4Addr kClientIp = core::Ipv4Addr::FromOctets(10, 1, 0, 2);
constexpr core::Ipv6Addr kServerIp6{
    {0xfd, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}};
constexpr core::Ipv6Addr kClientIp6{
    {0xfd, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}};
const core::PtpPortIdentity kClientPort{
    {{0x02, 0xC1, 0x1E, 0xFF, 0xFE, 0x00, 0x00, 0x02}}, 1};

inline core::ClockModel LockedModel(uint64_t tsc) {
  core::ClockModel m;
  m.raw_anchor = tsc;
  m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
  m.ns_per_tick_q32 =
      core::NsPerTickQ32FromHz(static_cast<double>(testing::TscHz()));
  m.error_bound_ns = 100;
  m.max_extrapolation_ns = 1000 * kS;
  m.state = core::SyncState::kLocked;
  m.ptp_quality = {6, 0x21, 0x4E5D};
  m.ptp_time_source = core::PtpTimeSource::kGnss;
  m.time_traceable = m.frequency_traceable = true;
  return m;
}

struct Sent {
  uint16_t port = 0;   // the ring port (0, or 1 with two ports)
  uint16_t queue = 0;  // the TX queue, so the worker, that sent it
  core::FrameInfo info;
  core::PtpMessage msg;
  std::vector<uint8_t> bytes;  // the PTP message (owns msg.tlvs)
  std::vector<uint8_t> frame;  // the whole frame, as transmitted
};

class PtpPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::SetFlag(&FLAGS_ptp, true);
    absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "");
    absl::SetFlag(&FLAGS_ptp_log_sync_interval, -1000);  // 1 s
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
    absl::SetFlag(&FLAGS_ptp_transport, "");
  }
  void TearDown() override {
    for (const testing::RingPort* ring : {&ring_, &ring2_}) {
      for (rte_ring* r : ring->tx) {
        for (rte_mbuf* m : testing::DrainRing(r)) rte_pktmbuf_free(m);
      }
    }
  }

  void OpenRingPort(const std::string& tag, unsigned workers,
                    testing::RingPort& ring, std::unique_ptr<Port>& port) {
    ring = testing::MakeRingPort(tag, static_cast<uint16_t>(workers));
    PortOptions opts;
    opts.name = ring.name;
    opts.num_queues = static_cast<uint16_t>(workers);
    auto opened = Port::Open(opts, &pools_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    port = std::move(*opened);
    ASSERT_TRUE(port->Start().ok());
  }

  // `workers` (1..kMaxWorkers) workers, one per queue; `steers_by_address`:
  // what Port::steers_by_address() would say of the test's steering;
  // `ports` (1 or 2) ring ports, each worker serving its queue of each.
  void Start(const std::string& tag, unsigned workers = 1,
             bool steers_by_address = true, unsigned ports = 1) {
    ASSERT_GE(workers, 1u);
    ASSERT_LE(workers, kMaxWorkers);
    ASSERT_TRUE(ports == 1 || ports == 2);
    OpenRingPort(tag, workers, ring_, port_);
    if (ports == 2) OpenRingPort(tag + "b", workers, ring2_, port2_);
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    // Ring ports have no MAC of their own.
    server_mac_ = core::MacAddr{{0x02, 0x5E, 0x00, 0x00, 0x00, 0x01}};
    rte_ether_addr mac;
    std::memcpy(mac.addr_bytes, server_mac_.b.data(), 6);
    t0_ = core::ReadTsc();
    clock_.Write(LockedModel(t0_));
    DaemonConfig config;
    InterfaceAddress a;
    a.family = InterfaceAddress::kIpv4;
    kServerIp.Store(a.bytes.data());
    a.prefix_len = 24;
    config.addresses = {a};
    if (serve_ipv6_) {
      InterfaceAddress a6;
      a6.family = InterfaceAddress::kIpv6;
      kServerIp6.Store(a6.bytes.data());
      a6.prefix_len = 64;
      config.addresses.push_back(a6);
    }
    config.access.ptp = access_;
    ASSERT_TRUE(factory_.Configure(config).ok());
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
    addresses_ = config.addresses;
    for (unsigned i = 0; i < workers; ++i) {
      const uint16_t q = static_cast<uint16_t>(i);
      WorkerSetup setup;
      setup.lcore_id = rte_get_main_lcore();
      setup.worker_index = i;
      setup.workers = workers;
      setup.tsc_hz = tsc_hz_;
      WorkerPort wp{port_->id(), q, mac, port_->mtu()};
      wp.steers_by_address = steers_by_address;
      wp.name = "ring0";
      setup.ports = {wp};
      Timestamper::Config stamping;
      stamping.tsc_clock = &clock_;
      std::vector<WorkerQueue> queues = {{port_->queue(q), stamping, {}}};
      if (port2_ != nullptr) {
        wp.port_id = port2_->id();
        wp.name = "ring1";
        setup.ports.push_back(wp);
        queues.push_back({port2_->queue(q), stamping, {}});
      }
      setup.addresses = addresses_;
      auto pipeline = factory_.Create(setup);
      ASSERT_TRUE(pipeline.ok()) << pipeline.status();
      workers_.push_back(std::make_unique<Worker>(
          std::move(queues), std::move(*pipeline), &stats_[i], &stop_));
    }
    worker_ = workers_.front().get();
    // LISTENING now; MASTER once the receipt timeout (375 ms) has passed:
    // tick until every port is, within a total deadline.
    Tick();
    auto all_master = [&] {
      for (size_t p = 0; p < ptp_.port_count(); ++p) {
        if (ptp_.runtime(p)->state() != core::PtpPortState::kMaster) {
          return false;
        }
      }
      return true;
    };
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!all_master() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Tick();
    }
    ASSERT_EQ(ptp_.port_count(), ports);
    ASSERT_TRUE(all_master());
  }

  // One step of the control thread.
  void Tick() {
    factory_.ControlStep(
        {&clock_, core::ReadTsc(), static_cast<double>(testing::TscHz())});
  }

  // `src_port` 0: the same as `port`; `queue`: the RX queue (worker).
  void InjectPtp(const core::PtpMessage& m, bool multicast, uint16_t port,
                 uint16_t src_port = 0, core::Ipv4Addr src_ip = kClientIp,
                 uint16_t queue = 0) {
    InjectPtpOver(m, multicast, port, src_port, /*ipv6=*/false, src_ip, queue);
  }
  // The same over UDP/IPv6: to ff0e::181 or kServerIp6, from kClientIp6.
  void InjectPtp6(const core::PtpMessage& m, bool multicast, uint16_t port) {
    InjectPtpOver(m, multicast, port, 0, /*ipv6=*/true, kClientIp);
  }
  void InjectPtpOver(const core::PtpMessage& m, bool multicast, uint16_t port,
                     uint16_t src_port, bool ipv6, core::Ipv4Addr src_ip,
                     uint16_t queue = 0) {
    std::vector<uint8_t> ptp(1500);
    ptp.resize(core::SerializePtpMessage(m, ptp));
    ASSERT_GT(ptp.size(), 0u);
    rte_mbuf* mb = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(mb, nullptr);
    uint8_t* buf = rte_pktmbuf_mtod(mb, uint8_t*);
    core::UdpFrameSpec spec;
    spec.src_mac = kClientMac;
    if (ipv6) {
      spec.dst_mac =
          multicast ? core::kPtpPrimaryIpv6.MulticastMac() : server_mac_;
      spec.src_ip = core::IpAddress::V6(kClientIp6);
      spec.dst_ip =
          core::IpAddress::V6(multicast ? core::kPtpPrimaryIpv6 : kServerIp6);
    } else {
      spec.dst_mac = multicast ? core::Ipv4MulticastMac(core::kPtpPrimaryIpv4)
                               : server_mac_;
      spec.src_ip = core::IpAddress::V4(src_ip);
      spec.dst_ip =
          core::IpAddress::V4(multicast ? core::kPtpPrimaryIpv4 : kServerIp);
    }
    spec.src_port = src_port == 0 ? port : src_port;
    spec.dst_port = port;
    core::FrameInfo info;
    const uint32_t len = core::BuildUdpFrame(
        buf, 2000, spec, static_cast<uint16_t>(ptp.size()), &info);
    ASSERT_GT(len, 0u);
    std::memcpy(buf + info.payload_offset, ptp.data(), ptp.size());
    core::FinaliseUdpChecksum(buf, info);
    mb->data_len = static_cast<uint16_t>(len);
    mb->pkt_len = len;
    const testing::RingPort& ring = inject_port_ == 0 ? ring_ : ring2_;
    ASSERT_LT(queue, ring.rx.size());
    ASSERT_EQ(rte_ring_enqueue(ring.rx[queue], mb), 0);
  }

  core::PtpMessage ClientMessage(core::PtpBody body) {
    core::PtpMessage m;
    m.header.source_port_identity = kClientPort;
    m.header.sequence_id = 77;
    m.body = body;
    m.header.control_field = core::PtpControlFieldFor(core::PtpBodyType(body));
    return m;
  }

  // A unicast REQUEST_UNICAST_TRANSMISSION Signaling from the client with
  // one TLV per ask; its TLVs stay valid until the next call.
  core::PtpMessage UnicastRequest(
      std::initializer_list<core::PtpUnicastRequest> asks) {
    request_tlvs_.assign(64, 0);
    size_t n = 0;
    for (const core::PtpUnicastRequest& a : asks) {
      n += core::WritePtpUnicastRequestTlv(a,
                                           std::span(request_tlvs_).subspan(n));
    }
    request_tlvs_.resize(n);
    core::PtpMessage req = ClientMessage(core::PtpSignaling{});
    req.header.flags.Set(core::PtpFlag::kUnicast);
    req.tlvs = request_tlvs_;
    return req;
  }

  // A better master (priority1 1 against our 128) announces twice on port
  // inject_port_, enough to qualify; the worker passes the Announces on and
  // the control side decides.
  void HearBetterMaster() {
    for (uint16_t seq = 1; seq <= 2; ++seq) {
      core::PtpAnnounce a;
      a.grandmaster_priority1 = 1;
      a.grandmaster_identity = kClientPort.clock_identity;
      a.grandmaster_clock_quality = {6, 0x20, 0x4000};
      core::PtpMessage m = ClientMessage(a);
      m.header.sequence_id = seq;
      m.header.log_message_interval = -3;
      InjectPtp(m, /*multicast=*/true, core::kPtpGeneralPort);
    }
    worker_->PollOnce();
    Tick();
  }

  // Polls the workers for `ms` milliseconds; returns what they sent.
  std::vector<Sent> Run(int ms) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      for (auto& w : workers_) w->PollOnce();
    }
    return Collect();
  }
  std::vector<Sent> Collect() {
    std::vector<Sent> out;
    core::LocalAddresses any =
        *core::LocalAddresses::Create(kClientMac, std::nullopt);
    (void)any.AddIpv4(kClientIp);
    (void)any.AddIpv6(kClientIp6);
    for (uint16_t p = 0; p < 2; ++p) {
      const testing::RingPort& ring = p == 0 ? ring_ : ring2_;
      for (uint16_t q = 0; q < ring.tx.size(); ++q) {
        for (rte_mbuf* m : testing::DrainRing(ring.tx[q])) {
          Sent s;
          s.port = p;
          s.queue = q;
          const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
          s.info = core::ClassifyFrame(f, m->data_len, any);
          EXPECT_NE(s.info.kind, core::FrameKind::kDrop)
              << core::FrameDropName(s.info.drop);
          s.bytes.assign(f + s.info.payload_offset,
                         f + s.info.payload_offset + s.info.payload_len);
          s.frame.assign(f, f + m->data_len);
          EXPECT_EQ(core::ParsePtpMessage(s.bytes, &s.msg), core::PtpDrop::kOk);
          out.push_back(std::move(s));
          rte_pktmbuf_free(m);
        }
      }
    }
    return out;
  }
  static std::vector<const Sent*> OfType(const std::vector<Sent>& v,
                                         PtpMessageType t) {
    std::vector<const Sent*> out;
    for (const Sent& s : v) {
      if (s.msg.header.message_type == t) out.push_back(&s);
    }
    return out;
  }
  uint64_t Dropped(const std::string& reason) {
    for (size_t i = 0; i < kMaxDropReasons; ++i) {
      if (names_.DropReasonName(i) != reason) continue;
      uint64_t n = 0;
      for (const WorkerStats& w : stats_) n += w.dropped[i].Load();
      return n;
    }
    ADD_FAILURE() << "no drop reason " << reason;
    return 0;
  }

  MbufPools pools_{2047};
  testing::RingPort ring_;
  std::unique_ptr<Port> port_;
  testing::RingPort ring2_;            // with two ports
  std::unique_ptr<Port> port2_;        // with two ports; else null
  uint16_t inject_port_ = 0;           // where InjectPtp puts frames: 0 or 1
  std::vector<uint8_t> request_tlvs_;  // UnicastRequest's
  rte_mempool* pool_ = nullptr;
  core::MacAddr server_mac_;
  uint64_t t0_ = 0;
  core::PublishedClock clock_;
  absl::FlagSaver saver_;  // restores every flag after each test
  PtpPlugin ptp_;          // reads the --ptp_* flags SetUp sets
  ProtocolPipelineFactory factory_{
      ProtocolPipelineFactory::Options{nullptr, {&ptp_}}};
  CounterNames names_;
  std::vector<InterfaceAddress> addresses_;
  static constexpr unsigned kMaxWorkers = 2;
  std::array<WorkerStats, kMaxWorkers> stats_;
  core::AccessRules access_;  // --ptp_allow / --ptp_deny for Start()
  bool serve_ipv6_ = false;   // Start() serves kServerIp6 too
  double tsc_hz_ = 0;         // WorkerSetup::tsc_hz for Start()
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<Worker>> workers_;  // one per queue
  Worker* worker_ = nullptr;                      // workers_[0]
};

}  // namespace zg::dataplane::ptp_test

#endif  // ZG_TESTS_DATAPLANE_PTP_PTP_PIPELINE_FIXTURE_H_
