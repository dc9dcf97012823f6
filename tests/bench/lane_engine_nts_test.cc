// SPDX-License-Identifier: Apache-2.0
// LaneEngine with --mix=nts: requests carry the credentials' cookie and an
// authenticator, replies from a small NTS server written here (core's
// BuildNtpReply for the header, the RFC 8915 fields around it) are checked
// on the sampled share, tampered ones are counted bad, NAKs counted.
#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "bench/loadgen/lane_engine.h"
#include "core/base/byte_order.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "gtest/gtest.h"

namespace zg::bench {
namespace lane_engine_nts_test {
namespace {

using core::TaiNs;

core::ClockModel Clock() {
  core::ClockModel m;
  m.tai_anchor = TaiNs{1'700'000'037'000'000'000};
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.max_extrapolation_ns = int64_t{1} << 50;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  m.utc_offset_s = 37;
  return m;
}

std::shared_ptr<NtsClientSetup> Credentials(uint32_t verify_every) {
  auto s = std::make_shared<NtsClientSetup>();
  s->verify_every = verify_every;
  for (uint8_t i = 0; i < 3; ++i) {
    NtsCredential c;
    c.keys.c2s.fill(static_cast<uint8_t>(0x10 + i));
    c.keys.s2c.fill(static_cast<uint8_t>(0x20 + i));
    c.cookie.assign(core::kNtsCookieSize, static_cast<uint8_t>(i));
    s->credentials.push_back(c);
  }
  return s;
}

std::unique_ptr<LaneEngine> Engine(std::shared_ptr<NtsClientSetup> nts,
                                   const char* mix = "nts") {
  auto space = ClientSpace::Create(
      {.clients = 6, .addresses = 1, .first_port = 20000, .lanes = 1});
  EXPECT_TRUE(space.ok());
  TrafficMix m;
  std::string err;
  EXPECT_TRUE(AbslParseFlag(mix, &m, &err)) << err;
  auto e = LaneEngine::Create({.lane = 0,
                               .space = *space,
                               .mix = m,
                               .depth = 4,
                               .timeout_ticks = 1'000'000,
                               .nts = nts});
  EXPECT_TRUE(e.ok()) << e.status();
  (*e)->SetClock(Clock());
  return std::move(e).value();
}

struct Exchange {
  OutgoingRequest req;
  std::array<uint8_t, kMaxRequestPayload> payload{};
  uint64_t tx_tsc = 0;
};

// The server: header from core::BuildNtpReply, then the request's UID EF
// and an authenticator sealing one fresh cookie under S2C. The keys are
// found by the cookie's first byte (the test's credentials).
std::vector<uint8_t> Serve(const Exchange& x, bool nak = false) {
  const TaiNs rx = Clock().RawToTai(x.tx_tsc + 5000);
  core::NtpReplyPacket h = core::BuildNtpReply(
      std::span<const uint8_t>(x.payload.data(), core::kNtpHeaderSize), rx,
      rx + 500, Clock());
  std::vector<uint8_t> r(h.bytes.begin(), h.bytes.end());
  if (nak) {
    r[0] = 0xE4;
    r[1] = 0;
    core::StoreBe32(&r[12], core::kNtpKissNtsNak);
  }
  r.insert(r.end(), x.payload.begin() + 48, x.payload.begin() + 84);  // UID
  if (nak) return r;
  const uint8_t which = x.payload[88];  // the cookie's first byte
  core::NtsKeys keys = Credentials(1)->credentials.at(which).keys;
  std::vector<uint8_t> plain = {0x02, 0x04, 0, 104};
  plain.resize(104, 0x77);
  uint8_t nonce[16] = {1, 2, 3};
  std::vector<uint8_t> auth = {0x04, 0x04, 0, 4 + 4 + 16 + 16 + 104,
                               0,    16,   0, 16 + 104};
  auth.insert(auth.end(), nonce, nonce + 16);
  auth.resize(auth.size() + 16 + 104);
  core::AesSiv siv;
  siv.SetKey(keys.s2c.data());
  const core::AesSivInput ad[] = {{r.data(), r.size()}, {nonce, 16}};
  siv.Seal(ad, plain.data(), plain.size(), auth.data() + 24);
  r.insert(r.end(), auth.begin(), auth.end());
  return r;
}

Exchange Send(LaneEngine& e, uint64_t tsc) {
  Exchange x;
  x.req = e.Next(x.payload.data(), Clock().RawToTai(tsc));
  x.tx_tsc = tsc;
  e.Sent(&x.req, 1, tsc);
  return x;
}

void Reply(LaneEngine& e, const Exchange& x, const std::vector<uint8_t>& r) {
  e.OnReply({.from_target = true,
             .dst_address_offset = x.req.source.address_offset,
             .src_port = 123,
             .dst_port = x.req.source.port},
            r.data(), static_cast<uint32_t>(r.size()), x.tx_tsc + 11000);
}

TEST(LaneEngineNtsTest, RequestsAreNtsAndTheSampledShareIsVerified) {
  auto e = Engine(Credentials(4));
  for (int i = 0; i < 40; ++i) {
    const Exchange x = Send(*e, 1'000'000 + i * 10'000);
    ASSERT_EQ(x.req.payload_len, core::NtsRequestSize(core::kNtsCookieSize, 0));
    const core::NtpRequestCheck check = core::ValidateNtpRequest(
        x.payload.data(), x.req.payload_len, core::NtpMacHandling::kDrop);
    EXPECT_EQ(check.trailer.nts_fields, 3);
    const std::vector<uint8_t> r = Serve(x);
    EXPECT_LE(r.size(), x.req.payload_len);
    Reply(*e, x, r);
  }
  const LaneMeasurements& m = e->measurements();
  EXPECT_EQ(m.counts.answered, 40u);
  EXPECT_EQ(m.nts.sent, 40u);
  EXPECT_EQ(m.nts.answered, 40u);
  EXPECT_EQ(m.nts.verified_ok, 10u);
  EXPECT_EQ(m.nts.verified_bad, 0u);
  EXPECT_EQ(m.DefectTotal(), 0u);
}

TEST(LaneEngineNtsTest, TamperedRepliesAreBadAndNaksCounted) {
  auto e = Engine(Credentials(1));
  Exchange x = Send(*e, 1'000'000);
  std::vector<uint8_t> r = Serve(x);
  r[r.size() - 1] ^= 1;  // inside the sealed cookie
  Reply(*e, x, r);
  x = Send(*e, 1'100'000);
  Reply(*e, x, Serve(x, /*nak=*/true));
  const LaneMeasurements& m = e->measurements();
  EXPECT_EQ(m.counts.bad_reply, 1u);
  EXPECT_EQ(m.nts.verified_bad, 1u);
  EXPECT_EQ(m.defects[static_cast<size_t>(ReplyDefect::kNtsBad)], 1u);
  EXPECT_EQ(m.nts_status[static_cast<size_t>(core::NtsReplyStatus::kBadTag)],
            1u);
  EXPECT_EQ(m.counts.kod, 1u);
  EXPECT_EQ(m.nts.nak, 1u);
  EXPECT_EQ(m.counts.answered, 0u);
}

TEST(LaneEngineNtsTest, MixedWithPlainNtp) {
  auto e = Engine(Credentials(1), "nts:1,ntp4:1");
  for (int i = 0; i < 6; ++i) {
    const Exchange x = Send(*e, 1'000'000 + i * 10'000);
    if (x.req.payload_len == core::kNtpHeaderSize) {
      core::NtpReplyPacket h =
          core::BuildNtpReply(std::span<const uint8_t>(x.payload.data(), 48),
                              Clock().RawToTai(x.tx_tsc + 5000),
                              Clock().RawToTai(x.tx_tsc + 5500), Clock());
      Reply(*e, x, std::vector<uint8_t>(h.bytes.begin(), h.bytes.end()));
    } else {
      Reply(*e, x, Serve(x));
    }
  }
  EXPECT_EQ(e->measurements().counts.answered, 6u);
  EXPECT_EQ(e->measurements().nts.sent, 3u);
  EXPECT_EQ(e->measurements().nts.verified_ok, 3u);
}

TEST(LaneEngineNtsTest, NtsWithoutCredentialsIsRefused) {
  auto space = ClientSpace::Create({.clients = 2, .lanes = 1});
  TrafficMix m;
  std::string err;
  ASSERT_TRUE(AbslParseFlag("nts", &m, &err));
  EXPECT_FALSE(
      LaneEngine::Create({.space = *space, .mix = m, .depth = 4}).ok());
}

}  // namespace
}  // namespace lane_engine_nts_test
}  // namespace zg::bench
