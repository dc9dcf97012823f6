// Integration tests of zeitgeberd's protocol pipeline (classifier, L2/L3 and
// NTP handlers, late-TX stamping) in the worker loop on an in-process ring
// port: NTP requests of every version over IPv4 and IPv6 with their replies
// checked field by field against the published ClockModel, bad inputs of
// every kind counted under their own reason and never answered, replies
// never longer than requests, ARP/ICMP/ICMPv6/ND answered, VLANs, and the
// per-client policy seam (drop and Kiss-o'-Death).
//
// Frames come from core's builders and the known-answer vectors of
// tests/core (validated by tshark there); replies are read back as the
// client would (ClassifyFrame with the client's addresses checks addressing
// and checksums).
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

namespace zg::dataplane {
namespace {

namespace ct = ::zg::core::testing;
using testing::ClientFlow;
using testing::ClientView;

constexpr int64_t kS = core::kNanosPerSecond;
constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x80000001u};
constexpr int64_t kRootDelayNs = 1'234'567;
constexpr int64_t kErrorBoundNs = 50'000'000;

core::ClockModel ServedModel() {
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

// A test policy: drops requests from port 40001, sends RATE to 40002.
class TestPolicy final : public NtpRequestPolicy {
 public:
  explicit TestPolicy(uint8_t drop_reason) : drop_reason_(drop_reason) {}
  NtpPolicyVerdict Check(const core::FrameInfo& req,
                         const core::NtpRequestCheck&, core::TaiNs) override {
    if (req.src_port == 40001) return NtpPolicyVerdict::Drop(drop_reason_);
    if (req.src_port == 40002) {
      return NtpPolicyVerdict::Kiss(core::kNtpKissRate, 10);
    }
    return NtpPolicyVerdict::Answer();
  }

 private:
  uint8_t drop_reason_;
};
class TestPolicyFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames& names) override {
    absl::StatusOr<uint8_t> base = names.AddDropReasons("policy", {"denied"});
    if (!base.ok()) return base.status();
    reason_ = *base;
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::make_unique<TestPolicy>(reason_);
  }
  uint8_t reason_ = 0;
};

// A protocol plugin (as the PTP grandmaster will be): a handler for PTP
// general messages that counts them under its own drop reason, or one that
// (wrongly) claims NTP.
class CountingHandler final : public FrameHandler {
 public:
  explicit CountingHandler(uint8_t reason) : reason_(reason) {}
  HandleResult Handle(Packet& pkt, const BurstContext&) override {
    const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
    return p.info.dst_port == 320 ? HandleResult::Drop(reason_)
                                  : HandleResult::Drop(0);
  }

 private:
  uint8_t reason_;
};
class TestPlugin final : public ProtocolPlugin {
 public:
  explicit TestPlugin(core::FrameKind kind) : kind_(kind) {}
  absl::Status RegisterNames(CounterNames& names) override {
    absl::StatusOr<uint8_t> base = names.AddDropReasons("plugin", {"seen"});
    if (!base.ok()) return base.status();
    reason_ = *base;
    return absl::OkStatus();
  }
  absl::Status AddHandlers(const WorkerSetup&, Pipeline& p) override {
    return p.SetHandler(kind_, std::make_unique<CountingHandler>(reason_));
  }
  core::FrameKind kind_;
  uint8_t reason_ = 0;
};

// What one PollOnce did with the injected frames.
struct Exchange {
  std::vector<rte_mbuf*> out;
  WorkerStatsSnapshot delta;
  uint64_t tsc_before = 0, tsc_after = 0;
};

class NtpPipelineTest : public ::testing::Test {
 protected:
  // The server: MAC 02:00:00:00:00:01, 10.99.0.1/24, 2001:db8::1/64 and
  // fe80::1/64 (the addresses of tests/core's frame vectors).
  void SetUpServer(std::optional<uint16_t> vlan = std::nullopt,
                   NtpPolicyFactory* policy = nullptr,
                   std::vector<ProtocolPlugin*> plugins = {}) {
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
        ProtocolPipelineFactory::Options{policy, std::move(plugins)});
    ASSERT_TRUE(factory_->RegisterNames(names_).ok());
    for (auto [ip, len] :
         {std::pair{core::IpAddress::V4(ct::kOur4), 24},
          std::pair{core::IpAddress::V6(ct::kOur6), 64},
          std::pair{core::IpAddress::V6(ct::kOurLinkLocal), 64}}) {
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
    ct::kOurMac.Store(wp.mac.addr_bytes);
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
    f.client_mac = ct::kPeerMac;
    f.server_mac = ct::kOurMac;
    f.client_ip = core::IpAddress::V4(ct::kPeer4);
    f.server_ip = core::IpAddress::V4(ct::kOur4);
    f.client_port = client_port;
    return f;
  }
  ClientFlow Flow6(uint16_t client_port = 40000) const {
    ClientFlow f = Flow4(client_port);
    f.client_ip = core::IpAddress::V6(ct::kPeer6);
    f.server_ip = core::IpAddress::V6(ct::kOur6);
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
  std::unique_ptr<ProtocolPipelineFactory> factory_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<Worker> worker_;
};

constexpr uint8_t kNtpKind = static_cast<uint8_t>(core::FrameKind::kNtp);

TEST_F(NtpPipelineTest, EveryVersionOverIpv4AndIpv6IsAnsweredFieldByField) {
  SetUpServer();
  std::vector<std::vector<uint8_t>> frames, requests;
  std::vector<ClientFlow> flows;
  for (uint8_t version = 1; version <= 4; ++version) {
    for (bool v6 : {false, true}) {
      const uint16_t port = static_cast<uint16_t>(40000 + flows.size());
      flows.push_back(v6 ? Flow6(port) : Flow4(port));
      requests.push_back(testing::NtpRequest(version, kT1));
      frames.push_back(testing::UdpFrame(flows.back(), requests.back()));
    }
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  for (size_t i = 0; i < e.out.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(e.out[i]->data_len, frames[i].size()) << "48 bytes in, 48 out";
    ExpectNtpReply(e.out[i], flows[i], requests[i], e);
  }
  EXPECT_EQ(e.delta.handled[kNtpKind], frames.size());
  EXPECT_EQ(e.delta.replied[kNtpKind], frames.size());
  EXPECT_EQ(e.delta.TotalDropped(), 0u);
  Free(e);
}

TEST_F(NtpPipelineTest, Version1WithModeZeroIsAClientRequest) {
  SetUpServer();
  std::vector<uint8_t> req = testing::NtpRequest(1, kT1);
  req[0] = 1 << 3;  // LI 0, VN 1, mode 0 (RFC 1059 had no mode field)
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  const core::NtpHeader h = ExpectNtpReply(e.out[0], Flow4(), req, e);
  EXPECT_EQ(h.version, 1);
  Free(e);
}

TEST_F(NtpPipelineTest, PollIsEchoedWithinBounds) {
  SetUpServer();
  const std::vector<std::pair<int8_t, int8_t>> cases = {
      {3, 3}, {-7, -7}, {-10, -7}, {17, 17}, {30, 17}, {-128, -7}, {127, 17}};
  std::vector<std::vector<uint8_t>> frames;
  for (size_t i = 0; i < cases.size(); ++i) {
    frames.push_back(
        testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                          testing::NtpRequest(4, kT1, cases[i].first)));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(
        Flow4(static_cast<uint16_t>(40000 + i)), e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    core::NtpHeader h;
    ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    EXPECT_EQ(h.poll_log2, cases[i].second)
        << "request poll " << int{cases[i].first};
  }
  Free(e);
}

TEST_F(NtpPipelineTest, UnsynchronisedClockIsServedAsSuch) {
  SetUpServer();
  model_.state = core::SyncState::kFreerun;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  EXPECT_EQ(h.leap, core::NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.stratum, 0);
  EXPECT_EQ(h.reference_id, 0u);
  EXPECT_GE(core::NtpShortToNanos(h.root_dispersion), 16 * kS);
  EXPECT_EQ(h.origin_time, kT1) << "timestamps are still served";
  Free(e);
}

TEST_F(NtpPipelineTest, PendingLeapSecondIsAnnounced) {
  SetUpServer();
  model_.leap = core::LeapPending::kInsert;
  model_.leap_at = model_.tai_anchor + 3600 * kS;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow6(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow6(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  EXPECT_EQ(h.leap, core::NtpLeapIndicator::kLastMinute61);
  Free(e);
}

TEST_F(NtpPipelineTest, RootDispersionGrowsWithTheModelsErrorBound) {
  SetUpServer();
  // Anchored 1000 s ago, growing 1 us/s: 50 ms + 1 ms at receive time.
  const uint64_t hz = testing::TscHz();
  model_.raw_anchor -= 1000 * hz;
  model_.tai_anchor = model_.tai_anchor - 1000 * kS;
  model_.error_growth_ns_per_s = 1000;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  const int64_t disp = core::NtpShortToNanos(h.root_dispersion);
  EXPECT_GE(disp, kErrorBoundNs + 1'000'000 - 16'000);  // 2^-16 s format
  EXPECT_LE(disp, kErrorBoundNs + 1'010'000 + 16'000);
  Free(e);
}

TEST_F(NtpPipelineTest, RepliesAreNeverLongerThanRequests) {
  SetUpServer();
  // An unknown 64-byte extension field (answered, not echoed), IPv4 options
  // and IPv6 extension headers (not echoed either).
  std::vector<uint8_t> with_ef = testing::NtpRequest(4, kT1);
  with_ef.resize(48 + 64, 0xAB);
  core::StoreBe16(&with_ef[48], 0x2005);
  core::StoreBe16(&with_ef[50], 64);
  const std::vector<std::vector<uint8_t>> frames = {
      testing::UdpFrame(Flow4(), with_ef), ct::FromHex(ct::kNtp4OptionsHex),
      ct::FromHex(ct::kNtp6ExtHex)};
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_LT(e.out[i]->data_len, frames[i].size());
    const ClientFlow flow = i == 2 ? Flow6() : Flow4();
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(flow, e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->info.payload_len, core::kNtpHeaderSize);
    EXPECT_EQ(v->info.payload_offset, flow.server_ip.is_v6() ? 62 : 42)
        << "bare IP header";
  }
  Free(e);
}

// One bad input and the counter it must raise.
struct BadInput {
  std::string name;
  std::vector<uint8_t> frame;
  std::string reason;
};

std::vector<uint8_t> WithNtpPayload(const ClientFlow& flow,
                                    std::vector<uint8_t> payload) {
  return testing::UdpFrame(flow, payload);
}

TEST_F(NtpPipelineTest, BadInputsOfEveryKindAreCountedByReasonNeverAnswered) {
  SetUpServer();
  const ClientFlow f4 = Flow4(), f6 = Flow6();
  auto ntp = [](uint8_t li_vn_mode, size_t len = 48) {
    std::vector<uint8_t> p = testing::NtpRequest(4, kT1);
    p[0] = li_vn_mode;
    p.resize(len, 0);
    return p;
  };
  auto vn_mode = [](uint8_t vn, uint8_t mode) {
    return static_cast<uint8_t>(vn << 3 | mode);
  };
  std::vector<BadInput> cases;
  // NTP: short, odd lengths, versions, modes, trailers.
  cases.push_back(
      {"short", WithNtpPayload(f4, ntp(vn_mode(4, 3), 40)), "ntp_too_short"});
  cases.push_back({"length 50", WithNtpPayload(f4, ntp(vn_mode(4, 3), 50)),
                   "ntp_bad_length"});
  cases.push_back(
      {"version 0", WithNtpPayload(f4, ntp(vn_mode(0, 3))), "ntp_bad_version"});
  cases.push_back(
      {"version 5", WithNtpPayload(f6, ntp(vn_mode(5, 3))), "ntp_bad_version"});
  cases.push_back({"mode 0 v4", WithNtpPayload(f4, ntp(vn_mode(4, 0))),
                   "ntp_mode_reserved"});
  cases.push_back(
      {"mode 1", WithNtpPayload(f4, ntp(vn_mode(4, 1))), "ntp_mode_symmetric"});
  cases.push_back(
      {"mode 4", WithNtpPayload(f4, ntp(vn_mode(4, 4))), "ntp_mode_server"});
  cases.push_back(
      {"mode 5", WithNtpPayload(f4, ntp(vn_mode(4, 5))), "ntp_mode_broadcast"});
  cases.push_back({"mode 6 (ntpq)",
                   WithNtpPayload(f4, ntp(vn_mode(2, 6), 12 + 36)),
                   "ntp_mode_control"});
  cases.push_back({"mode 7 (monlist)", WithNtpPayload(f4, ntp(vn_mode(2, 7))),
                   "ntp_mode_private"});
  std::vector<uint8_t> bad_ef = ntp(vn_mode(4, 3), 48 + 16);
  core::StoreBe16(&bad_ef[48], 0x2005);
  core::StoreBe16(&bad_ef[50], 12);  // shorter than an extension field
  cases.push_back(
      {"bad extension", WithNtpPayload(f4, bad_ef), "ntp_malformed_extension"});
  std::vector<uint8_t> mac = ntp(vn_mode(4, 3), 48 + 20);
  mac[51] = 1;  // key id 1 + MD5
  cases.push_back({"MAC", WithNtpPayload(f4, mac), "ntp_mac_present"});
  std::vector<uint8_t> nts = ntp(vn_mode(4, 3), 48 + 36);
  core::StoreBe16(&nts[48], 0x0104);  // NTS unique identifier
  core::StoreBe16(&nts[50], 36);
  cases.push_back({"NTS", WithNtpPayload(f4, nts), "ntp_nts_unsupported"});
  std::vector<uint8_t> zero_t1 = ntp(vn_mode(4, 3));
  std::fill(zero_t1.begin() + 40, zero_t1.end(), 0);
  cases.push_back(
      {"zero transmit", WithNtpPayload(f4, zero_t1), "ntp_zero_transmit"});
  // Frames: checksums, fragments, addressing, lengths.
  const std::vector<uint8_t> good4 =
      testing::UdpFrame(f4, testing::NtpRequest(4, kT1));
  const std::vector<uint8_t> good6 =
      testing::UdpFrame(f6, testing::NtpRequest(4, kT1));
  std::vector<uint8_t> f = good4;
  f[24] ^= 0x5A;  // IPv4 header checksum
  cases.push_back({"IPv4 checksum", f, "frame_ipv4_bad_checksum"});
  f = good4;
  f[40] ^= 0x5A;  // UDP checksum
  cases.push_back({"UDP checksum", f, "frame_udp_bad_checksum"});
  f = good6;
  f[60] ^= 0x5A;
  cases.push_back({"UDP checksum v6", f, "frame_udp_bad_checksum"});
  f = good6;
  f[60] = f[61] = 0;
  cases.push_back({"zero UDP checksum v6", f, "frame_udp_zero_checksum_v6"});
  f = good4;
  f[20] |= 0x20;  // more fragments
  ct::RefSealIpv4Header(f.data(), 14);
  cases.push_back({"IPv4 fragment", f, "frame_ipv4_fragment"});
  f = good6;  // insert a fragment header after the IPv6 header
  const uint8_t frag[8] = {17, 0, 0, 1, 0, 0, 0x12, 0x34};
  f.insert(f.begin() + 54, frag, frag + 8);
  f[20] = 44;
  core::StoreBe16(&f[18], static_cast<uint16_t>(core::LoadBe16(&f[18]) + 8));
  cases.push_back({"IPv6 fragment", f, "frame_ipv6_fragment"});
  ClientFlow other = f4;
  other.server_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, 77));
  cases.push_back({"other address",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv4_not_ours"});
  other = f6;
  other.server_ip = core::IpAddress::V6(ct::kPeer6);
  cases.push_back({"other address v6",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv6_not_ours"});
  other = f4;
  other.server_port = 5353;
  cases.push_back({"other port",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_not_served"});
  other = f4;
  other.server_mac = core::MacAddr{{0x02, 0, 0, 0, 0, 0x77}};
  cases.push_back({"other MAC",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_eth_dst_not_ours"});
  other = f4;
  other.client_port = 0;
  cases.push_back({"source port 0",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_udp_source_port_zero"});
  other = f4;
  other.client_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(127, 0, 0, 1));
  cases.push_back({"loopback source",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv4_bad_source"});
  f = good4;
  f.resize(f.size() - 8);  // cut inside the NTP payload
  cases.push_back({"truncated", f, "frame_ipv4_bad_total_length"});
  cases.push_back({"runt",
                   std::vector<uint8_t>(good4.begin(), good4.begin() + 10),
                   "frame_eth_truncated"});
  cases.push_back({"VLAN tag on an untagged port",
                   ct::FromHex(ct::kNtp4Vlan100Hex), "frame_vlan_mismatch"});

  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.frame.empty());
    Exchange e = Run({c.frame});
    EXPECT_EQ(e.out.size(), 0u) << "a bad input is never answered";
    EXPECT_EQ(e.delta.TotalDropped(), 1u);
    size_t hit = kMaxDropReasons;
    for (size_t r = 0; r < kMaxDropReasons; ++r) {
      if (e.delta.dropped[r] != 0) hit = r;
    }
    EXPECT_EQ(names_.DropReasonName(hit), c.reason);
    Free(e);
  }
}

TEST_F(NtpPipelineTest, ArpIcmpIcmpv6AndNeighbourSolicitationAreAnswered) {
  SetUpServer();
  const std::vector<std::vector<uint8_t>> frames = {
      ct::FromHex(ct::kArpRequestHex), ct::FromHex(ct::kIcmpEchoHex),
      ct::FromHex(ct::kIcmp6EchoHex), ct::FromHex(ct::kNsHex)};
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), 4u);
  const ClientFlow f4 = Flow4(), f6 = Flow6();
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<ClientView> v =
        testing::ReceiveAtClient(i < 2 ? f4 : f6, e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    const uint8_t* b = v->bytes.data();
    EXPECT_TRUE(ct::kPeerMac.Equals(b)) << "to the requester";
    EXPECT_TRUE(ct::kOurMac.Equals(b + 6)) << "from our MAC";
    switch (i) {
      case 0:  // ARP reply: 10.99.0.1 is at our MAC
        EXPECT_EQ(core::LoadBe16(b + 20), 2);
        EXPECT_TRUE(ct::kOurMac.Equals(b + 22));
        EXPECT_EQ(core::Ipv4Addr::Load(b + 28), ct::kOur4);
        EXPECT_TRUE(ct::kPeerMac.Equals(b + 32));
        EXPECT_EQ(core::Ipv4Addr::Load(b + 38), ct::kPeer4);
        break;
      case 1:  // ICMP echo reply with the request's id, sequence, data
        EXPECT_EQ(v->info.src_ipv4, ct::kOur4);
        EXPECT_EQ(b[34], 0);
        EXPECT_EQ(
            std::vector<uint8_t>(b + 38, b + e.out[i]->data_len),
            std::vector<uint8_t>(frames[i].begin() + 38, frames[i].end()));
        break;
      case 2:  // ICMPv6 echo reply
        EXPECT_EQ(v->info.src_ipv6, ct::kOur6);
        EXPECT_EQ(b[54], 129);
        EXPECT_EQ(
            std::vector<uint8_t>(b + 58, b + e.out[i]->data_len),
            std::vector<uint8_t>(frames[i].begin() + 58, frames[i].end()));
        break;
      case 3:  // solicited neighbour advertisement with our MAC
        EXPECT_EQ(b[54], 136);
        EXPECT_EQ(b[58] & 0x60, 0x60) << "S and O flags";
        EXPECT_TRUE(ct::kOur6.Equals(b + 62)) << "target";
        EXPECT_EQ(b[78], 2) << "target link-layer address option";
        EXPECT_TRUE(ct::kOurMac.Equals(b + 80));
        EXPECT_EQ(b[21], 255) << "hop limit";
        break;
    }
  }
  const auto kind = [](core::FrameKind k) { return static_cast<size_t>(k); };
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kArpRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kIcmpEchoRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kIcmp6EchoRequest)], 1u);
  EXPECT_EQ(e.delta.replied[kind(core::FrameKind::kNeighborSolicitation)], 1u);
  Free(e);
}

TEST_F(NtpPipelineTest, VlanTaggedRequestsAreAnsweredOnTheirVlan) {
  SetUpServer(/*vlan=*/100);
  ClientFlow flow = Flow4();
  flow.vlan = 100;
  const std::vector<uint8_t> tagged = ct::FromHex(ct::kNtp4Vlan100Hex);
  std::vector<uint8_t> req(tagged.end() - 48, tagged.end());
  Exchange e = Run({tagged, testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u) << "the untagged request is dropped";
  ExpectNtpReply(e.out[0], flow, req, e);
  EXPECT_EQ(names_.DropReasonName([&] {
    for (size_t r = 0; r < kMaxDropReasons; ++r)
      if (e.delta.dropped[r] != 0) return r;
    return kMaxDropReasons;
  }()),
            "frame_vlan_mismatch");
  Free(e);
}

TEST_F(NtpPipelineTest, PolicyDropsAndKissesOfDeathAreCountedAndSent) {
  TestPolicyFactory policy;
  SetUpServer(std::nullopt, &policy);
  const std::vector<uint8_t> req = testing::NtpRequest(4, kT1, 6);
  Exchange e = Run({testing::UdpFrame(Flow4(40000), req),
                    testing::UdpFrame(Flow4(40001), req),
                    testing::UdpFrame(Flow4(40002), req)});
  ASSERT_EQ(e.out.size(), 2u);
  ExpectNtpReply(e.out[0], Flow4(40000), req, e);
  absl::StatusOr<ClientView> v =
      testing::ReceiveAtClient(Flow4(40002), e.out[1]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader kod;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &kod));
  EXPECT_EQ(core::ClassifyNtpKiss(kod), core::NtpKiss::kRate);
  EXPECT_EQ(kod.poll_log2, 10);
  EXPECT_EQ(kod.origin_time, kT1);
  EXPECT_EQ(kod.transmit_time, kT1) << "a KoD reveals no time";
  EXPECT_EQ(e.delta.dropped[policy.reason_], 1u);
  EXPECT_EQ(names_.DropReasonName(policy.reason_), "policy_denied");
  EXPECT_EQ(e.delta.replied[kNtpKind], 2u);
  Free(e);
}

TEST_F(NtpPipelineTest, PluginsAddHandlersNextToNtp) {
  TestPlugin ptp(core::FrameKind::kPtpGeneral);
  SetUpServer(std::nullopt, nullptr, {&ptp});
  const std::vector<uint8_t> ptp_general = ct::FromHex(ct::kPtp4GeneralHex);
  Exchange e = Run(
      {ptp_general, testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u) << "NTP is still answered";
  EXPECT_EQ(e.delta.handled[static_cast<size_t>(core::FrameKind::kPtpGeneral)],
            1u);
  EXPECT_EQ(e.delta.dropped[ptp.reason_], 1u);
  EXPECT_EQ(names_.DropReasonName(ptp.reason_), "plugin_seen");
  Free(e);
}

TEST(ProtocolPipelineFactoryTest, APluginCannotTakeAKindThatHasAHandler) {
  TestPlugin grabby(core::FrameKind::kNtp);
  ProtocolPipelineFactory factory(
      ProtocolPipelineFactory::Options{nullptr, {&grabby}});
  CounterNames names;
  ASSERT_TRUE(factory.RegisterNames(names).ok());
  rte_ether_addr mac = {{0x02, 0, 0, 0, 0, 0x01}};
  absl::StatusOr<Pipeline> p = factory.Create(testing::ServerSetup(0, mac));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kAlreadyExists) << p.status();
}

TEST(ProtocolPipelineFactoryTest, CreateNeedsNamesAndAUnicastMac) {
  ProtocolPipelineFactory factory;
  rte_ether_addr mac = {{0x02, 0, 0, 0, 0, 0x01}};
  EXPECT_EQ(factory.Create(testing::ServerSetup(0, mac)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  CounterNames names;
  ASSERT_TRUE(factory.RegisterNames(names).ok());
  EXPECT_FALSE(factory.RegisterNames(names).ok()) << "registered twice";
  rte_ether_addr group = {{0x01, 0, 0x5e, 0, 0, 1}};
  absl::StatusOr<Pipeline> p = factory.Create(testing::ServerSetup(0, group));
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(factory.Create(testing::ServerSetup(0, mac)).ok());
}

}  // namespace
}  // namespace zg::dataplane
