// SPDX-License-Identifier: Apache-2.0
// LaneEngine against zeitgeber's own server code (core::BuildNtpReply,
// core::PtpDelayReqToDelayResp) as the peer: requests out, replies judged,
// no DPDK.
#include "bench/loadgen/lane_engine.h"

#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"

namespace zg::bench {
namespace lane_engine_test {
namespace {

using core::TaiNs;

constexpr uint64_t kTimeoutTicks = 1'000'000;  // 1 ms at 1 tick per ns
constexpr int64_t kServerAheadNs = 1234;       // server clock - ours
constexpr int64_t kOneWayNs = 5000;
constexpr int64_t kHoldNs = 700;  // server residence

// A locked clock, 1 TSC tick = 1 ns, anchored in 2024.
core::ClockModel Clock(int64_t offset_ns = 0) {
  core::ClockModel m;
  m.raw_anchor = 0;
  m.tai_anchor = TaiNs{1'700'000'037'000'000'000 + offset_ns};
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.max_extrapolation_ns = int64_t{1} << 50;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  m.utc_offset_s = 37;
  return m;
}

TrafficMix Mix(const char* text) {
  TrafficMix m;
  std::string err;
  EXPECT_TRUE(AbslParseFlag(text, &m, &err)) << err;
  return m;
}

std::unique_ptr<LaneEngine> Engine(const char* mix, uint32_t clients = 8,
                                   uint32_t lanes = 1, uint32_t lane = 0,
                                   uint32_t depth = 4, bool reflector = false) {
  auto space = ClientSpace::Create({.clients = clients,
                                    .addresses = clients >= 2 ? 2u : 1u,
                                    .first_port = 20000,
                                    .lanes = lanes});
  EXPECT_TRUE(space.ok()) << space.status();
  auto e = LaneEngine::Create({.lane = lane,
                               .space = *space,
                               .mix = Mix(mix),
                               .ntp_port = 123,
                               .depth = depth,
                               .timeout_ticks = kTimeoutTicks,
                               .reflector = reflector});
  EXPECT_TRUE(e.ok()) << e.status();
  (*e)->SetClock(Clock());
  return std::move(e).value();
}

// One request in flight and the server's view of it.
struct Exchange {
  OutgoingRequest req;
  std::array<uint8_t, 64> payload{};
  uint64_t tx_tsc = 0;
};

Exchange Send(LaneEngine& e, uint64_t tx_tsc) {
  Exchange x;
  x.req = e.Next(x.payload.data(), Clock().RawToTai(tx_tsc));
  x.tx_tsc = tx_tsc;
  e.Sent(&x.req, 1, tx_tsc);
  return x;
}

// zeitgeber's NTP server answering `x` with a clock kServerAheadNs ahead.
core::NtpReplyPacket NtpServer(
    const Exchange& x, core::ClockModel server = Clock(kServerAheadNs)) {
  const TaiNs rx = server.RawToTai(x.tx_tsc + kOneWayNs);
  return core::BuildNtpReply(
      std::span<const uint8_t>(x.payload.data(), x.req.payload_len), rx,
      rx + kHoldNs, server);
}

ReplyAddress To(const Exchange& x, uint16_t src_port = 123) {
  return {.from_target = true,
          .dst_address_offset = x.req.source.address_offset,
          .src_port = src_port,
          .dst_port = x.req.source.port};
}

uint64_t RxTsc(const Exchange& x) { return x.tx_tsc + 2 * kOneWayNs + kHoldNs; }

uint64_t Defect(const LaneEngine& e, ReplyDefect d) {
  return e.measurements().defects[static_cast<size_t>(d)];
}

TEST(LaneEngineTest, NtpRoundTripResidenceAndOffset) {
  auto e = Engine("ntp4");
  for (int i = 0; i < 100; ++i) {
    const Exchange x = Send(*e, 1'000'000 + i * 10'000);
    ASSERT_EQ(x.req.payload_len, core::kNtpHeaderSize);
    EXPECT_EQ(x.payload[0] & 0x3F, (4 << 3) | 3);  // v4, client mode
    const core::NtpReplyPacket reply = NtpServer(x);
    ASSERT_EQ(reply.drop, core::NtpDrop::kNone);
    e->OnReply(To(x), reply.bytes.data(), reply.size, RxTsc(x));
  }
  const LaneMeasurements& m = e->measurements();
  EXPECT_EQ(m.counts.sent, 100u);
  EXPECT_EQ(m.counts.answered, 100u);
  EXPECT_EQ(m.DefectTotal(), 0u);
  EXPECT_EQ(m.rtt_ns.min(), 2 * kOneWayNs + kHoldNs);
  EXPECT_EQ(m.rtt_ns.max(), 2 * kOneWayNs + kHoldNs);
  EXPECT_EQ(m.residence_ns.min(), kHoldNs);
  EXPECT_EQ(m.residence_ns.max(), kHoldNs);
  // The offset a client computes is the server's clock error, exactly.
  EXPECT_EQ(m.offset_ns.min(), kServerAheadNs);
  EXPECT_EQ(m.offset_ns.max(), kServerAheadNs);
  const RequestCounts c = e->Counts();
  EXPECT_EQ(c.in_flight, 0u);
  EXPECT_TRUE(c.Consistent());
}

TEST(LaneEngineTest, ClientsTakeTurnsWithTheirOwnAddresses) {
  auto e = Engine("ntp4", 6);
  std::vector<std::pair<uint32_t, uint16_t>> seen;
  for (int i = 0; i < 12; ++i) {
    const Exchange x = Send(*e, 1000 + i);
    seen.emplace_back(x.req.source.address_offset, x.req.source.port);
    EXPECT_EQ(x.req.local_client, static_cast<uint32_t>(i % 6));
    EXPECT_EQ(x.req.seq, static_cast<uint32_t>(i / 6));
    EXPECT_EQ(x.req.dst_port, 123);
  }
  EXPECT_EQ(seen[0], std::make_pair(0u, uint16_t{20000}));
  EXPECT_EQ(seen[1], std::make_pair(1u, uint16_t{20000}));
  EXPECT_EQ(seen[2], std::make_pair(0u, uint16_t{20001}));
  EXPECT_EQ(seen[6], seen[0]);
}

TEST(LaneEngineTest, DuplicateLateAndLost) {
  auto e = Engine("ntp4");
  const Exchange a = Send(*e, 1000);
  const Exchange b = Send(*e, 2000);
  const Exchange c = Send(*e, 3000);
  const core::NtpReplyPacket ra = NtpServer(a);
  e->OnReply(To(a), ra.bytes.data(), ra.size, RxTsc(a));
  e->OnReply(To(a), ra.bytes.data(), ra.size, RxTsc(a) + 5);  // again
  const core::NtpReplyPacket rb = NtpServer(b);
  e->OnReply(To(b), rb.bytes.data(), rb.size, b.tx_tsc + kTimeoutTicks + 1);
  RequestCounts n = e->Counts();
  EXPECT_EQ(n.answered, 1u);
  EXPECT_EQ(n.duplicate, 1u);
  EXPECT_EQ(n.late, 1u);
  EXPECT_EQ(n.in_flight, 1u);  // c
  e->Finish();
  n = e->Counts();
  EXPECT_EQ(n.lost, 1u);
  EXPECT_EQ(n.in_flight, 0u);
  EXPECT_TRUE(n.Consistent());
  // After Finish, c's reply matches nothing.
  const core::NtpReplyPacket rc = NtpServer(c);
  e->OnReply(To(c), rc.bytes.data(), rc.size, RxTsc(c));
  EXPECT_EQ(e->Counts().unmatched, 1u);
}

TEST(LaneEngineTest, ForgedOrEvictedOriginIsUnmatched) {
  auto e = Engine("ntp4", 1, 1, 0, 2);
  const Exchange a = Send(*e, 1000);
  core::NtpReplyPacket r = NtpServer(a);
  r.bytes[core::kNtpOffsetOriginTime + 3] ^= 0x40;  // seconds changed
  e->OnReply(To(a), r.bytes.data(), r.size, RxTsc(a));
  EXPECT_EQ(e->Counts().unmatched, 1u);
  // Depth 2: the third request of the client evicts the first (lost), whose
  // genuine reply is then unmatched.
  Send(*e, 2000);
  Send(*e, 3000);
  EXPECT_EQ(e->Counts().lost, 1u);
  const core::NtpReplyPacket late = NtpServer(a);
  e->OnReply(To(a), late.bytes.data(), late.size, RxTsc(a));
  EXPECT_EQ(e->Counts().unmatched, 2u);
  EXPECT_EQ(e->Counts().answered, 0u);
}

TEST(LaneEngineTest, KissOfDeathIsCountedByCode) {
  auto e = Engine("ntp4");
  const Exchange x = Send(*e, 1000);
  std::array<uint8_t, 48> kod;
  std::memcpy(kod.data(), x.payload.data(), 48);
  const core::NtpRequestCheck check =
      core::ValidateNtpRequest(kod.data(), kod.size());
  ASSERT_EQ(check.drop, core::NtpDrop::kNone);
  const uint32_t len =
      core::WriteNtpKissOfDeath(kod.data(), check, core::kNtpKissRate, 6);
  e->OnReply(To(x), kod.data(), len, RxTsc(x));
  EXPECT_EQ(e->Counts().kod, 1u);
  EXPECT_EQ(e->Counts().answered, 0u);
  const NamedCounts names = e->measurements().KissNames();
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].second, 1u);
  EXPECT_EQ(names[0].first, core::NtpKissName(core::NtpKiss::kRate));
}

TEST(LaneEngineTest, UnsynchronizedServerIsABadReply) {
  auto e = Engine("ntp4");
  const Exchange x = Send(*e, 1000);
  core::ClockModel freerun = Clock(kServerAheadNs);
  freerun.state = core::SyncState::kFreerun;
  const core::NtpReplyPacket r = NtpServer(x, freerun);
  e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(e->Counts().bad_reply, 1u);
  EXPECT_EQ(Defect(*e, ReplyDefect::kNtpUnsynchronized), 1u);
  EXPECT_EQ(e->measurements().offset_ns.count(), 0u);
  // A second copy is a duplicate, not a second bad reply.
  e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(e->Counts().bad_reply, 1u);
  EXPECT_EQ(e->Counts().duplicate, 1u);
}

TEST(LaneEngineTest, Ntp3RequestsWantNtp3Replies) {
  auto e = Engine("ntp3");
  const Exchange x = Send(*e, 1000);
  EXPECT_EQ((x.payload[0] >> 3) & 7, 3);
  const core::NtpReplyPacket r = NtpServer(x);
  e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(e->Counts().answered, 1u);
  const Exchange y = Send(*e, 2000);
  core::NtpReplyPacket bad = NtpServer(y);
  bad.bytes[0] = static_cast<uint8_t>((bad.bytes[0] & ~0x38) | (4 << 3));
  e->OnReply(To(y), bad.bytes.data(), bad.size, RxTsc(y));
  EXPECT_EQ(Defect(*e, ReplyDefect::kNtpVersionMismatch), 1u);
}

TEST(LaneEngineTest, AddressingDefects) {
  auto e = Engine("ntp4", 8, 2, 0);  // lane 0 of 2: even clients
  const Exchange x = Send(*e, 1000);
  const core::NtpReplyPacket r = NtpServer(x);
  ReplyAddress a = To(x);
  a.from_target = false;
  e->OnReply(a, r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kNotFromTarget), 1u);
  a = To(x);
  a.dst_port = 30000;  // no client there
  e->OnReply(a, r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kUnknownDestination), 1u);
  a = To(x);
  a.dst_address_offset = 1;  // client 1: lane 1's
  e->OnReply(a, r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kMisrouted), 1u);
  e->OnReply(To(x, 5555), r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kUnexpectedPort), 1u);
  e->OnReply(To(x), r.bytes.data(), 47, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kNtpTooShort), 1u);
  EXPECT_EQ(e->Counts().answered, 0u);
  // The genuine reply still counts.
  e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
  EXPECT_EQ(e->Counts().answered, 1u);
}

// ---- PTP -------------------------------------------------------------------

struct PtpReply {
  std::array<uint8_t, 64> bytes{};
  size_t len = 0;
};

PtpReply PtpServer(const Exchange& x) {
  PtpReply r;
  std::memcpy(r.bytes.data(), x.payload.data(), x.req.payload_len);
  core::PtpReplyConfig cfg;
  cfg.port_identity = PtpIdentityOf(0xABCDEF);  // any
  const core::PtpDrop d = core::PtpDelayReqToDelayResp(
      std::span<uint8_t>(r.bytes.data(), r.bytes.size()), x.req.payload_len,
      cfg, Clock(kServerAheadNs).RawToTai(x.tx_tsc + kOneWayNs));
  EXPECT_EQ(d, core::PtpDrop::kOk);
  r.len = core::kPtpDelayRespLength;
  return r;
}

ReplyAddress PtpTo(const Exchange& x) {
  return {.from_target = true,
          .dst_address_offset = x.req.source.address_offset,
          .src_port = core::kPtpGeneralPort,
          .dst_port = core::kPtpGeneralPort};
}

TEST(LaneEngineTest, PtpDelayReqAndResp) {
  auto e = Engine("ptp", 4);
  for (int i = 0; i < 10; ++i) {
    const Exchange x = Send(*e, 1000 + i * 100'000);
    ASSERT_EQ(x.req.payload_len, core::kPtpDelayReqLength);
    EXPECT_EQ(x.req.source.port, core::kPtpEventPort);
    EXPECT_EQ(x.req.dst_port, core::kPtpEventPort);
    core::PtpMessage msg;
    ASSERT_EQ(core::ParsePtpMessage(
                  std::span<const uint8_t>(x.payload.data(), x.req.payload_len),
                  &msg),
              core::PtpDrop::kOk);
    ASSERT_TRUE(std::holds_alternative<core::PtpDelayReq>(msg.body));
    EXPECT_TRUE(msg.header.flags.Has(core::PtpFlag::kUnicast));
    EXPECT_EQ(msg.header.sequence_id, i / 4);
    const PtpReply r = PtpServer(x);
    e->OnReply(PtpTo(x), r.bytes.data(), r.len, RxTsc(x));
  }
  EXPECT_EQ(e->Counts().answered, 10u);
  EXPECT_EQ(e->measurements().rtt_ns.max(), 2 * kOneWayNs + kHoldNs);
  EXPECT_EQ(e->measurements().offset_ns.count(), 0u);  // NTP only
}

TEST(LaneEngineTest, PtpDefects) {
  auto e = Engine("ptp", 4);
  const Exchange x = Send(*e, 1000);
  PtpReply r = PtpServer(x);
  // Sent to another client's address.
  ReplyAddress a = PtpTo(x);
  a.dst_address_offset = 1;
  e->OnReply(a, r.bytes.data(), r.len, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kPtpWrongDestination), 1u);
  // Truncated.
  e->OnReply(PtpTo(x), r.bytes.data(), 20, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kPtpMalformed), 1u);
  // The request itself echoed back (a Delay_Req, not a Delay_Resp).
  e->OnReply(PtpTo(x), x.payload.data(), x.req.payload_len, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kPtpNotDelayResp), 1u);
  // Someone else's identity.
  PtpReply other = r;
  other.bytes[44] ^= 0xFF;  // requestingPortIdentity, first octet
  e->OnReply(PtpTo(x), other.bytes.data(), other.len, RxTsc(x));
  EXPECT_EQ(Defect(*e, ReplyDefect::kPtpUnknownIdentity), 1u);
  // Wrong sequence: unmatched.
  PtpReply seq = r;
  seq.bytes[31] ^= 0x01;  // sequenceId low octet
  e->OnReply(PtpTo(x), seq.bytes.data(), seq.len, RxTsc(x));
  EXPECT_EQ(e->Counts().unmatched, 1u);
  e->OnReply(PtpTo(x), r.bytes.data(), r.len, RxTsc(x));
  e->OnReply(PtpTo(x), r.bytes.data(), r.len, RxTsc(x));
  EXPECT_EQ(e->Counts().answered, 1u);
  EXPECT_EQ(e->Counts().duplicate, 1u);
}

// Against a reflector (testpmd 5tswap) the request itself comes back: it
// matches its request and counts as answered, with a round trip only.
TEST(LaneEngineTest, ReflectorEchoesAreAnswers) {
  auto e = Engine("ntp4:1,ntp3:1,ptp:1", 6, 1, 0, 4, /*reflector=*/true);
  for (int i = 0; i < 12; ++i) {
    const Exchange x = Send(*e, 1000 + i * 50'000);
    const bool ptp = x.req.dst_port == core::kPtpEventPort;
    ReplyAddress from = ptp ? PtpTo(x) : To(x);
    e->OnReply(from, x.payload.data(), x.req.payload_len, RxTsc(x));
    // The same frame again is a duplicate.
    e->OnReply(from, x.payload.data(), x.req.payload_len, RxTsc(x) + 1);
  }
  const LaneMeasurements& m = e->measurements();
  EXPECT_EQ(m.counts.answered, 12u);
  EXPECT_EQ(m.counts.duplicate, 12u);
  EXPECT_EQ(m.DefectTotal(), 0u);
  EXPECT_EQ(m.rtt_ns.count(), 12u);
  EXPECT_EQ(m.rtt_ns.max(), 2 * kOneWayNs + kHoldNs);
  EXPECT_EQ(m.residence_ns.count(), 0u);
  EXPECT_EQ(m.offset_ns.count(), 0u);
}

TEST(LaneEngineTest, ReflectorRefusesWhatIsNotOurRequest) {
  auto e = Engine("ntp4:1,ptp:1", 2, 1, 0, 4, /*reflector=*/true);
  const Exchange ntp = Send(*e, 1000);
  const Exchange ptp = Send(*e, 2000);
  // A server's reply is not the request.
  const core::NtpReplyPacket reply = NtpServer(ntp);
  e->OnReply(To(ntp), reply.bytes.data(), reply.size, RxTsc(ntp));
  const PtpReply resp = PtpServer(ptp);
  e->OnReply(PtpTo(ptp), resp.bytes.data(), resp.len, RxTsc(ptp));
  EXPECT_EQ(Defect(*e, ReplyDefect::kNotReflection), 2u);
  // A request with another transmit timestamp matches nothing.
  Exchange forged = ntp;
  forged.payload[47] ^= 0x80;
  e->OnReply(To(forged), forged.payload.data(), forged.req.payload_len,
             RxTsc(forged));
  EXPECT_EQ(e->Counts().unmatched, 1u);
  EXPECT_EQ(e->Counts().answered, 0u);
  // Without reflector mode, the echo of a request is no answer.
  auto server_mode = Engine("ntp4", 2);
  const Exchange x = Send(*server_mode, 1000);
  server_mode->OnReply(To(x), x.payload.data(), x.req.payload_len, RxTsc(x));
  EXPECT_EQ(server_mode->Counts().answered, 0u);
}

// A reply names the lane that sent its request, whichever queue it came in
// on: by address and port (NTP) or PTP port identity.
TEST(LaneEngineTest, OwnerLaneOfEveryReply) {
  constexpr uint32_t kLanes = 3;
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    auto e = Engine("ntp4:1,ptp:1", 12, kLanes, lane);
    auto space = ClientSpace::Create(
        {.clients = 12, .addresses = 2, .first_port = 20000, .lanes = kLanes});
    ASSERT_TRUE(space.ok());
    for (int i = 0; i < 8; ++i) {
      const Exchange x = Send(*e, 1000 + i * 1000);
      if (x.req.dst_port == core::kPtpEventPort) {
        const PtpReply r = PtpServer(x);
        EXPECT_EQ(OwnerLaneOf(*space, 123, PtpTo(x), r.bytes.data(), r.len),
                  lane);
        // A reflected Delay_Req names its lane too.
        EXPECT_EQ(OwnerLaneOf(*space, 123, PtpTo(x), x.payload.data(),
                              x.req.payload_len),
                  lane);
      } else {
        const core::NtpReplyPacket r = NtpServer(x);
        EXPECT_EQ(OwnerLaneOf(*space, 123, To(x), r.bytes.data(), r.size),
                  lane);
      }
    }
  }
  auto space = ClientSpace::Create({.clients = 4, .lanes = 2});
  ASSERT_TRUE(space.ok());
  const uint8_t junk[60] = {};
  // Unknown client address/port, another source port, a short PTP message.
  EXPECT_FALSE(OwnerLaneOf(*space, 123,
                           {.from_target = true,
                            .dst_address_offset = 5,
                            .src_port = 123,
                            .dst_port = 1024},
                           junk, 48)
                   .has_value());
  EXPECT_FALSE(
      OwnerLaneOf(*space, 123, {.src_port = 53, .dst_port = 1024}, junk, 48)
          .has_value());
  EXPECT_FALSE(
      OwnerLaneOf(*space, 123, {.src_port = 320, .dst_port = 320}, junk, 20)
          .has_value());
  uint8_t resp[60] = {0x09};  // a Delay_Resp for an identity not ours
  EXPECT_FALSE(
      OwnerLaneOf(*space, 123, {.src_port = 320, .dst_port = 320}, resp, 60)
          .has_value());
}

TEST(LaneEngineTest, MixedTrafficSplitsClients) {
  auto e = Engine("ntp4:1,ptp:1", 8);
  int ntp = 0, ptp = 0;
  for (int i = 0; i < 8; ++i) {
    const Exchange x = Send(*e, 1000 + i * 100'000);
    if (x.req.dst_port == 123) {
      ++ntp;
      const core::NtpReplyPacket r = NtpServer(x);
      e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
    } else {
      ++ptp;
      const PtpReply r = PtpServer(x);
      e->OnReply(PtpTo(x), r.bytes.data(), r.len, RxTsc(x));
    }
  }
  EXPECT_EQ(ntp, 4);
  EXPECT_EQ(ptp, 4);
  EXPECT_EQ(e->Counts().answered, 8u);
  EXPECT_EQ(e->measurements().offset_ns.count(), 4u);
}

TEST(LaneEngineTest, PtpIdentityRoundTrip) {
  for (uint32_t c : {0u, 1u, 0xABCDEFu, 0xFFFFFFu}) {
    uint32_t back = 0;
    ASSERT_TRUE(ClientOfPtpIdentity(PtpIdentityOf(c), &back));
    EXPECT_EQ(back, c);
  }
  core::PtpPortIdentity id = PtpIdentityOf(5);
  id.port_number = 2;
  uint32_t back;
  EXPECT_FALSE(ClientOfPtpIdentity(id, &back));
}

TEST(LaneEngineTest, MergeAddsLanes) {
  auto a = Engine("ntp4", 4, 2, 0);
  auto b = Engine("ntp4", 4, 2, 1);
  for (LaneEngine* e : {a.get(), b.get()}) {
    const Exchange x = Send(*e, 1000);
    const core::NtpReplyPacket r = NtpServer(x);
    e->OnReply(To(x), r.bytes.data(), r.size, RxTsc(x));
  }
  auto total = std::make_unique<LaneMeasurements>();
  total->Merge(a->measurements());
  total->Merge(b->measurements());
  EXPECT_EQ(total->counts.answered, 2u);
  EXPECT_EQ(total->rtt_ns.count(), 2u);
  EXPECT_EQ(total->offset_ns.count(), 2u);
}

TEST(LaneEngineTest, CreateRejectsEmptyLanes) {
  auto space = ClientSpace::Create({.clients = 2, .lanes = 2});
  ASSERT_TRUE(space.ok());
  EXPECT_FALSE(LaneEngine::Create(
                   {.lane = 2, .space = *space, .depth = 4, .timeout_ticks = 1})
                   .ok());
  EXPECT_FALSE(LaneEngine::Create(
                   {.lane = 0, .space = *space, .depth = 3, .timeout_ticks = 1})
                   .ok());
}

}  // namespace
}  // namespace lane_engine_test
}  // namespace zg::bench
