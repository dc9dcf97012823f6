// Integration tests of the PTP grandmaster (dataplane/ptp/ptp_plugin.h) as a
// plugin of zeitgeberd's protocol pipeline
// (dataplane/worker/protocol_pipeline.h) on an in-process ring port: PTP frames
// injected into the port's RX ring go through the worker loop, and what the
// port transmits is parsed back with core/net/frame.h and core/ptp/ptp_wire.h.
// The control side (BMCA) is driven by calling ControlStep as the daemon's
// control loop does; the enterprise profile's fastest Announce (2^-3 s) keeps
// receipt timeouts short (3 x 125 ms).
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
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

namespace zg::dataplane {
namespace {

using core::PtpMessageType;
constexpr int64_t kS = core::kNanosPerSecond;
const core::MacAddr kClientMac{{0x02, 0xC1, 0x1E, 0x00, 0x00, 0x02}};
const core::Ipv4Addr kServerIp = core::Ipv4Addr::FromOctets(10, 1, 0, 1);
const core::Ipv4Addr kClientIp = core::Ipv4Addr::FromOctets(10, 1, 0, 2);
const core::PtpPortIdentity kClientPort{
    {{0x02, 0xC1, 0x1E, 0xFF, 0xFE, 0x00, 0x00, 0x02}}, 1};

core::ClockModel LockedModel(uint64_t tsc) {
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
  core::FrameInfo info;
  core::PtpMessage msg;
  std::vector<uint8_t> bytes;  // the PTP message (owns msg.tlvs)
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
    for (rte_mbuf* m : testing::DrainRing(ring_.tx[0])) rte_pktmbuf_free(m);
  }

  void Start(const std::string& tag) {
    ring_ = testing::MakeRingPort(tag, 1);
    PortOptions opts;
    opts.name = ring_.name;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
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
    config.access.ptp = access_;
    ASSERT_TRUE(factory_.Configure(config).ok());
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
    WorkerSetup setup;
    setup.lcore_id = rte_get_main_lcore();
    setup.ports = {{port_->id(), 0, mac, port_->mtu()}};
    setup.addresses = config.addresses;
    addresses_ = config.addresses;
    setup.addresses = addresses_;
    auto pipeline = factory_.Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Timestamper::Config stamping;
    stamping.tsc_clock = &clock_;
    worker_ = std::make_unique<Worker>(
        std::vector<WorkerQueue>{{port_->queue(0), stamping, {}}},
        std::move(*pipeline), &stats_, &stop_);
    // LISTENING now; MASTER once the receipt timeout (375 ms) has passed:
    // tick until it is, within a total deadline.
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

  // One step of the control thread.
  void Tick() {
    factory_.ControlStep(
        {&clock_, core::ReadTsc(), static_cast<double>(testing::TscHz())});
  }

  // `src_port` 0: the same as `port`.
  void InjectPtp(const core::PtpMessage& m, bool multicast, uint16_t port,
                 uint16_t src_port = 0) {
    std::vector<uint8_t> ptp(1500);
    ptp.resize(core::SerializePtpMessage(m, ptp));
    ASSERT_GT(ptp.size(), 0u);
    rte_mbuf* mb = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(mb, nullptr);
    uint8_t* buf = rte_pktmbuf_mtod(mb, uint8_t*);
    core::UdpFrameSpec spec;
    spec.src_mac = kClientMac;
    spec.dst_mac =
        multicast ? core::Ipv4MulticastMac(core::kPtpPrimaryIpv4) : server_mac_;
    spec.src_ip = core::IpAddress::V4(kClientIp);
    spec.dst_ip =
        core::IpAddress::V4(multicast ? core::kPtpPrimaryIpv4 : kServerIp);
    spec.src_port = src_port == 0 ? port : src_port;
    spec.dst_port = port;
    core::FrameInfo info;
    const uint32_t len = core::BuildUdpFrame(
        buf, 2000, spec, static_cast<uint16_t>(ptp.size()), &info);
    ASSERT_GT(len, 0u);
    std::memcpy(buf + info.payload_offset, ptp.data(), ptp.size());
    core::FinalizeUdpChecksum(buf, info);
    mb->data_len = static_cast<uint16_t>(len);
    mb->pkt_len = len;
    ASSERT_EQ(rte_ring_enqueue(ring_.rx[0], mb), 0);
  }

  core::PtpMessage ClientMessage(core::PtpBody body) {
    core::PtpMessage m;
    m.header.source_port_identity = kClientPort;
    m.header.sequence_id = 77;
    m.body = body;
    m.header.control_field = core::PtpControlFieldFor(core::PtpBodyType(body));
    return m;
  }

  // Polls the worker for `ms` milliseconds; returns what it sent.
  std::vector<Sent> Run(int ms) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) worker_->PollOnce();
    return Collect();
  }
  std::vector<Sent> Collect() {
    std::vector<Sent> out;
    core::LocalAddresses any =
        *core::LocalAddresses::Create(kClientMac, std::nullopt);
    (void)any.AddIpv4(kClientIp);
    for (rte_mbuf* m : testing::DrainRing(ring_.tx[0])) {
      Sent s;
      const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
      s.info = core::ClassifyFrame(f, m->data_len, any);
      EXPECT_NE(s.info.kind, core::FrameKind::kDrop)
          << core::FrameDropName(s.info.drop);
      s.bytes.assign(f + s.info.payload_offset,
                     f + s.info.payload_offset + s.info.payload_len);
      EXPECT_EQ(core::ParsePtpMessage(s.bytes, &s.msg), core::PtpDrop::kOk);
      out.push_back(std::move(s));
      rte_pktmbuf_free(m);
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
      if (names_.DropReasonName(i) == reason) return stats_.dropped[i].Load();
    }
    ADD_FAILURE() << "no drop reason " << reason;
    return 0;
  }

  MbufPools pools_{2047};
  testing::RingPort ring_;
  std::unique_ptr<Port> port_;
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
  WorkerStats stats_;
  core::AccessRules access_;  // --ptp_allow / --ptp_deny for Start()
  std::atomic<bool> stop_{false};
  std::unique_ptr<Worker> worker_;
};

TEST_F(PtpPipelineTest, MulticastAnnounceSyncFollowUp) {
  Start("ptpmc");
  const std::vector<Sent> sent = Run(50);
  const auto syncs = OfType(sent, PtpMessageType::kSync);
  const auto fus = OfType(sent, PtpMessageType::kFollowUp);
  const auto announces = OfType(sent, PtpMessageType::kAnnounce);
  ASSERT_EQ(syncs.size(), 1u);
  ASSERT_EQ(fus.size(), 1u);
  ASSERT_EQ(announces.size(), 1u);
  const Sent& sync = *syncs[0];
  EXPECT_EQ(sync.info.dst_ipv4, core::kPtpPrimaryIpv4);
  EXPECT_EQ(sync.info.dst_port, core::kPtpEventPort);
  EXPECT_EQ(sync.info.src_ipv4, kServerIp);
  EXPECT_TRUE(sync.msg.header.flags.Has(core::PtpFlag::kTwoStep));
  EXPECT_FALSE(sync.msg.header.flags.Has(core::PtpFlag::kUnicast));
  const Sent& fu = *fus[0];
  EXPECT_EQ(fu.info.dst_port, core::kPtpGeneralPort);
  EXPECT_EQ(fu.msg.header.sequence_id, sync.msg.header.sequence_id);
  // preciseOriginTimestamp: the TX stamp, within the model's time of the
  // test run (the model maps t0 to 1'800'000'037 s).
  const core::TaiNs t1 = core::PtpToTai(
      std::get<core::PtpFollowUp>(fu.msg.body).precise_origin_timestamp);
  EXPECT_GE(t1.value, 1'800'000'037 * kS);
  EXPECT_LT(t1.value, 1'800'000'037 * kS + 60 * kS);
  const auto& a = std::get<core::PtpAnnounce>(announces[0]->msg.body);
  EXPECT_EQ(a.grandmaster_clock_quality.clock_class, 6);
  EXPECT_EQ(a.time_source, core::PtpTimeSource::kGnss);
  EXPECT_EQ(a.grandmaster_identity,
            core::PtpClockIdentity::FromMac(server_mac_.b));
  EXPECT_TRUE(announces[0]->msg.header.flags.Has(core::PtpFlag::kPtpTimescale));
  EXPECT_EQ(announces[0]->msg.header.log_message_interval, -3);
}

TEST_F(PtpPipelineTest, DelayReqAnsweredWithItsReceiveTime) {
  Start("ptpdr");
  Run(20);  // the first Sync/Announce out of the way
  const uint64_t before = core::ReadTsc();
  InjectPtp(ClientMessage(core::PtpDelayReq{}), /*multicast=*/true,
            core::kPtpEventPort);
  core::PtpMessage unicast = ClientMessage(core::PtpDelayReq{});
  unicast.header.flags.Set(core::PtpFlag::kUnicast);
  unicast.header.sequence_id = 78;
  InjectPtp(unicast, /*multicast=*/false, core::kPtpEventPort);
  worker_->PollOnce();
  const uint64_t after = core::ReadTsc();
  const std::vector<Sent> out = Collect();
  const auto resps = OfType(out, PtpMessageType::kDelayResp);
  ASSERT_EQ(resps.size(), 2u);
  core::ClockModel model = LockedModel(t0_);
  for (const Sent* r : resps) {
    const auto& body = std::get<core::PtpDelayResp>(r->msg.body);
    EXPECT_EQ(body.requesting_port_identity, kClientPort);
    const core::TaiNs t4 = core::PtpToTai(body.receive_timestamp);
    EXPECT_GE(t4.value, model.RawToTai(before).value);
    EXPECT_LE(t4.value, model.RawToTai(after).value);
    EXPECT_EQ(r->info.dst_port, core::kPtpGeneralPort);
  }
  // The multicast request is answered to the group, the unicast one to the
  // requester, flagged unicast.
  const Sent* mc = resps[0]->msg.header.sequence_id == 77 ? resps[0] : resps[1];
  const Sent* uc = mc == resps[0] ? resps[1] : resps[0];
  EXPECT_EQ(mc->info.dst_ipv4, core::kPtpPrimaryIpv4);
  EXPECT_EQ(uc->info.dst_ipv4, kClientIp);
  EXPECT_TRUE(uc->msg.header.flags.Has(core::PtpFlag::kUnicast));
  EXPECT_EQ(uc->msg.header.log_message_interval, 0x7F);
}

TEST_F(PtpPipelineTest, ManagementGetAnswered) {
  Start("ptpmg");
  Run(10);
  core::PtpHeader h;
  h.source_port_identity = kClientPort;
  h.sequence_id = 3;
  core::PtpManagement body;
  body.target_port_identity = core::PtpPortIdentity::All();
  body.starting_boundary_hops = body.boundary_hops = 1;
  std::vector<uint8_t> zeros(core::kPtpDefaultDataSetLength, 0);
  std::vector<uint8_t> req(200);
  req.resize(core::WritePtpManagementMessage(
      h, body, static_cast<uint16_t>(core::PtpManagementId::kDefaultDataSet),
      zeros, req));
  core::PtpMessage m;
  ASSERT_EQ(core::ParsePtpMessage(req, &m), core::PtpDrop::kOk);
  InjectPtp(m, /*multicast=*/true, core::kPtpGeneralPort);
  worker_->PollOnce();
  const std::vector<Sent> out = Collect();
  const auto replies = OfType(out, PtpMessageType::kManagement);
  ASSERT_EQ(replies.size(), 1u);
  core::PtpManagementMessage mm;
  ASSERT_EQ(core::ParsePtpManagementMessage(replies[0]->bytes, &mm),
            core::PtpDrop::kOk);
  core::PtpDefaultDataSet ds;
  ASSERT_TRUE(core::ParsePtpDataSet(mm.data, &ds));
  EXPECT_EQ(ds.clock_quality.clock_class, 6);
  EXPECT_EQ(ds.clock_identity, core::PtpClockIdentity::FromMac(server_mac_.b));
}

TEST_F(PtpPipelineTest, UnicastNegotiationThenSyncsToTheSubscriber) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  Start("ptpuc");
  Run(10);
  std::vector<uint8_t> tlvs(64);
  size_t n =
      core::WritePtpUnicastRequestTlv({PtpMessageType::kSync, -5, 60}, tlvs);
  n += core::WritePtpUnicastRequestTlv({PtpMessageType::kDelayResp, -5, 60},
                                       std::span(tlvs).subspan(n));
  tlvs.resize(n);
  core::PtpMessage req = ClientMessage(core::PtpSignaling{});
  req.header.flags.Set(core::PtpFlag::kUnicast);
  req.tlvs = tlvs;
  InjectPtp(req, /*multicast=*/false, core::kPtpGeneralPort);
  worker_->PollOnce();
  std::vector<Sent> out = Collect();
  const auto grants = OfType(out, PtpMessageType::kSignaling);
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]->info.dst_ipv4, kClientIp);
  core::PtpTlvReader r(grants[0]->msg.tlvs);
  core::PtpTlv tlv;
  int granted = 0;
  while (r.Next(&tlv)) {
    core::PtpUnicastGrant g;
    ASSERT_TRUE(core::ParsePtpUnicastGrantTlv(tlv, &g));
    EXPECT_EQ(g.duration_s, 60u);
    // Asked for 2^-5 s; --ptp_min_log_interval_per_source's default (-4)
    // reduces it, and the GRANT says so.
    EXPECT_EQ(g.log_inter_message_period, -4);
    ++granted;
  }
  EXPECT_EQ(granted, 2);
  // 16 Syncs a second: within 500 ms, several unicast Syncs and their
  // Follow_Ups, to the subscriber.
  out = Run(500);
  int unicast_syncs = 0, unicast_fus = 0;
  for (const Sent& s : out) {
    if (s.info.dst_ipv4 != kClientIp) continue;
    EXPECT_TRUE(s.msg.header.flags.Has(core::PtpFlag::kUnicast));
    if (s.msg.header.message_type == PtpMessageType::kSync) {
      ++unicast_syncs;
      EXPECT_EQ(s.msg.header.log_message_interval, -4);
      EXPECT_EQ(s.info.dst_port, core::kPtpEventPort);
    }
    if (s.msg.header.message_type == PtpMessageType::kFollowUp) ++unicast_fus;
  }
  EXPECT_GE(unicast_syncs, 5);
  EXPECT_LE(unicast_syncs, 10);
  EXPECT_GE(unicast_fus, unicast_syncs - 1);

  // A CANCEL from another UDP port of the same address is acknowledged but
  // leaves the grant; one from the granted port ends it.
  std::vector<uint8_t> cancel(16);
  cancel.resize(core::WritePtpUnicastCancelTlv(
      core::PtpTlvType::kCancelUnicastTransmission, {PtpMessageType::kSync, 0},
      cancel));
  req.tlvs = cancel;
  InjectPtp(req, /*multicast=*/false, core::kPtpGeneralPort, 40320);
  worker_->PollOnce();
  out = Run(300);
  EXPECT_EQ(OfType(out, PtpMessageType::kSignaling).size(), 1u);
  EXPECT_GE(OfType(out, PtpMessageType::kSync).size(), 3u);
  EXPECT_EQ(ptp_.stats()[0]->cancels_wrong_source.Load(), 1u);
  InjectPtp(req, /*multicast=*/false, core::kPtpGeneralPort);
  worker_->PollOnce();
  Run(100);
  out = Run(300);
  int syncs_to_client = 0;
  for (const Sent& s : out) {
    syncs_to_client += s.info.dst_ipv4 == kClientIp &&
                       s.msg.header.message_type == PtpMessageType::kSync;
  }
  EXPECT_EQ(syncs_to_client, 0);
}

// --ptp_deny: a denied source gets nothing back, whatever it sends, and its
// REQUESTs are counted as refused for `acl`; --ptp_allow: served.
TEST_F(PtpPipelineTest, AccessListSilencesDeniedSources) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  access_.deny = {*core::ParseNetworkPrefix("10.1.0.0/24")};  // the client
  access_.allow = {*core::ParseNetworkPrefix("10.0.0.0/8")};
  Start("ptpacl");
  Run(10);
  std::vector<uint8_t> tlv(16);
  tlv.resize(
      core::WritePtpUnicastRequestTlv({PtpMessageType::kSync, -4, 60}, tlv));
  core::PtpMessage req = ClientMessage(core::PtpSignaling{});
  req.header.flags.Set(core::PtpFlag::kUnicast);
  req.tlvs = tlv;
  InjectPtp(req, /*multicast=*/false, core::kPtpGeneralPort);
  InjectPtp(ClientMessage(core::PtpDelayReq{}), /*multicast=*/false,
            core::kPtpEventPort);
  worker_->PollOnce();
  const std::vector<Sent> out = Run(200);
  for (const Sent& s : out) EXPECT_NE(s.info.dst_ipv4, kClientIp);
  EXPECT_EQ(Dropped("ptp_acl_denied"), 2u);
  EXPECT_EQ(ptp_.stats()[0]
                ->denials[static_cast<size_t>(core::PtpGrantDenial::kAcl)]
                .Load(),
            1u);
  EXPECT_EQ(ptp_.stats()[0]->unicast_subscribers.Load(), 0u);
}

TEST_F(PtpPipelineTest, AccessListServesAllowedSources) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  access_.allow = {*core::ParseNetworkPrefix("10.1.0.0/24")};
  Start("ptpacla");
  Run(10);
  std::vector<uint8_t> tlv(16);
  tlv.resize(
      core::WritePtpUnicastRequestTlv({PtpMessageType::kSync, -4, 60}, tlv));
  core::PtpMessage req = ClientMessage(core::PtpSignaling{});
  req.header.flags.Set(core::PtpFlag::kUnicast);
  req.tlvs = tlv;
  InjectPtp(req, /*multicast=*/false, core::kPtpGeneralPort);
  worker_->PollOnce();
  const std::vector<Sent> out = Run(300);
  const auto grants = OfType(out, PtpMessageType::kSignaling);
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]->info.dst_ipv4, kClientIp);
  EXPECT_GE(OfType(out, PtpMessageType::kSync).size(), 2u);
  EXPECT_EQ(Dropped("ptp_acl_denied"), 0u);
}

TEST_F(PtpPipelineTest, BetterMasterMakesUsPassive) {
  Start("ptppa");
  Run(10);
  for (uint16_t seq = 1; seq <= 2; ++seq) {
    core::PtpAnnounce a;
    a.grandmaster_priority1 = 1;  // better than our 128
    a.grandmaster_identity = kClientPort.clock_identity;
    a.grandmaster_clock_quality = {6, 0x20, 0x4000};
    core::PtpMessage m = ClientMessage(a);
    m.header.sequence_id = seq;
    m.header.log_message_interval = -3;
    InjectPtp(m, /*multicast=*/true, core::kPtpGeneralPort);
  }
  worker_->PollOnce();
  Tick();
  ASSERT_EQ(ptp_.runtime()->state(), core::PtpPortState::kPassive);
  Collect();
  // PASSIVE: no Sync or Announce, and Delay_Req is not answered.
  InjectPtp(ClientMessage(core::PtpDelayReq{}), true, core::kPtpEventPort);
  const std::vector<Sent> out = Run(500);
  EXPECT_TRUE(OfType(out, PtpMessageType::kSync).empty());
  EXPECT_TRUE(OfType(out, PtpMessageType::kAnnounce).empty());
  EXPECT_TRUE(OfType(out, PtpMessageType::kDelayResp).empty());
  EXPECT_EQ(Dropped("ptp_not_master"), 1u);
  // The better master has gone quiet for the receipt timeout: we serve.
  Tick();
  EXPECT_EQ(ptp_.runtime()->state(), core::PtpPortState::kMaster);
  const std::vector<Sent> again = Run(100);
  EXPECT_FALSE(OfType(again, PtpMessageType::kSync).empty());
}

TEST_F(PtpPipelineTest, MalformedAndOutOfDomainDroppedByReason) {
  Start("ptpbad");
  Run(10);
  core::PtpMessage other = ClientMessage(core::PtpDelayReq{});
  other.header.domain_number = 9;
  InjectPtp(other, true, core::kPtpEventPort);
  InjectPtp(ClientMessage(core::PtpSync{}), true, core::kPtpEventPort);
  InjectPtp(ClientMessage(core::PtpDelayReq{}), true, core::kPtpGeneralPort);
  // versionPTP 1.
  rte_mbuf* mb = rte_pktmbuf_alloc(pool_);
  core::UdpFrameSpec spec;
  spec.src_mac = kClientMac;
  spec.dst_mac = core::Ipv4MulticastMac(core::kPtpPrimaryIpv4);
  spec.src_ip = core::IpAddress::V4(kClientIp);
  spec.dst_ip = core::IpAddress::V4(core::kPtpPrimaryIpv4);
  spec.src_port = spec.dst_port = core::kPtpEventPort;
  core::FrameInfo info;
  uint8_t* buf = rte_pktmbuf_mtod(mb, uint8_t*);
  const uint32_t len = core::BuildUdpFrame(buf, 2000, spec, 44, &info);
  std::memset(buf + info.payload_offset, 0, 44);
  buf[info.payload_offset + 1] = 0x01;
  core::FinalizeUdpChecksum(buf, info);
  mb->data_len = static_cast<uint16_t>(len);
  mb->pkt_len = len;
  ASSERT_EQ(rte_ring_enqueue(ring_.rx[0], mb), 0);
  worker_->PollOnce();
  Collect();
  EXPECT_EQ(Dropped("ptp_wrong_domain"), 1u);
  EXPECT_EQ(Dropped("ptp_unexpected_type"), 1u);
  EXPECT_EQ(Dropped("ptp_wrong_udp_port"), 1u);
  EXPECT_EQ(Dropped("ptp_msg_bad_version"), 1u);
}

// The plugin's configuration against the served addresses, and --ptp=false.
class PtpPluginConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::SetFlag(&FLAGS_ptp, true);
    absl::SetFlag(&FLAGS_ptp_profile, "default_e2e");
    absl::SetFlag(&FLAGS_ptp_transport, "");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "");
    absl::SetFlag(&FLAGS_ptp_log_sync_interval, -1000);  // the profile's
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -1000);
  }
  absl::FlagSaver saver_;  // restores every flag after each test
  static DaemonConfig Ipv6Only() {
    DaemonConfig config;
    InterfaceAddress a;
    a.family = InterfaceAddress::kIpv6;
    a.bytes = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    a.prefix_len = 64;
    config.addresses = {a};
    return config;
  }
};

TEST_F(PtpPluginConfigTest, ExplicitUdp4WithoutAnIpv4AddressIsAnError) {
  absl::SetFlag(&FLAGS_ptp_transport, "udp4");
  PtpPlugin ptp;
  const absl::Status s = ptp.Configure(Ipv6Only());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--ptp_transport includes udp4"),
            std::string::npos)
      << s;
}

TEST_F(PtpPluginConfigTest, DefaultTransportFallsBackToUdp6) {
  PtpPlugin ptp;
  ASSERT_TRUE(ptp.Configure(Ipv6Only()).ok());
  EXPECT_TRUE(ptp.enabled());
  EXPECT_TRUE(ptp.WantsPtpGroups());
}

TEST_F(PtpPluginConfigTest, DisabledAddsNoNamesAndNoGroups) {
  absl::SetFlag(&FLAGS_ptp, false);
  PtpPlugin ptp;
  ASSERT_TRUE(ptp.Configure(DaemonConfig()).ok());
  EXPECT_FALSE(ptp.enabled());
  EXPECT_FALSE(ptp.WantsPtpGroups());
  CounterNames names;
  const size_t before = names.num_drop_reasons();
  ASSERT_TRUE(ptp.RegisterNames(names).ok());
  EXPECT_EQ(names.num_drop_reasons(), before);
}

}  // namespace
}  // namespace zg::dataplane
