// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client.h"

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_format.h"
#include "gtest/gtest.h"
#include "tests/util/paths.h"
#include "tests/util/pcap_frames.h"

namespace zg::core {
namespace ntp_client_test {
namespace {

using Bytes = std::vector<uint8_t>;
constexpr int64_t kS = kNanosPerSecond;
constexpr int64_t kUs = 1'000;

constexpr UtcNs kTrue{1'700'000'000 * kS};  // the true time of the request

ClockModel SyncedModel() {
  ClockModel m;
  m.tai_anchor = TaiNs{kTrue.value + 37 * kS};
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 100;
  m.max_extrapolation_ns = 10 * kS;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  m.reference_id = NtpRefId("PPS\0");
  m.reference_time = m.tai_anchor;
  return m;
}
TaiNs Tai(UtcNs t) { return TaiNs{t.value + 37 * kS}; }

Bytes Request(uint8_t version, NtpTimestamp t1) {
  Bytes b(48);
  BuildNtpClientRequest(b.data(), version, 6, t1);
  return b;
}

struct Exchange {
  NtpTimestamp t1_wire;
  Bytes reply;
};
// A client `client_behind_ns` behind true time sends at true time kTrue; the
// request takes `one_way_ns` and the server holds it `hold_ns`. The caller
// picks the client's receive time t4.
Exchange Exchanged(const ClockModel& m, int64_t client_behind_ns,
                   int64_t one_way_ns, int64_t hold_ns) {
  Exchange e;
  e.t1_wire = UtcToNtp(kTrue - client_behind_ns);
  const TaiNs rx = Tai(kTrue + one_way_ns);
  const NtpReplyPacket r =
      BuildNtpReply(Request(4, e.t1_wire), rx, rx + hold_ns, m);
  EXPECT_EQ(r.drop, NtpDrop::kNone);
  e.reply.assign(r.bytes.begin(), r.bytes.begin() + r.size);
  return e;
}

TEST(NtpClientTest, RequestKnownAnswer) {
  Bytes v3 = Request(3, NtpTimestamp{0xe8fe6f80u, 0x80000000u});
  EXPECT_EQ(v3[0], 0x1b);  // LI 0, VN 3, mode 3
  EXPECT_EQ(v3[2], 6);
  EXPECT_EQ(Bytes(v3.begin() + 40, v3.end()),
            (Bytes{0xe8, 0xfe, 0x6f, 0x80, 0x80, 0, 0, 0}));
  EXPECT_EQ(Bytes(v3.begin() + 3, v3.begin() + 40), Bytes(37, 0));
  EXPECT_EQ(Request(4, NtpTimestamp{1, 0})[0], 0x23);
  EXPECT_EQ(ValidateNtpRequest(v3.data(), 48).drop, NtpDrop::kNone);
}

TEST(NtpClientTest, OffsetAndDelayFromOurServer) {
  const ClockModel m = SyncedModel();
  const int64_t behind = 3'000 * kUs, one_way = 250 * kUs, hold = 7 * kUs;
  const Exchange e = Exchanged(m, behind, one_way, hold);
  const UtcNs t4 = kTrue + 2 * one_way + hold - behind;
  NtpClientSample s;
  ASSERT_EQ(ParseNtpServerReply(e.reply.data(), 48, e.t1_wire, t4, &s),
            NtpReplyStatus::kOk);
  EXPECT_EQ(s.offset_ns, behind);
  EXPECT_EQ(s.delay_ns, 2 * one_way);
  EXPECT_EQ(s.t1, kTrue - behind);
  EXPECT_EQ(s.t2, kTrue + one_way);
  EXPECT_EQ(s.t3, kTrue + one_way + hold);
  EXPECT_EQ(s.t4, t4);
  EXPECT_EQ(s.header.stratum, 1);
  EXPECT_EQ(s.kiss, NtpKiss::kNotKiss);
}

TEST(NtpClientTest, AsymmetryShowsAsHalfTheDifference) {
  const ClockModel m = SyncedModel();
  const Exchange e = Exchanged(m, 0, 100 * kUs, 0);
  // Return path 40 us longer than the outbound one.
  const UtcNs t4 = kTrue + 240 * kUs;
  NtpClientSample s;
  ASSERT_EQ(ParseNtpServerReply(e.reply.data(), 48, e.t1_wire, t4, &s),
            NtpReplyStatus::kOk);
  EXPECT_EQ(s.offset_ns, -20 * kUs);
  EXPECT_EQ(s.delay_ns, 240 * kUs);
}

TEST(NtpClientTest, ClientAheadGivesNegativeOffset) {
  const ClockModel m = SyncedModel();
  const Exchange e = Exchanged(m, -1 * kS, 10 * kUs, 0);
  NtpClientSample s;
  ASSERT_EQ(ParseNtpServerReply(e.reply.data(), 48, e.t1_wire,
                                kTrue + 20 * kUs + kS, &s),
            NtpReplyStatus::kOk);
  EXPECT_EQ(s.offset_ns, -kS);
  EXPECT_EQ(s.delay_ns, 20 * kUs);
}

TEST(NtpClientTest, Statuses) {
  const ClockModel m = SyncedModel();
  const Exchange e = Exchanged(m, 0, 10 * kUs, 0);
  const UtcNs t4 = kTrue + 20 * kUs;
  NtpClientSample s;
  EXPECT_EQ(ParseNtpServerReply(e.reply.data(), 47, e.t1_wire, t4, &s),
            NtpReplyStatus::kTooShort);

  Bytes r = e.reply;
  r[0] = 0x04;  // version 0
  EXPECT_EQ(ParseNtpServerReply(r.data(), 48, e.t1_wire, t4, &s),
            NtpReplyStatus::kBadVersion);
  r[0] = 0x23;  // a client request reflected back
  EXPECT_EQ(ParseNtpServerReply(r.data(), 48, e.t1_wire, t4, &s),
            NtpReplyStatus::kNotServerMode);

  NtpTimestamp other = e.t1_wire;
  other.fraction ^= 1;
  EXPECT_EQ(ParseNtpServerReply(e.reply.data(), 48, other, t4, &s),
            NtpReplyStatus::kOriginMismatch);

  r = e.reply;
  std::fill(r.begin() + 32, r.begin() + 40, 0);  // receive timestamp
  EXPECT_EQ(ParseNtpServerReply(r.data(), 48, e.t1_wire, t4, &s),
            NtpReplyStatus::kZeroTimestamp);

  EXPECT_EQ(
      ParseNtpServerReply(e.reply.data(), 48, e.t1_wire, UtcNs{INT64_MAX}, &s),
      NtpReplyStatus::kClockOutOfRange);
  EXPECT_EQ(
      ParseNtpServerReply(e.reply.data(), 48, e.t1_wire, UtcNs{INT64_MIN}, &s),
      NtpReplyStatus::kClockOutOfRange);
}

TEST(NtpClientTest, KissOfDeathIsReported) {
  Bytes req = Request(4, NtpTimestamp{0x11111111u, 0x22222222u});
  const NtpRequestCheck c = ValidateNtpRequest(req.data(), 48);
  ASSERT_EQ(c.drop, NtpDrop::kNone);
  WriteNtpKissOfDeath(req.data(), c, kNtpKissRate, 8);
  NtpClientSample s;
  EXPECT_EQ(
      ParseNtpServerReply(req.data(), 48,
                          NtpTimestamp{0x11111111u, 0x22222222u}, kTrue, &s),
      NtpReplyStatus::kKissOfDeath);
  EXPECT_EQ(s.kiss, NtpKiss::kRate);
  EXPECT_EQ(s.header.poll_log2, 8);
}

TEST(NtpClientTest, UnsynchronizedServerStillGivesTimes) {
  ClockModel m = SyncedModel();
  m.state = SyncState::kHoldoverOutOfSpec;
  const Exchange e = Exchanged(m, 0, 10 * kUs, 0);
  NtpClientSample s;
  ASSERT_EQ(
      ParseNtpServerReply(e.reply.data(), 48, e.t1_wire, kTrue + 20 * kUs, &s),
      NtpReplyStatus::kUnsynchronized);
  EXPECT_EQ(s.kiss, NtpKiss::kOther);  // stratum 0, refid 0: not a kiss
  EXPECT_EQ(s.delay_ns, 20 * kUs);
  EXPECT_EQ(s.offset_ns, 0);
}

TEST(NtpClientTest, StatusNamesAreUnique) {
  std::set<std::string> names;
  const size_t n = static_cast<size_t>(NtpReplyStatus::kCount);
  for (size_t i = 0; i < n; ++i) {
    names.insert(NtpReplyStatusName(static_cast<NtpReplyStatus>(i)));
  }
  EXPECT_EQ(names.size(), n);
  EXPECT_EQ(names.count("unknown"), 0u);
}

// Our client reads chronyd's real replies (tests/data/): each reply is
// matched to its request by the client's UDP port, and t4 is the capture
// time of the reply on the client's interface (same host clock as the
// server's). Basic-mode replies are accepted; ntpdig's real transmit
// timestamps give an offset near zero and a small positive delay (chronyd -Q
// sends a random transmit timestamp, so its offsets mean nothing); the
// interleaved reply is refused as not answering our transmit timestamp.
TEST(NtpClientTest, ReadsChronydRepliesFromTheFixtures) {
  struct Fixture {
    const char* file;
    bool real_t1;  // ntpdig: the transmit timestamp is the send time
    std::vector<NtpReplyStatus> statuses;
  };
  const NtpReplyStatus kOk = NtpReplyStatus::kOk;
  const std::vector<Fixture> fixtures = {
      {"ntp_ntpdig_v4.pcap", true, {kOk, kOk}},
      {"ntp_ntpdig_v6.pcap", true, {kOk, kOk}},
      {"ntp_chronyd_client_v4.pcap", false, {kOk, kOk}},
      {"ntp_chronyd_client_v6.pcap", false, {kOk, kOk}},
      {"ntp_chronyd_xleave_v4.pcap",
       false,
       {kOk, kOk, NtpReplyStatus::kOriginMismatch}}};
  for (const Fixture& fx : fixtures) {
    absl::StatusOr<std::vector<testutil::ClassifiedFrame>> frames =
        testutil::ClassifyPcapFile(testutil::TestDataPath(fx.file),
                                   testutil::PeerPairEndpoints());
    ASSERT_TRUE(frames.ok()) << frames.status();
    std::vector<NtpReplyStatus> statuses;
    for (const testutil::ClassifiedFrame& reply : *frames) {
      if (reply.info.src_port != kNtpPort) continue;
      const testutil::ClassifiedFrame* request = nullptr;
      for (const testutil::ClassifiedFrame& f : *frames) {
        if (f.record < reply.record && f.info.src_port == reply.info.dst_port) {
          request = &f;  // the latest one before the reply
        }
      }
      ASSERT_NE(request, nullptr) << fx.file;
      NtpHeader sent;
      ASSERT_TRUE(ParseNtpHeader(request->Payload().data(),
                                 request->info.payload_len, &sent));
      NtpClientSample s;
      statuses.push_back(ParseNtpServerReply(
          reply.Payload().data(), reply.info.payload_len, sent.transmit_time,
          UtcNs{reply.timestamp_ns}, &s));
      if (statuses.back() == kOk && fx.real_t1) {
        EXPECT_LT(std::llabs(s.offset_ns), 100'000'000) << fx.file;
        EXPECT_GT(s.delay_ns, 0) << fx.file;
        EXPECT_LT(s.delay_ns, 1'000'000'000) << fx.file;
      }
    }
    EXPECT_EQ(statuses, fx.statuses) << fx.file;
  }
}

}  // namespace
}  // namespace ntp_client_test
}  // namespace zg::core
