// SPDX-License-Identifier: Apache-2.0
// Integration tests of the PTP grandmaster (dataplane/ptp/ptp_plugin.h) as a
// plugin of zeitgeberd's protocol pipeline
// (dataplane/worker/protocol_pipeline.h) on an in-process ring port: PTP frames
// injected into the port's RX ring go through the worker loop, and what the
// port transmits is parsed back with core/net/frame.h and core/ptp/ptp_wire.h.
// The control side (BMCA) is driven by calling ControlStep as the daemon's
// control loop does; the enterprise profile's fastest Announce (2^-3 s) keeps
// receipt timeouts short (3 x 125 ms).
#include <cmath>
#include <map>

#include "dataplane/daemon/flags.h"
#include "prometheus/collectable.h"
#include "servo/alarms/alarm_set.h"
#include "servo/api/dataplane_status.h"
#include "tests/dataplane/ptp/ptp_pipeline_fixture.h"

namespace zg::dataplane::ptp_test {
namespace ptp_pipeline_test {
namespace {

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

// What one scrape of the PTP families reads: value by "name{label=value}"
// (one label at most, as these families have), histograms by their count.
std::map<std::string, double> Scrape(const prometheus::Collectable& c) {
  std::map<std::string, double> out;
  for (const prometheus::MetricFamily& f : c.Collect()) {
    for (const prometheus::ClientMetric& m : f.metric) {
      std::string key = f.name;
      for (const auto& l : m.label) key += "{" + l.name + "=" + l.value + "}";
      switch (f.type) {
        case prometheus::MetricType::Counter:
          out[key] = m.counter.value;
          break;
        case prometheus::MetricType::Gauge:
          out[key] = m.gauge.value;
          break;
        case prometheus::MetricType::Histogram:
          out[key] = static_cast<double>(m.histogram.sample_count);
          EXPECT_TRUE(std::isinf(m.histogram.bucket.back().upper_bound));
          EXPECT_EQ(m.histogram.bucket.back().cumulative_count,
                    m.histogram.sample_count);
          break;
        default:
          ADD_FAILURE() << f.name;
      }
    }
  }
  return out;
}

// The PTP families are read when Prometheus scrapes, nothing copies them on
// a timer (there is no update call to make): a scrape right after the
// worker sent equals what went out on the port, and a Delay_Resp shows at
// the very next scrape.
TEST_F(PtpPipelineTest, ScrapesReadWhatTheWorkersSentAtThatInstant) {
  Start("ptpscrape");
  const auto collectables = factory_.ScrapeCollectables();
  ASSERT_EQ(collectables.size(), 1u);
  const prometheus::Collectable& ptp = *collectables[0];
  const std::map<std::string, double> before = Scrape(ptp);
  EXPECT_EQ(before.at("zeitgeber_ptp_port_state{port=ring0}{state=MASTER}"), 1);
  EXPECT_EQ(before.at("zeitgeber_ptp_port_state{port=ring0}{state=LISTENING}"),
            0);
  EXPECT_EQ(
      before.at("zeitgeber_ptp_clock_quality{field=clock_class}{port=ring0}"),
      6);
  EXPECT_GE(before.at("zeitgeber_ptp_port_state_changes_total{port=ring0}"), 1);
  const std::vector<Sent> sent = Run(50);
  const std::map<std::string, double> after = Scrape(ptp);
  for (const auto& [type, name] :
       {std::pair{PtpMessageType::kSync, "SYNC"},
        std::pair{PtpMessageType::kFollowUp, "FOLLOW_UP"},
        std::pair{PtpMessageType::kAnnounce, "ANNOUNCE"}}) {
    const std::string key =
        std::string("zeitgeber_ptp_messages_sent_total{port=ring0}{type=") +
        name + "}";
    EXPECT_EQ(after.at(key) - before.at(key),
              static_cast<double>(OfType(sent, type).size()))
        << key;
    EXPECT_GE(OfType(sent, type).size(), 1u) << key;
  }
  InjectPtp(ClientMessage(core::PtpDelayReq{}), /*multicast=*/true,
            core::kPtpEventPort);
  worker_->PollOnce();
  ASSERT_EQ(OfType(Collect(), PtpMessageType::kDelayResp).size(), 1u);
  const std::string resp =
      "zeitgeber_ptp_messages_sent_total{port=ring0}{type=DELAY_RESP}";
  EXPECT_EQ(Scrape(ptp).at(resp), after.at(resp) + 1);
  EXPECT_EQ(
      Scrape(ptp).at(
          "zeitgeber_ptp_rx_stamps_total{port=ring0}{result=software}"),
      after.at("zeitgeber_ptp_rx_stamps_total{port=ring0}{result=software}") +
          1);
}

// The port's schedules count seconds at the TSC rate the control plane
// measured (WorkerSetup::tsc_hz), not at DPDK's nominal rate: told that the
// TSC runs at half the rate DPDK says, the port sends its 8/s Syncs twice
// as often in real time (16 in a second, where DPDK's rate would give 8).
TEST_F(PtpPipelineTest, SchedulesCountSecondsAtTheMeasuredTscRate) {
  absl::SetFlag(&FLAGS_ptp_log_sync_interval, -3);
  tsc_hz_ = static_cast<double>(testing::TscHz()) / 2;
  Start("ptphz");
  EXPECT_NEAR(static_cast<double>(ptp_.runtime()->mono().Ticks(kS)), tsc_hz_,
              1.0);
  Run(20);
  const size_t syncs = OfType(Run(1000), PtpMessageType::kSync).size();
  EXPECT_GE(syncs, 14u);
  EXPECT_LE(syncs, 17u);
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

// UDP/IPv6 (ptp4l -6): Sync, Follow_Up and Announce to ff0e::181 from our
// address; a Delay_Req to the group answered to the group, one to our
// address answered to the requester, each from our address, with its
// receive time and a UDP checksum over the IPv6 pseudo-header that the
// classifier (Collect) accepts, and that it refuses once a byte is changed.
TEST_F(PtpPipelineTest, Udp6DelayReqAnsweredFromOurAddressWithItsChecksum) {
  absl::SetFlag(&FLAGS_ptp_transport, "udp6");
  serve_ipv6_ = true;
  Start("ptp6");
  const std::vector<Sent> sent = Run(50);
  const auto syncs = OfType(sent, PtpMessageType::kSync);
  ASSERT_EQ(syncs.size(), 1u);
  ASSERT_EQ(OfType(sent, PtpMessageType::kFollowUp).size(), 1u);
  ASSERT_EQ(OfType(sent, PtpMessageType::kAnnounce).size(), 1u);
  for (const Sent& s : sent) {
    EXPECT_EQ(s.info.ip_version, 6);
    EXPECT_EQ(s.info.dst_ipv6, core::kPtpPrimaryIpv6);
    EXPECT_EQ(s.info.src_ipv6, kServerIp6);
    EXPECT_EQ(s.info.hop_limit, 1);
  }
  EXPECT_EQ(syncs[0]->info.dst_port, core::kPtpEventPort);

  const uint64_t before = core::ReadTsc();
  InjectPtp6(ClientMessage(core::PtpDelayReq{}), /*multicast=*/true,
             core::kPtpEventPort);
  core::PtpMessage unicast = ClientMessage(core::PtpDelayReq{});
  unicast.header.flags.Set(core::PtpFlag::kUnicast);
  unicast.header.sequence_id = 78;
  InjectPtp6(unicast, /*multicast=*/false, core::kPtpEventPort);
  worker_->PollOnce();
  const uint64_t after = core::ReadTsc();
  const std::vector<Sent> out = Collect();
  const auto resps = OfType(out, PtpMessageType::kDelayResp);
  ASSERT_EQ(resps.size(), 2u);
  const core::ClockModel model = LockedModel(t0_);
  for (const Sent* r : resps) {
    EXPECT_EQ(r->info.ip_version, 6);
    EXPECT_EQ(r->info.src_ipv6, kServerIp6);
    EXPECT_EQ(r->info.dst_port, core::kPtpGeneralPort);
    const auto& body = std::get<core::PtpDelayResp>(r->msg.body);
    EXPECT_EQ(body.requesting_port_identity, kClientPort);
    const core::TaiNs t4 = core::PtpToTai(body.receive_timestamp);
    EXPECT_GE(t4.value, model.RawToTai(before).value);
    EXPECT_LE(t4.value, model.RawToTai(after).value);
  }
  const Sent* mc = resps[0]->msg.header.sequence_id == 77 ? resps[0] : resps[1];
  const Sent* uc = mc == resps[0] ? resps[1] : resps[0];
  EXPECT_EQ(mc->info.dst_ipv6, core::kPtpPrimaryIpv6);
  EXPECT_FALSE(mc->msg.header.flags.Has(core::PtpFlag::kUnicast));
  EXPECT_EQ(uc->info.dst_ipv6, kClientIp6);
  EXPECT_TRUE(uc->msg.header.flags.Has(core::PtpFlag::kUnicast));
  // The checksum is checked: one changed byte of the message and the
  // classifier drops the frame.
  core::LocalAddresses client =
      *core::LocalAddresses::Create(kClientMac, std::nullopt);
  ASSERT_TRUE(client.AddIpv6(kClientIp6).ok());
  std::vector<uint8_t> bad = uc->frame;
  bad[uc->info.payload_offset + 40] ^= 0x01;  // receiveTimestamp
  const core::FrameInfo info = core::ClassifyFrame(
      bad.data(), static_cast<uint32_t>(bad.size()), client);
  EXPECT_EQ(info.drop, core::FrameDrop::kUdpBadChecksum)
      << core::FrameDropName(info.drop);
}

// --ptp_two_step=false on a software-stamped port: every Sync (UDP/IPv4,
// UDP/IPv6, Layer 2) is one-step, carries a transmit time of its own from
// the poll that sent it (the stamp taken just before tx_burst, written into
// the frame after it was built, the UDP checksum then recomputed: Collect
// checks it), and has no Follow_Up.
TEST_F(PtpPipelineTest, OneStepSyncsCarryTheirOriginAndNoFollowUp) {
  absl::SetFlag(&FLAGS_ptp_two_step, false);
  absl::SetFlag(&FLAGS_ptp_transport, "all");
  serve_ipv6_ = true;
  Start("ptp1s");
  const uint64_t before = core::ReadTsc();
  const std::vector<Sent> sent = Run(50);
  const uint64_t after = core::ReadTsc();
  EXPECT_TRUE(OfType(sent, PtpMessageType::kFollowUp).empty());
  const auto syncs = OfType(sent, PtpMessageType::kSync);
  ASSERT_EQ(syncs.size(), 3u);  // one per transport
  const core::ClockModel model = LockedModel(t0_);
  int ip_versions = 0;
  int64_t last = 0;
  for (const Sent* s : syncs) {
    SCOPED_TRACE(static_cast<int>(s->info.ip_version));
    ip_versions |= 1 << s->info.ip_version;
    EXPECT_FALSE(s->msg.header.flags.Has(core::PtpFlag::kTwoStep));
    const core::TaiNs origin =
        core::PtpToTai(std::get<core::PtpSync>(s->msg.body).origin_timestamp);
    EXPECT_GE(origin.value, model.RawToTai(before).value);
    EXPECT_LE(origin.value, model.RawToTai(after).value);
    // Each Sync its own stamp, in the order sent.
    EXPECT_GT(origin.value, last);
    last = origin.value;
  }
  EXPECT_EQ(ip_versions, (1 << 0) | (1 << 4) | (1 << 6));
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
  InjectPtp(UnicastRequest({{PtpMessageType::kSync, -5, 60},
                            {PtpMessageType::kDelayResp, -5, 60}}),
            /*multicast=*/false, core::kPtpGeneralPort);
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
  core::PtpMessage req = UnicastRequest({});
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

TEST_F(PtpPipelineTest, BetterMasterMakesUsPassive) {
  Start("ptppa");
  Run(10);
  HearBetterMaster();
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

// Two --port: one PTP port each under one clock identity, numbered 1 and 2,
// each with its own schedule and BMCA state, as a boundary-clock-shaped
// grandmaster. A Delay_Req is answered on the port it came in on, from
// that port's identity; a better master heard on port 2 makes port 2
// PASSIVE and leaves port 1 MASTER; the metrics say which port is which.
TEST_F(PtpPipelineTest, TwoPortsServeAsOneClockWithTheirOwnStates) {
  Start("ptp2port", 1, true, /*ports=*/2);
  const core::PtpClockIdentity clock = ptp_.runtime(0)->port().clock_identity;
  EXPECT_EQ(ptp_.runtime(1)->port().clock_identity, clock);
  auto sent_by = [](const std::vector<Sent>& v, PtpMessageType t,
                    uint16_t port) {
    std::vector<const Sent*> out;
    for (const Sent* s : OfType(v, t)) {
      if (s->port == port) out.push_back(s);
    }
    return out;
  };
  const std::vector<Sent> out = Run(1200);
  for (uint16_t port = 0; port < 2; ++port) {
    for (PtpMessageType t : {PtpMessageType::kAnnounce, PtpMessageType::kSync,
                             PtpMessageType::kFollowUp}) {
      const auto mine = sent_by(out, t, port);
      EXPECT_FALSE(mine.empty())
          << "port " << port << " " << core::PtpMessageTypeName(t);
      for (const Sent* s : mine) {
        EXPECT_EQ(s->msg.header.source_port_identity.clock_identity, clock);
        EXPECT_EQ(s->msg.header.source_port_identity.port_number, port + 1);
      }
    }
  }
  inject_port_ = 1;
  InjectPtp(ClientMessage(core::PtpDelayReq{}), /*multicast=*/true,
            core::kPtpEventPort);
  worker_->PollOnce();
  const std::vector<Sent> answered = Collect();
  ASSERT_EQ(OfType(answered, PtpMessageType::kDelayResp).size(), 1u);
  const auto resp = sent_by(answered, PtpMessageType::kDelayResp, 1);
  ASSERT_EQ(resp.size(), 1u);
  EXPECT_EQ(resp[0]->msg.header.source_port_identity.port_number, 2);
  HearBetterMaster();
  EXPECT_EQ(ptp_.runtime(1)->state(), core::PtpPortState::kPassive);
  EXPECT_EQ(ptp_.runtime(0)->state(), core::PtpPortState::kMaster);
  Collect();
  const std::vector<Sent> later = Run(1100);  // Syncs every second
  EXPECT_FALSE(sent_by(later, PtpMessageType::kSync, 0).empty());
  EXPECT_TRUE(sent_by(later, PtpMessageType::kSync, 1).empty());
  const auto collectables = factory_.ScrapeCollectables();
  ASSERT_EQ(collectables.size(), 1u);
  const std::map<std::string, double> m = Scrape(*collectables[0]);
  EXPECT_EQ(m.at("zeitgeber_ptp_port_state{port=ring0}{state=MASTER}"), 1);
  EXPECT_EQ(m.at("zeitgeber_ptp_port_state{port=ring1}{state=PASSIVE}"), 1);
  EXPECT_EQ(
      m.at("zeitgeber_ptp_messages_sent_total{port=ring1}{type=DELAY_RESP}"),
      1);
  EXPECT_EQ(
      m.at("zeitgeber_ptp_messages_sent_total{port=ring0}{type=DELAY_RESP}"),
      0);
  EXPECT_EQ(m.at("zeitgeber_ptp_announces_received_total{port=ring0}{verdict="
                 "accepted}"),
            0);
  servo::DataplaneStatus status;
  factory_.Observe({.status = &status});
  ASSERT_EQ(status.ptp.size(), 2u);
  EXPECT_EQ(status.ptp[0].port, "ptp0");
  EXPECT_EQ(status.ptp[0].interface, "ring0");
  EXPECT_EQ(status.ptp[0].port_state, "MASTER");
  EXPECT_EQ(status.ptp[1].port, "ptp1");
  EXPECT_EQ(status.ptp[1].interface, "ring1");
  EXPECT_EQ(status.ptp[1].port_state, "PASSIVE");
  EXPECT_EQ(status.ptp[1].port_identity, PtpClockIdentityText(clock) + "-2");
}

// The port's link as the daemon samples it (status ports): down since the
// start is no fault (a NIC negotiating, a memif peer not connected yet);
// down after it was up makes the port FAULTY, silent; up again, LISTENING.
TEST_F(PtpPipelineTest, LinkLostAfterUpMakesThePortFaulty) {
  Start("ptplink");
  auto link = [&](bool up) {
    servo::DataplaneStatus status;
    status.ports.push_back({});
    status.ports.back().name = "ring0";
    status.ports.back().link_up = up;
    factory_.Observe({.status = &status});
    Tick();
    return ptp_.runtime()->state();
  };
  EXPECT_EQ(link(false), core::PtpPortState::kMaster);
  EXPECT_EQ(link(true), core::PtpPortState::kMaster);
  EXPECT_EQ(link(false), core::PtpPortState::kFaulty);
  Collect();
  const std::vector<Sent> silent = Run(1100);  // a Sync a second if MASTER
  EXPECT_TRUE(OfType(silent, PtpMessageType::kSync).empty());
  EXPECT_TRUE(OfType(silent, PtpMessageType::kAnnounce).empty());
  EXPECT_EQ(link(true), core::PtpPortState::kListening);
}

// --ptp_tx_budget holds per PTP port: a subscriber on port 2 that commits
// over 90% of it raises ptp_tx_budget_saturated for ptp1 alone.
TEST_F(PtpPipelineTest, TxBudgetSaturatedPerPort) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  absl::SetFlag(&FLAGS_ptp_tx_budget, 34);  // a 2^-4 s Sync grant: 32/s
  Start("ptpbudget", 1, true, /*ports=*/2);
  inject_port_ = 1;
  InjectPtp(UnicastRequest({{PtpMessageType::kSync, -4, 60}}),
            /*multicast=*/false, core::kPtpGeneralPort);
  worker_->PollOnce();
  ASSERT_EQ(OfType(Collect(), PtpMessageType::kSignaling).size(), 1u);
  servo::AlarmSet alarms(
      {.hysteresis = {{servo::AlarmId::kPtpTxBudgetSaturated, {0, 0}}}});
  factory_.Observe({.alarms = &alarms, .mono_ns = 1});
  alarms.Evaluate(2, core::TaiNs{0}, core::UtcNs{0});
  std::map<std::string, bool> saturated;
  for (const servo::AlarmRow& r : alarms.Table().rows) {
    if (r.id == servo::AlarmId::kPtpTxBudgetSaturated) {
      saturated[r.instance] = r.active;
    }
  }
  EXPECT_EQ(saturated,
            (std::map<std::string, bool>{{"ptp0", false}, {"ptp1", true}}));
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
  core::FinaliseUdpChecksum(buf, info);
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
}  // namespace ptp_pipeline_test
}  // namespace zg::dataplane::ptp_test
