// SPDX-License-Identifier: Apache-2.0
// PTP's hardware stamps (dataplane/ptp/ptp_tx_stamp.h) through the real
// PtpPlugin and worker loop on the emulated Intel-style NIC
// (tests/dataplane/testing/emulated_nic.h: IEEE 1588 timesync with one RX
// and one TX latch, a TX-stamp latency and seeded loss). The test publishes
// the timesync clock's model as the control plane's tracker would
// (EmulatedNicModel), so every stamp must come out exactly:
//  - each Follow_Up / Pdelay_Resp_Follow_Up carries the emulated wire time
//    of its Sync / Pdelay_Resp mapped to TAI (0 ns off);
//  - each Delay_Resp / Pdelay_Resp the emulated RX wire time of its request;
//  - lost and late TX stamps send no follow-up and are counted;
//  - many unicast subscribers are paced around the one TX latch, each Sync
//    with its own stamp;
//  - without timesync, t1 is the software stamp before or after tx_burst as
//    the plan says.
// And on a ring port: a Pdelay_Resp that tx_burst refused gets no
// Pdelay_Resp_Follow_Up.
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <map>
#include <utility>

#include "dataplane/daemon/flags.h"
#include "tests/dataplane/ptp/ptp_pipeline_fixture.h"
#include "tests/dataplane/testing/emulated_nic.h"
#include "tests/dataplane/testing/emulated_nic_model.h"

ABSL_DECLARE_FLAG(int, ptp_announce_receipt_timeout);

namespace zg::dataplane::ptp_test {
namespace ptp_timesync_test {
namespace {

// default_p2p (the peer-delay profile): Announce at 1/s at the fastest;
// MASTER after 2 s without a better master.
void PeerDelayProfile() {
  absl::SetFlag(&FLAGS_ptp_profile, "default_p2p");
  absl::SetFlag(&FLAGS_ptp_log_sync_interval, -1);
  absl::SetFlag(&FLAGS_ptp_log_announce_interval, 0);
  absl::SetFlag(&FLAGS_ptp_announce_receipt_timeout, 2);
}

using testing::EmulatedNic;
using testing::EmulatedNicConfig;

struct WireSent {
  Sent sent;
  int64_t wire_ns = 0;
  bool tx_stamped = false;
};

class PtpTimesyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::SetFlag(&FLAGS_ptp, true);
    absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
    absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "");
    absl::SetFlag(&FLAGS_ptp_log_sync_interval, -4);
    absl::SetFlag(&FLAGS_ptp_log_announce_interval, -3);
    absl::SetFlag(&FLAGS_ptp_transport, "");
  }

  // `plan`: the port's stamp plan (default: timesync both ways).
  void Start(const std::string& tag, EmulatedNicConfig c,
             StampPlan plan = TimesyncPlan()) {
    c.rx_dynfield = false;  // Intel: timesync only
    nic_ = EmulatedNic::Create(tag, c);
    PortOptions opts;
    opts.name = "net_zg_emu_" + tag;
    opts.timesync = c.timesync;
    opts.tx_checksum_offload = false;
    auto port = Port::Open(opts, &pools_);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = std::move(*port);
    ASSERT_TRUE(port_->Start().ok());
    pool_ = *pools_.ForSocket(SOCKET_ID_ANY);
    std::memcpy(server_mac_.b.data(), port_->mac().addr_bytes, 6);
    t0_ = core::ReadTsc();
    tsc_model_ = LockedModel(t0_);
    clock_.Write(tsc_model_);
    // The timesync clock's model, as the control plane's tracker of
    // TimesyncNicClock would publish it.
    model_ = testing::EmulatedNicModel(*nic_, tsc_model_, t0_);
    timesync_clock_.Write(model_);
    DaemonConfig config;
    InterfaceAddress a;
    a.family = InterfaceAddress::kIpv4;
    kServerIp.Store(a.bytes.data());
    a.prefix_len = 24;
    config.addresses = {a};
    addresses_ = config.addresses;
    ASSERT_TRUE(factory_.Configure(config).ok());
    ASSERT_TRUE(factory_.RegisterNames(names_).ok());
    WorkerSetup setup;
    setup.lcore_id = rte_get_main_lcore();
    setup.ports = {{port_->id(),
                    0,
                    port_->mac(),
                    port_->mtu(),
                    {},
                    plan,
                    &timesync_clock_}};
    setup.addresses = addresses_;
    auto pipeline = factory_.Create(setup);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Timestamper::Config stamping;
    stamping.tsc_clock = &clock_;
    worker_ = std::make_unique<Worker>(
        std::vector<WorkerQueue>{{port_->queue(0), stamping, {}, plan}},
        std::move(*pipeline), &stats_, &stop_);
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
  static StampPlan TimesyncPlan() {
    StampPlan p;
    p.ptp_tx = TxStampSource::kTimesync;
    p.ptp_rx = RxStampSource::kTimesync;
    return p;
  }
  void Tick() {
    factory_.ControlStep(
        {&clock_, core::ReadTsc(), static_cast<double>(testing::TscHz())});
  }

  // Injects `m` from client `client` (10.1.0.2 + client) to our address;
  // returns its RX wire time.
  int64_t Inject(const core::PtpMessage& m, uint16_t port, int client = 0) {
    std::vector<uint8_t> ptp(1500);
    ptp.resize(core::SerializePtpMessage(m, ptp));
    EXPECT_GT(ptp.size(), 0u);
    std::vector<uint8_t> frame(2000);
    core::UdpFrameSpec spec;
    spec.src_mac = kClientMac;
    spec.dst_mac = server_mac_;
    spec.src_ip = core::IpAddress::V4(ClientIp(client));
    spec.dst_ip = core::IpAddress::V4(kServerIp);
    spec.src_port = port;
    spec.dst_port = port;
    core::FrameInfo info;
    const uint32_t len = core::BuildUdpFrame(
        frame.data(), 2000, spec, static_cast<uint16_t>(ptp.size()), &info);
    EXPECT_GT(len, 0u);
    std::memcpy(frame.data() + info.payload_offset, ptp.data(), ptp.size());
    core::FinaliseUdpChecksum(frame.data(), info);
    frame.resize(len);
    const std::optional<int64_t> wire = nic_->Inject(frame);
    EXPECT_TRUE(wire.has_value());
    return wire.value_or(0);
  }
  static core::Ipv4Addr ClientIp(int client) {
    return core::Ipv4Addr::FromOctets(10, 1, 0,
                                      static_cast<uint8_t>(2 + client));
  }
  core::PtpMessage ClientMessage(core::PtpBody body, int client = 0) {
    core::PtpMessage m;
    m.header.source_port_identity = kClientPort;
    m.header.source_port_identity.port_number =
        static_cast<uint16_t>(1 + client);
    m.header.sequence_id = 77;
    m.header.flags.Set(core::PtpFlag::kUnicast);
    m.body = body;
    m.header.control_field = core::PtpControlFieldFor(core::PtpBodyType(body));
    return m;
  }

  std::vector<WireSent> Run(int ms) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) worker_->PollOnce();
    return Collect();
  }
  std::vector<WireSent> Collect() {
    std::vector<WireSent> out;
    core::LocalAddresses any =
        *core::LocalAddresses::Create(kClientMac, std::nullopt);
    (void)any.AddIpv4(ClientIp(0));
    (void)any.AddIpv4Range(ClientIp(1), 31);  // the other clients
    for (EmulatedNic::WireFrame& f : nic_->TakeTransmitted()) {
      WireSent w;
      w.wire_ns = f.wire_ns;
      w.tx_stamped = f.tx_stamped;
      w.sent.info = core::ClassifyFrame(
          f.bytes.data(), static_cast<uint32_t>(f.bytes.size()), any);
      EXPECT_NE(w.sent.info.kind, core::FrameKind::kDrop)
          << core::FrameDropName(w.sent.info.drop);
      if (w.sent.info.kind == core::FrameKind::kDrop) continue;
      w.sent.bytes.assign(f.bytes.begin() + w.sent.info.payload_offset,
                          f.bytes.begin() + w.sent.info.payload_offset +
                              w.sent.info.payload_len);
      EXPECT_EQ(core::ParsePtpMessage(w.sent.bytes, &w.sent.msg),
                core::PtpDrop::kOk);
      out.push_back(std::move(w));
    }
    return out;
  }
  static std::vector<const WireSent*> OfType(const std::vector<WireSent>& v,
                                             PtpMessageType t) {
    std::vector<const WireSent*> out;
    for (const WireSent& s : v) {
      if (s.sent.msg.header.message_type == t) out.push_back(&s);
    }
    return out;
  }
  // Pointers into a temporary would dangle (ASan caught one).
  static std::vector<const WireSent*> OfType(std::vector<WireSent>&&,
                                             PtpMessageType) = delete;
  // Every Sync's wire time, by (destination, sequenceId).
  static std::map<std::pair<uint32_t, uint16_t>, int64_t> SyncWireTimes(
      const std::vector<WireSent>& v) {
    std::map<std::pair<uint32_t, uint16_t>, int64_t> out;
    for (const WireSent* s : OfType(v, PtpMessageType::kSync)) {
      out[{s->sent.info.dst_ipv4.value, s->sent.msg.header.sequence_id}] =
          s->wire_ns;
    }
    return out;
  }
  core::TaiNs Mapped(int64_t nic_ns) const {
    return model_.RawToTai(static_cast<uint64_t>(nic_ns));
  }
  uint64_t TxStamps(PtpTxStampResult r) {
    return ptp_.stats()[0]->stamps.tx[static_cast<size_t>(r)].Load();
  }
  uint64_t RxStamps(PtpRxStampResult r) {
    return ptp_.stats()[0]->stamps.rx[static_cast<size_t>(r)].Load();
  }

  MbufPools pools_{2047};
  std::unique_ptr<EmulatedNic> nic_;
  std::unique_ptr<Port> port_;
  rte_mempool* pool_ = nullptr;
  core::MacAddr server_mac_;
  uint64_t t0_ = 0;
  core::ClockModel tsc_model_, model_;
  core::PublishedClock clock_, timesync_clock_;
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

EmulatedNicConfig Intel() {
  EmulatedNicConfig c;
  c.timesync = true;
  c.tx_stamp_latency_ns = 2'000;
  c.wire_latency_ns = 700;
  return c;
}

TEST_F(PtpTimesyncTest, FollowUpsCarryTheWireTimeOfTheirSyncExactly) {
  ASSERT_NO_FATAL_FAILURE(Start("tsfu", Intel()));
  const std::vector<WireSent> out = Run(400);
  const auto syncs = SyncWireTimes(out);
  const auto fus = OfType(out, PtpMessageType::kFollowUp);
  ASSERT_GE(syncs.size(), 4u);
  ASSERT_GE(fus.size(), syncs.size() - 1);
  for (const WireSent* fu : fus) {
    const auto it = syncs.find(
        {fu->sent.info.dst_ipv4.value, fu->sent.msg.header.sequence_id});
    ASSERT_NE(it, syncs.end());
    const core::TaiNs t1 =
        core::PtpToTai(std::get<core::PtpFollowUp>(fu->sent.msg.body)
                           .precise_origin_timestamp);
    EXPECT_EQ(t1 - Mapped(it->second), 0) << "Sync " << it->first.second;
  }
  for (const WireSent* s : OfType(out, PtpMessageType::kSync)) {
    EXPECT_TRUE(s->tx_stamped);
  }
  for (const WireSent* a : OfType(out, PtpMessageType::kAnnounce)) {
    EXPECT_FALSE(a->tx_stamped) << "only event messages ask for a stamp";
  }
  EXPECT_GE(TxStamps(PtpTxStampResult::kHardware), fus.size());
  EXPECT_EQ(TxStamps(PtpTxStampResult::kTimeout), 0u);
  EXPECT_EQ(TxStamps(PtpTxStampResult::kSoftwareBefore), 0u);
}

TEST_F(PtpTimesyncTest, DelayRespCarriesTheRxWireTimeOfItsDelayReq) {
  ASSERT_NO_FATAL_FAILURE(Start("tsdr", Intel()));
  Run(20);
  for (int i = 0; i < 5; ++i) {
    core::PtpMessage req = ClientMessage(core::PtpDelayReq{});
    req.header.sequence_id = static_cast<uint16_t>(100 + i);
    const int64_t wire = Inject(req, core::kPtpEventPort);
    for (int k = 0; k < 4; ++k) worker_->PollOnce();
    const auto out = Collect();  // OfType points into it
    const auto resps = OfType(out, PtpMessageType::kDelayResp);
    ASSERT_EQ(resps.size(), 1u);
    EXPECT_EQ(resps[0]->sent.msg.header.sequence_id, 100 + i);
    const core::TaiNs t4 =
        core::PtpToTai(std::get<core::PtpDelayResp>(resps[0]->sent.msg.body)
                           .receive_timestamp);
    EXPECT_EQ(t4 - Mapped(wire), 0);
  }
  EXPECT_EQ(RxStamps(PtpRxStampResult::kHardware), 5u);
  EXPECT_EQ(RxStamps(PtpRxStampResult::kNotLatched), 0u);
}

TEST_F(PtpTimesyncTest, PdelayRespAndItsFollowUpCarryHardwareStamps) {
  PeerDelayProfile();
  ASSERT_NO_FATAL_FAILURE(Start("tspd", Intel()));
  Run(20);
  for (int i = 0; i < 4; ++i) {
    core::PtpMessage req = ClientMessage(core::PtpPdelayReq{});
    req.header.sequence_id = static_cast<uint16_t>(200 + i);
    const int64_t t2_wire = Inject(req, core::kPtpEventPort);
    const std::vector<WireSent> out = Run(5);
    const auto resps = OfType(out, PtpMessageType::kPdelayResp);
    const auto fus = OfType(out, PtpMessageType::kPdelayRespFollowUp);
    ASSERT_EQ(resps.size(), 1u);
    ASSERT_EQ(fus.size(), 1u);
    EXPECT_TRUE(resps[0]->tx_stamped);
    const core::TaiNs t2 =
        core::PtpToTai(std::get<core::PtpPdelayResp>(resps[0]->sent.msg.body)
                           .request_receipt_timestamp);
    EXPECT_EQ(t2 - Mapped(t2_wire), 0);
    const core::TaiNs t3 = core::PtpToTai(
        std::get<core::PtpPdelayRespFollowUp>(fus[0]->sent.msg.body)
            .response_origin_timestamp);
    EXPECT_EQ(t3 - Mapped(resps[0]->wire_ns), 0);
    EXPECT_EQ(fus[0]->sent.msg.header.sequence_id, 200 + i);
  }
  EXPECT_EQ(RxStamps(PtpRxStampResult::kHardware), 4u);
}

TEST_F(PtpTimesyncTest, LostTxStampsSendNoFollowUpAndAreCounted) {
  EmulatedNicConfig c = Intel();
  c.tx_stamp_loss = 1.0;
  ASSERT_NO_FATAL_FAILURE(Start("tsloss", c));
  const std::vector<WireSent> out = Run(300);
  const size_t syncs = OfType(out, PtpMessageType::kSync).size();
  ASSERT_GE(syncs, 3u);
  EXPECT_EQ(OfType(out, PtpMessageType::kFollowUp).size(), 0u);
  EXPECT_GE(TxStamps(PtpTxStampResult::kTimeout), syncs - 1);
  EXPECT_EQ(TxStamps(PtpTxStampResult::kHardware), 0u);
  EXPECT_EQ(nic_->counters().tx_stamps_lost, syncs);
}

// Each TX stamp becomes readable 300 ms after its Sync (5 Sync intervals):
// every Sync times out (the stamp it finds, if any, is an earlier Sync's:
// discarded as stale) and none gets a Follow_Up. (A stamp readable when the
// worker next polls is taken even past the timeout: it is the right one.)
TEST_F(PtpTimesyncTest, TxStampsLaterThanTheTimeoutSendNoFollowUp) {
  EmulatedNicConfig c = Intel();
  c.tx_stamp_latency_ns = 300'000'000;
  ASSERT_NO_FATAL_FAILURE(Start("tslate", c));
  const std::vector<WireSent> out = Run(700);
  const size_t syncs = OfType(out, PtpMessageType::kSync).size();
  ASSERT_GE(syncs, 5u);
  EXPECT_EQ(OfType(out, PtpMessageType::kFollowUp).size(), 0u)
      << "a late stamp must not be taken for the next Sync's";
  EXPECT_GE(TxStamps(PtpTxStampResult::kTimeout), syncs - 1);
  EXPECT_EQ(TxStamps(PtpTxStampResult::kHardware), 0u);
}

// 16 subscribers at 16 Syncs/s each, every TX stamp readable 4 ms after the
// wire: the one latch is busy all the time, Syncs wait for it (deferred) and
// each Follow_Up still carries its own Sync's wire time.
TEST_F(PtpTimesyncTest, UnicastSubscribersArePacedAroundTheOneLatch) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  EmulatedNicConfig c = Intel();
  c.tx_stamp_latency_ns = 4'000'000;
  ASSERT_NO_FATAL_FAILURE(Start("tsuc", c));
  Run(10);
  constexpr int kClients = 16;
  for (int i = 0; i < kClients; ++i) {
    std::vector<uint8_t> tlvs(64);
    tlvs.resize(
        core::WritePtpUnicastRequestTlv({PtpMessageType::kSync, -4, 60}, tlvs));
    core::PtpMessage req = ClientMessage(core::PtpSignaling{}, i);
    req.tlvs = tlvs;
    Inject(req, core::kPtpGeneralPort, i);
    worker_->PollOnce();
  }
  const std::vector<WireSent> out = Run(600);
  const auto syncs = SyncWireTimes(out);
  std::map<uint32_t, int> per_client;
  size_t matched = 0;
  for (const WireSent* fu : OfType(out, PtpMessageType::kFollowUp)) {
    const auto it = syncs.find(
        {fu->sent.info.dst_ipv4.value, fu->sent.msg.header.sequence_id});
    ASSERT_NE(it, syncs.end());
    const core::TaiNs t1 =
        core::PtpToTai(std::get<core::PtpFollowUp>(fu->sent.msg.body)
                           .precise_origin_timestamp);
    EXPECT_EQ(t1 - Mapped(it->second), 0);
    ++per_client[it->first.first];
    ++matched;
  }
  EXPECT_GE(per_client.size(), static_cast<size_t>(kClients));
  EXPECT_GE(matched + 2, syncs.size());  // one awaited, one ready
  EXPECT_EQ(TxStamps(PtpTxStampResult::kTimeout), 0u);
  EXPECT_EQ(nic_->counters().tx_stamps_overwritten, 0u)
      << "never two TX-stamped frames in flight";
  EXPECT_GT(ptp_.stats()[0]->stamps.syncs_deferred.Load(), 0u);
}

// Without timesync the plan's software stamp: before tx_burst it is at or
// before the wire time, after it at or after (the emulated frame is on the
// wire inside tx_burst, wire_latency_ns 0).
TEST_F(PtpTimesyncTest, SoftwareStampBeforeTxBurstWhenPlanned) {
  StampPlan plan;
  plan.ptp_tx = TxStampSource::kSoftwareBefore;
  ASSERT_NO_FATAL_FAILURE(Start("swb", EmulatedNicConfig{}, plan));
  const std::vector<WireSent> out = Run(300);
  const auto syncs = SyncWireTimes(out);
  const auto fus = OfType(out, PtpMessageType::kFollowUp);
  ASSERT_GE(fus.size(), 3u);
  for (const WireSent* fu : fus) {
    const auto it = syncs.find(
        {fu->sent.info.dst_ipv4.value, fu->sent.msg.header.sequence_id});
    ASSERT_NE(it, syncs.end());
    const core::TaiNs t1 =
        core::PtpToTai(std::get<core::PtpFollowUp>(fu->sent.msg.body)
                           .precise_origin_timestamp);
    EXPECT_LE(t1 - Mapped(it->second), 0);
  }
  EXPECT_GE(TxStamps(PtpTxStampResult::kSoftwareBefore), fus.size());
  EXPECT_EQ(TxStamps(PtpTxStampResult::kSoftwareAfter), 0u);
}

TEST_F(PtpTimesyncTest, SoftwareStampAfterTxBurstWhenPlanned) {
  StampPlan plan;
  plan.ptp_tx = TxStampSource::kSoftwareAfter;
  ASSERT_NO_FATAL_FAILURE(Start("swa", EmulatedNicConfig{}, plan));
  const std::vector<WireSent> out = Run(300);
  const auto syncs = SyncWireTimes(out);
  const auto fus = OfType(out, PtpMessageType::kFollowUp);
  ASSERT_GE(fus.size(), 3u);
  for (const WireSent* fu : fus) {
    const auto it = syncs.find(
        {fu->sent.info.dst_ipv4.value, fu->sent.msg.header.sequence_id});
    ASSERT_NE(it, syncs.end());
    const core::TaiNs t1 =
        core::PtpToTai(std::get<core::PtpFollowUp>(fu->sent.msg.body)
                           .precise_origin_timestamp);
    EXPECT_GE(t1 - Mapped(it->second), 0);
  }
  EXPECT_GE(TxStamps(PtpTxStampResult::kSoftwareAfter), fus.size());
  EXPECT_EQ(TxStamps(PtpTxStampResult::kSoftwareBefore), 0u);
}

// tx_burst refuses the Pdelay_Resp (a TX callback on the ring
// port returns 0 for it): its Pdelay_Resp_Follow_Up must not follow.
uint16_t RefusePdelayResp(uint16_t, uint16_t, rte_mbuf** pkts, uint16_t n,
                          void* refuse) {
  if (!static_cast<std::atomic<bool>*>(refuse)->load()) return n;
  for (uint16_t i = 0; i < n; ++i) {
    const uint8_t* f = rte_pktmbuf_mtod(pkts[i], const uint8_t*);
    // Ethernet + IPv4 (20) + UDP: the PTP messageType nibble.
    if (pkts[i]->data_len > 42 && (f[42] & 0x0f) == 3) return 0;
  }
  return n;
}

TEST_F(PtpPipelineTest, PdelayRespNotSentGetsNoFollowUp) {
  PeerDelayProfile();
  Start("ptppdn");
  Run(20);
  static std::atomic<bool> refuse{true};
  refuse = true;
  const rte_eth_rxtx_callback* cb =
      rte_eth_add_tx_callback(port_->id(), 0, RefusePdelayResp, &refuse);
  ASSERT_NE(cb, nullptr);
  core::PtpMessage req = ClientMessage(core::PtpPdelayReq{});
  InjectPtp(req, /*multicast=*/false, core::kPtpEventPort);
  worker_->PollOnce();
  refuse = false;
  const std::vector<Sent> out = Run(50);
  EXPECT_EQ(OfType(out, PtpMessageType::kPdelayResp).size(), 0u);
  EXPECT_EQ(OfType(out, PtpMessageType::kPdelayRespFollowUp).size(), 0u);
  EXPECT_EQ(ptp_.stats()[0]->pdelay_resp_unsent.Load(), 1u);
  // The next one goes out with its follow-up.
  req.header.sequence_id = 78;
  InjectPtp(req, /*multicast=*/false, core::kPtpEventPort);
  const std::vector<Sent> next = Run(20);
  EXPECT_EQ(OfType(next, PtpMessageType::kPdelayResp).size(), 1u);
  EXPECT_EQ(OfType(next, PtpMessageType::kPdelayRespFollowUp).size(), 1u);
  EXPECT_EQ(rte_eth_remove_tx_callback(port_->id(), 0, cb), 0);
}

}  // namespace
}  // namespace ptp_timesync_test
}  // namespace zg::dataplane::ptp_test
