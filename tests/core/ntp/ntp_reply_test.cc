// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_reply.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_format.h"
#include "gtest/gtest.h"
#include "tests/util/hex.h"

namespace zg::core {
namespace ntp_reply_test {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr int64_t kS = kNanosPerSecond;
constexpr int64_t kMs = 1'000'000;

using testutil::FromHex;

// `ntpdig 127.0.0.1` as captured on loopback (see ntp_wire_test.cc).
const Bytes kNtpdigRequest = FromHex(
    "e300000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000eeb6e1229b5c8000");

// 2023-11-14T22:13:20Z (POSIX 1'700'000'000), TAI-UTC 37 s.
constexpr TaiNs kAnchor{(1'700'000'000 + 37) * kS};

// A GPS-disciplined stratum-1 model: 1 ms bound at the anchor growing 50 ns/s,
// stale after 10 s; raw ticks are nanoseconds.
ClockModel SyncedModel() {
  ClockModel m;
  m.raw_anchor = 0;
  m.tai_anchor = kAnchor;
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 1 * kMs;
  m.error_growth_ns_per_s = 50;
  m.max_extrapolation_ns = 10 * kS;
  m.utc_offset_s = 37;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  m.precision_log2 = -24;
  m.reference_id = NtpRefId("GPS\0");
  m.root_delay_ns = 0;
  m.reference_time = kAnchor;
  return m;
}

// Builds the in-place reply; returns the 48 reply bytes.
Bytes Reply(Bytes request, TaiNs rx, const ClockModel& m,
            NtpDrop* drop_out = nullptr) {
  uint32_t reply_len = 99;
  const NtpDrop drop = BuildNtpReply(
      request.data(), static_cast<uint32_t>(request.size()), rx, m, &reply_len);
  if (drop_out != nullptr) *drop_out = drop;
  if (drop != NtpDrop::kNone) {
    EXPECT_EQ(reply_len, 0u);
    return {};
  }
  EXPECT_EQ(reply_len, 48u);
  return Bytes(request.begin(), request.begin() + reply_len);
}

NtpHeader Header(const Bytes& reply) {
  NtpHeader h;
  EXPECT_TRUE(
      ParseNtpHeader(reply.data(), static_cast<uint32_t>(reply.size()), &h));
  return h;
}

Bytes ClientRequest(uint8_t version, NtpTimestamp t1, int8_t poll = 6) {
  Bytes b(48);
  BuildNtpClientRequest(b.data(), version, poll, t1);
  return b;
}

// ---- Field by field
// ----------------------------------------------------------

TEST(NtpReplyTest, SynchronizedReplyKnownAnswer) {
  const ClockModel m = SyncedModel();
  Bytes buf = kNtpdigRequest;
  uint32_t reply_len = 0;
  ASSERT_EQ(BuildNtpReply(buf.data(), 48, kAnchor + 2 * kS, m, &reply_len),
            NtpDrop::kNone);
  ASSERT_EQ(reply_len, 48u);
  // LI 0 VN 4 mode 4; stratum 1; poll 0 (echoed); precision -24;
  // root delay 0; root dispersion ceil((1 ms + 2 s * 50 ns/s) * 2^16) = 66;
  // refid "GPS"; reference = anchor; origin = ntpdig's transmit;
  // receive = transmit = anchor + 2 s until stamped.
  EXPECT_EQ(buf, FromHex("240100e8000000000000004247505300"
                         "e8fe6f8000000000eeb6e1229b5c8000"
                         "e8fe6f8200000000e8fe6f8200000000"));
  StampNtpTransmit(buf.data(), kAnchor + 2 * kS + kS / 4, m);
  EXPECT_EQ(Bytes(buf.begin() + 40, buf.end()), FromHex("e8fe6f8240000000"));
  EXPECT_EQ(Bytes(buf.begin(), buf.begin() + 40),
            FromHex("240100e8000000000000004247505300"
                    "e8fe6f8000000000eeb6e1229b5c8000"
                    "e8fe6f8200000000"));
}

TEST(NtpReplyTest, StaleModelAnswersUnsynchronized) {
  const ClockModel m = SyncedModel();
  // 11 s after the anchor: past max_extrapolation. LI 3, stratum 0 on the
  // wire, refid 0, root dispersion MAXDISP (16 s); the time is still served.
  EXPECT_EQ(Reply(kNtpdigRequest, kAnchor + 11 * kS, m),
            FromHex("e40000e8000000000010000000000000"
                    "e8fe6f8000000000eeb6e1229b5c8000"
                    "e8fe6f8b00000000e8fe6f8b00000000"));
}

TEST(NtpReplyTest, NeverSynchronizedModel) {
  const ClockModel never;  // default: no rate, free-running
  const NtpHeader h = Header(Reply(kNtpdigRequest, kAnchor, never));
  EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.stratum, kNtpUnsynchronizedWireStratum);
  EXPECT_EQ(h.reference_id, kNtpUnsynchronizedRefId);
  EXPECT_TRUE(h.reference_time.IsZero());
  EXPECT_EQ(h.root_dispersion, NtpShortCeilFromNanos(kNtpMaxDispersionNs));
  EXPECT_EQ(h.receive_time, UtcToNtp(UtcNs{1'700'000'000 * kS}));
}

TEST(NtpReplyTest, UnsynchronizedKeepsALargerErrorBound) {
  ClockModel m = SyncedModel();
  m.state = SyncState::kHoldoverOutOfSpec;
  m.error_bound_ns = 20 * kS;
  const NtpHeader h = Header(Reply(kNtpdigRequest, kAnchor, m));
  EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.root_dispersion, (NtpShort{20, 0}));
}

TEST(NtpReplyTest, HoldoverInSpecIsSynchronizedWithGrowingDispersion) {
  ClockModel m = SyncedModel();
  m.state = SyncState::kHoldoverInSpec;
  m.error_growth_ns_per_s = 100;
  m.max_extrapolation_ns = 2 * 3600 * kS;
  const NtpHeader h = Header(Reply(kNtpdigRequest, kAnchor + 3600 * kS, m));
  EXPECT_EQ(h.leap, NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(h.stratum, 1);
  EXPECT_EQ(h.reference_id, NtpRefId("GPS\0"));
  // 1 ms + 3600 s * 100 ns/s = 1.36 ms = 89.13 / 2^16 s, rounded up.
  EXPECT_EQ(h.root_dispersion, (NtpShort{0, 90}));
}

TEST(NtpReplyTest, HoldoverOutOfSpecAndFreerunAreUnsynchronized) {
  for (SyncState s : {SyncState::kHoldoverOutOfSpec, SyncState::kFreerun}) {
    ClockModel m = SyncedModel();
    m.state = s;
    const NtpHeader h = Header(Reply(kNtpdigRequest, kAnchor, m));
    EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized);
    EXPECT_EQ(h.stratum, 0);
  }
  ClockModel locking = SyncedModel();
  locking.state = SyncState::kLocking;
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kAnchor, locking)).stratum, 1);
}

TEST(NtpReplyTest, ModelStratumOutsideOneToFifteenIsUnsynchronized) {
  for (uint8_t stratum : {0, 16, 17, 255}) {
    ClockModel m = SyncedModel();
    m.stratum = stratum;
    const NtpHeader h = Header(Reply(kNtpdigRequest, kAnchor, m));
    EXPECT_EQ(h.stratum, 0) << int{stratum};
    EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized) << int{stratum};
    EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kOther);  // no actionable kiss
  }
  ClockModel m = SyncedModel();
  m.stratum = 15;
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kAnchor, m)).stratum, 15);
}

TEST(NtpReplyTest, RootDelayIsRoundedUp) {
  ClockModel m = SyncedModel();
  m.stratum = 2;
  m.root_delay_ns = 1'500 * kMs;  // 1.5 s = 0x0001.8000 exactly
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kAnchor, m)).root_delay,
            (NtpShort{1, 0x8000}));
  m.root_delay_ns = 1;
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kAnchor, m)).root_delay,
            (NtpShort{0, 1}));
}

TEST(NtpReplyTest, NtpShortCeil) {
  EXPECT_EQ(NtpShortCeilFromNanos(-5), (NtpShort{0, 0}));
  EXPECT_EQ(NtpShortCeilFromNanos(0), (NtpShort{0, 0}));
  EXPECT_EQ(NtpShortCeilFromNanos(1), (NtpShort{0, 1}));
  EXPECT_EQ(NtpShortCeilFromNanos(15'258), (NtpShort{0, 1}));  // < 2^-16 s
  EXPECT_EQ(NtpShortCeilFromNanos(15'259), (NtpShort{0, 2}));
  EXPECT_EQ(NtpShortCeilFromNanos(kS), (NtpShort{1, 0}));
  EXPECT_EQ(NtpShortCeilFromNanos(65'535 * kS), (NtpShort{0xffff, 0}));
  EXPECT_EQ(NtpShortCeilFromNanos(65'536 * kS - 1), (NtpShort{0xffff, 0xffff}));
  EXPECT_EQ(NtpShortCeilFromNanos(INT64_MAX), (NtpShort{0xffff, 0xffff}));
  // Never below the truncating conversion, never more than one unit above.
  for (int64_t d : {int64_t{1}, int64_t{999}, 123'456'789 * int64_t{7}}) {
    const uint32_t floor = NanosToNtpShort(d).ToU32();
    const uint32_t ceil = NtpShortCeilFromNanos(d).ToU32();
    EXPECT_GE(ceil, floor);
    EXPECT_LE(ceil, floor + 1);
  }
}

TEST(NtpReplyTest, ErrorBoundSaturatesRootDispersion) {
  ClockModel m = SyncedModel();
  m.error_bound_ns = INT64_MAX;
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kAnchor, m)).root_dispersion,
            (NtpShort{0xffff, 0xffff}));
}

// ---- Leap seconds
// --------------------------------------------------------------

// 2016-12-31T23:59:60Z inserted: TAI-UTC 36 -> 37.
constexpr int64_t kDayEndPosixS = 1'483'228'800;  // 2017-01-01T00:00:00Z
constexpr TaiNs kLeapAt{(kDayEndPosixS + 36) * kS};

ClockModel LeapModel(LeapPending leap) {
  ClockModel m = SyncedModel();
  m.tai_anchor = kLeapAt - 3600 * kS;
  m.reference_time = m.tai_anchor;
  m.max_extrapolation_ns = 2 * kSecondsPerDay * kS;
  m.utc_offset_s = 36;
  m.leap = leap;
  m.leap_at = kLeapAt;
  return m;
}

TEST(NtpReplyTest, LeapIndicatorAnnouncesPendingLeap) {
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kLeapAt - 1800 * kS,
                         LeapModel(LeapPending::kInsert)))
                .leap,
            NtpLeapIndicator::kLastMinute61);
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kLeapAt - 1800 * kS,
                         LeapModel(LeapPending::kDelete)))
                .leap,
            NtpLeapIndicator::kLastMinute59);
  // More than a day ahead: not yet announced. After it: done.
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kLeapAt - 25 * 3600 * kS,
                         LeapModel(LeapPending::kInsert)))
                .leap,
            NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(Header(Reply(kNtpdigRequest, kLeapAt + 2 * kS,
                         LeapModel(LeapPending::kInsert)))
                .leap,
            NtpLeapIndicator::kNoWarning);
}

TEST(NtpReplyTest, InsertedLeapSecondRepeats235959OnTheWire) {
  const ClockModel m = LeapModel(LeapPending::kInsert);
  const NtpHeader before = Header(Reply(kNtpdigRequest, kLeapAt - kS / 2, m));
  const NtpHeader during = Header(Reply(kNtpdigRequest, kLeapAt + kS / 2, m));
  const NtpHeader after =
      Header(Reply(kNtpdigRequest, kLeapAt + 3 * kS / 2, m));
  // 23:59:59.5 twice (as the kernel counts), then 00:00:00.5.
  EXPECT_EQ(before.receive_time, (NtpTimestamp{0xdc12c4ffu, 0x80000000u}));
  EXPECT_EQ(during.receive_time, (NtpTimestamp{0xdc12c4ffu, 0x80000000u}));
  EXPECT_EQ(after.receive_time, (NtpTimestamp{0xdc12c500u, 0x80000000u}));
  // T3 stamped across the leap uses the same model.
  Bytes buf = kNtpdigRequest;
  uint32_t len;
  ASSERT_EQ(BuildNtpReply(buf.data(), 48, kLeapAt - kS / 4, m, &len),
            NtpDrop::kNone);
  StampNtpTransmit(buf.data(), kLeapAt + 3 * kS / 4, m);
  EXPECT_EQ(Header(buf).transmit_time,
            (NtpTimestamp{0xdc12c4ffu, 0xc0000000u}));
}

// ---- Request-dependent fields
// ------------------------------------------------

TEST(NtpReplyTest, VersionIsEchoedForOneToFour) {
  const ClockModel m = SyncedModel();
  const NtpTimestamp t1{0xe8fe6f80u, 1};
  struct Case {
    uint8_t request_byte0, reply_byte0;
  };
  for (const Case& c : {Case{0x08, 0x0c}, Case{0x0b, 0x0c}, Case{0x13, 0x14},
                        Case{0x1b, 0x1c}, Case{0x23, 0x24}, Case{0xe3, 0x24}}) {
    Bytes req = ClientRequest(4, t1);
    req[0] = c.request_byte0;
    const Bytes reply = Reply(req, kAnchor, m);
    ASSERT_EQ(reply.size(), 48u) << int{c.request_byte0};
    EXPECT_EQ(reply[0], c.reply_byte0) << int{c.request_byte0};
  }
}

TEST(NtpReplyTest, PollIsEchoedWithinBounds) {
  const ClockModel m = SyncedModel();
  struct Case {
    int8_t request, reply;
  };
  for (const Case& c :
       {Case{6, 6}, Case{0, 0}, Case{-7, -7}, Case{-8, -7}, Case{-128, -7},
        Case{17, 17}, Case{18, 17}, Case{127, 17}}) {
    const Bytes reply =
        Reply(ClientRequest(4, NtpTimestamp{1, 2}, c.request), kAnchor, m);
    EXPECT_EQ(static_cast<int8_t>(reply[2]), c.reply) << int{c.request};
  }
}

TEST(NtpReplyTest, ExtensionFieldsAreStrippedAndNothingPastLenIsWritten) {
  const ClockModel m = SyncedModel();
  Bytes req = ClientRequest(4, NtpTimestamp{0x12345678u, 0x9abcdef0u});
  const uint8_t ef[28] = {0x12, 0x34, 0x00, 28};
  req.insert(req.end(), ef, ef + sizeof(ef));
  Bytes buf = req;
  buf.resize(req.size() + 64, 0x5a);  // guard bytes past len
  uint32_t reply_len;
  ASSERT_EQ(BuildNtpReply(buf.data(), static_cast<uint32_t>(req.size()),
                          kAnchor, m, &reply_len),
            NtpDrop::kNone);
  EXPECT_EQ(reply_len, 48u);
  EXPECT_EQ(Bytes(buf.begin() + 48, buf.end() - 64),
            Bytes(req.begin() + 48, req.end()));  // left as it was
  EXPECT_EQ(Bytes(buf.end() - 64, buf.end()), Bytes(64, 0x5a));
}

TEST(NtpReplyTest, DroppedRequestIsUntouched) {
  const ClockModel m = SyncedModel();
  Bytes req = ClientRequest(4, NtpTimestamp{});  // zero transmit
  const Bytes copy = req;
  NtpDrop drop;
  Reply(req, kAnchor, m, &drop);
  EXPECT_EQ(drop, NtpDrop::kZeroTransmit);
  uint32_t reply_len = 7;
  EXPECT_EQ(BuildNtpReply(req.data(), 48, kAnchor, m, &reply_len),
            NtpDrop::kZeroTransmit);
  EXPECT_EQ(reply_len, 0u);
  EXPECT_EQ(req, copy);
}

TEST(NtpReplyTest, WholeReplyMatchesInPlacePath) {
  const ClockModel m = SyncedModel();
  const TaiNs rx = kAnchor + 1234567;
  const TaiNs tx = rx + 4321;
  const NtpReplyPacket whole = BuildNtpReply(kNtpdigRequest, rx, tx, m);
  ASSERT_EQ(whole.drop, NtpDrop::kNone);
  ASSERT_EQ(whole.size, 48u);
  Bytes buf = kNtpdigRequest;
  uint32_t len;
  ASSERT_EQ(BuildNtpReply(buf.data(), 48, rx, m, &len), NtpDrop::kNone);
  StampNtpTransmit(buf.data(), tx, m);
  EXPECT_EQ(Bytes(whole.bytes.begin(), whole.bytes.end()), buf);

  const Bytes mode6 = {0x16, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  const NtpReplyPacket dropped = BuildNtpReply(mode6, rx, tx, m);
  EXPECT_EQ(dropped.drop, NtpDrop::kModeControl);
  EXPECT_EQ(dropped.size, 0u);
}

// The reply never outgrows the request and nothing past len is written, for
// any bytes: seeded random requests, many of them nearly valid.
TEST(NtpReplyTest, ReplyNeverLongerThanRequest) {
  std::mt19937 rng(20240229);
  const ClockModel m = SyncedModel();
  int answered = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t len = rng() % 400;
    Bytes buf(len + 16);
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    if (len > 0 && rng() % 2)
      buf[0] = static_cast<uint8_t>(0x23 | (rng() % 4) << 6);
    if (len >= 52 && rng() % 2) {
      buf[50] = 0;
      buf[51] = static_cast<uint8_t>((len - 48) & ~3u);
    }
    const Bytes before = buf;
    uint32_t reply_len = 12345;
    const NtpDrop drop = BuildNtpReply(buf.data(), len, kAnchor, m, &reply_len);
    ASSERT_LE(reply_len, len);
    ASSERT_EQ(Bytes(buf.begin() + len, buf.end()),
              Bytes(before.begin() + len, before.end()));
    if (drop == NtpDrop::kNone) {
      ++answered;
      ASSERT_EQ(reply_len, 48u);
    } else {
      ASSERT_EQ(reply_len, 0u);
      ASSERT_EQ(buf, before);
    }
  }
  EXPECT_GT(answered, 100);  // the generator does reach the reply path
}

// ---- Era 1 (2036 and later)
// ----------------------------------------------------

// 2036-02-07T06:28:16Z: NTP seconds wrap to 0.
constexpr UtcNs kEra1Start{2'085'978'496 * kS};

TEST(NtpReplyTest, Era1ServerAndClientAgree) {
  // 2040-01-01T00:00:00Z, era 1: NTP seconds 0x0754fd00.
  ClockModel m = SyncedModel();
  const UtcNs true_time{2'208'988'800 * kS};
  m.tai_anchor = TaiNs{true_time.value + 37 * kS};
  m.reference_time = m.tai_anchor;
  // Client 5 ms behind; 1 ms each way; 10 us in the server.
  const UtcNs t1{true_time.value - 5 * kMs};
  const Bytes req = ClientRequest(4, UtcToNtp(t1));
  EXPECT_EQ(req[40], 0x07);
  const TaiNs rx = m.tai_anchor + 1 * kMs;
  const NtpReplyPacket reply = BuildNtpReply(req, rx, rx + 10'000, m);
  ASSERT_EQ(reply.drop, NtpDrop::kNone);
  const NtpHeader h = Header(Bytes(reply.bytes.begin(), reply.bytes.end()));
  EXPECT_EQ(h.receive_time.seconds, 0x0754fd00u);
  EXPECT_EQ(h.reference_time.seconds, 0x0754fd00u);
  NtpClientSample s;
  const UtcNs t4{true_time.value + 2 * kMs + 10'000 - 5 * kMs};
  ASSERT_EQ(
      ParseNtpServerReply(reply.bytes.data(), reply.size, UtcToNtp(t1), t4, &s),
      NtpReplyStatus::kOk);
  EXPECT_EQ(s.offset_ns, 5 * kMs);
  EXPECT_EQ(s.delay_ns, 2 * kMs);
  EXPECT_EQ(s.t2, (UtcNs{true_time.value + kMs}));
}

TEST(NtpReplyTest, ReplyAcrossTheEraRollover) {
  ClockModel m = SyncedModel();
  m.tai_anchor = TaiNs{kEra1Start.value + 37 * kS - kS};
  m.reference_time = m.tai_anchor;
  const UtcNs t1{kEra1Start.value - kS / 2};
  const TaiNs rx{kEra1Start.value + 37 * kS - kS / 4};
  const TaiNs tx{kEra1Start.value + 37 * kS + kS / 4};
  const NtpReplyPacket reply =
      BuildNtpReply(ClientRequest(4, UtcToNtp(t1)), rx, tx, m);
  ASSERT_EQ(reply.drop, NtpDrop::kNone);
  const NtpHeader h = Header(Bytes(reply.bytes.begin(), reply.bytes.end()));
  EXPECT_EQ(h.origin_time, (NtpTimestamp{0xffffffffu, 0x80000000u}));
  EXPECT_EQ(h.receive_time, (NtpTimestamp{0xffffffffu, 0xc0000000u}));
  EXPECT_EQ(h.transmit_time, (NtpTimestamp{0x00000000u, 0x40000000u}));
  NtpClientSample s;
  const UtcNs t4{kEra1Start.value + kS / 2};
  ASSERT_EQ(ParseNtpServerReply(reply.bytes.data(), 48, UtcToNtp(t1), t4, &s),
            NtpReplyStatus::kOk);
  // Client and server agree (offset 0); 1 s round trip less 0.5 s held.
  EXPECT_EQ(s.offset_ns, 0);
  EXPECT_EQ(s.delay_ns, kS / 2);
}

TEST(NtpReplyTest, Era1RequestTimestampIsEchoedVerbatim) {
  const ClockModel m = SyncedModel();
  const NtpTimestamp t1{0x00000010u, 0xdeadbeefu};  // 2036-02-07T06:28:32Z
  const NtpHeader h = Header(Reply(ClientRequest(3, t1), kAnchor, m));
  EXPECT_EQ(h.origin_time, t1);
  EXPECT_EQ(h.version, 3);
}

}  // namespace
}  // namespace ntp_reply_test
}  // namespace zg::core
