// SPDX-License-Identifier: Apache-2.0
// NTP packets our serializers build, dissected by tshark with checksum
// validation on: no malformed marker or expert warning, and every field
// shows what we set.
//  - Client requests (BuildNtpClientRequest in a BuildUdpFrame frame), NTPv3
//    and v4, over IPv4 and IPv6.
//  - Server replies built as the data plane builds them: the request frame
//    classified (ClassifyFrame), answered in place (BuildNtpReply or
//    WriteNtpKissOfDeath), addressed (PrepareUdpReply, FinaliseUdpChecksum),
//    and T3 written late (StampNtpTransmit + UpdateUdpChecksum). Answered:
//    our own v3/v4 requests over both IP versions with a synchronised model
//    (in 2023 and in NTP era 1, 2040), an unsynchronised one, a pending
//    inserted and deleted leap second, and a RATE kiss-o'-death; and the real
//    ntpdig and chronyd requests of tests/data/ (v4 and v6).
// Timestamps are checked byte for byte (tshark -x) and as the calendar time
// tshark renders. One tshark run for all frames.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/local_addresses.h"
#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/util/hex.h"
#include "tests/util/paths.h"
#include "tests/util/pcap_frames.h"
#include "tests/util/tshark.h"

namespace zg::core::testing {
namespace ntp_tshark_test {
namespace {

using testutil::DissectedPacket;
using testutil::FieldValues;
using testutil::FrameCheck;

constexpr int64_t kS = kNanosPerSecond;
// Receive time of the requests: 2023-11-14T22:13:20.123456789Z (TAI-UTC
// 37 s), or in NTP era 1: 2040-01-01T00:00:00.987654321Z. Replies leave
// kHoldNs later.
constexpr TaiNs kRx{(1'700'000'000 + 37) * kS + 123'456'789};
constexpr TaiNs kRxEra1{(2'208'988'800 + 37) * kS + 987'654'321};
constexpr int64_t kHoldNs = 25'000;
constexpr int8_t kPoll = 6;

std::string Dec(int64_t v) { return absl::StrCat(v); }

// A stratum-1 GPS model, locked, 0.25 ms root delay, 1 ms error bound at
// an anchor 2 s before `rx` growing 50 ns/s.
ClockModel Synced(TaiNs rx = kRx) {
  ClockModel m;
  m.tai_anchor = rx - 2 * kS;
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 1'000'000;
  m.error_growth_ns_per_s = 50;
  m.max_extrapolation_ns = 10 * kS;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  m.precision_log2 = -24;
  m.reference_id = NtpRefId("GPS\0");
  m.root_delay_ns = 250'000;
  m.reference_time = m.tai_anchor;
  return m;
}
ClockModel Unsynced() {
  ClockModel m = Synced();
  m.state = SyncState::kHoldoverOutOfSpec;
  return m;
}
ClockModel Leap(LeapPending leap) {
  ClockModel m = Synced();
  m.leap = leap;
  m.leap_at = kRx + 3600 * kS;  // within the last day before the leap
  return m;
}

// tshark shows an NTP timestamp as "Nov 14, 2023 22:13:20.123456789 UTC"
// (era 1 when the top bit of the seconds is clear, RFC 4330), "NULL" for 0,
// and with -x its eight bytes as "<field>_raw".
absl::Status NtpTimeShown(const DissectedPacket& p, const std::string& field,
                          NtpTimestamp want) {
  uint8_t wire[8];
  StoreNtpTimestamp(wire, want);
  const std::string raw = p.Field(field + "_raw").value_or("absent");
  const std::string text = p.Field(field).value_or("absent");
  const auto bad = [&](absl::string_view why) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, " is \"", text, "\" (", raw, "), want ",
                     testutil::ToHex(wire), ": ", why));
  };
  if (raw != testutil::ToHex(wire)) return bad("other bytes");
  if (want.IsZero()) return text == "NULL" ? absl::OkStatus() : bad("not NULL");
  const int64_t ntp_s = int64_t{want.seconds} +
                        ((want.seconds & 0x80000000u) ? 0 : int64_t{1} << 32);
  const std::string date = absl::FormatTime(
      "%b %e, %Y %H:%M:%S",
      absl::FromUnixSeconds(ntp_s - kNtpUnixEpochOffsetSeconds),
      absl::UTCTimeZone());
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits('.', 1));
  int64_t ns = -1;
  if (parts.size() != 2 || parts[0] != date ||
      !absl::ConsumeSuffix(&parts[1], " UTC") ||
      !absl::SimpleAtoi(parts[1], &ns)) {
    return bad(absl::StrCat("not ", date, ".<ns> UTC"));
  }
  // tshark truncates the fraction to nanoseconds; we round.
  if (std::llabs(ns - static_cast<int64_t>(NtpFractionToNanos(want.fraction))) >
      1) {
    return bad("other nanoseconds");
  }
  return absl::OkStatus();
}

// The header fields of an NTP packet as tshark shows them.
struct NtpWant {
  int li = 0, vn = 4, mode = 4, stratum = 0, poll = 0, precision = 0;
  NtpShort root_delay, root_dispersion;
  std::string refid = "00:00:00:00";  // the four bytes, as tshark shows them
  NtpTimestamp reftime, org, rec, xmt;
};

FrameCheck NtpCheck(std::string name, std::vector<uint8_t> frame,
                    FieldValues addressing, const NtpWant& w) {
  FieldValues want = std::move(addressing);
  want.insert(want.end(),
              {{"ntp.flags.li", Dec(w.li)},
               {"ntp.flags.vn", Dec(w.vn)},
               {"ntp.flags.mode", Dec(w.mode)},
               {"ntp.stratum", Dec(w.stratum)},
               {"ntp.ppoll", Dec(static_cast<uint8_t>(w.poll))},
               {"ntp.precision", Dec(static_cast<uint8_t>(w.precision))},
               // 16.16 seconds, shown as the 32-bit value.
               {"ntp.rootdelay", Dec(w.root_delay.ToU32())},
               {"ntp.rootdispersion", Dec(w.root_dispersion.ToU32())},
               {"ntp.refid", w.refid}});
  const auto extra = [w](const DissectedPacket& p) -> absl::Status {
    for (const auto& [field, value] :
         {std::pair{"ntp.reftime", w.reftime}, std::pair{"ntp.org", w.org},
          std::pair{"ntp.rec", w.rec}, std::pair{"ntp.xmt", w.xmt}}) {
      if (absl::Status s = NtpTimeShown(p, field, value); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  return {std::move(name), std::move(frame), std::move(want), extra};
}

FieldValues UdpAddressing(const FrameInfo& f) {
  FieldValues v = {{"udp.srcport", Dec(f.src_port)},
                   {"udp.dstport", Dec(f.dst_port)},
                   {"udp.checksum.status", "1"}};
  if (f.ip_version == 4) {
    v.insert(v.end(), {{"ip.src", f.src_ipv4.ToString()},
                       {"ip.dst", f.dst_ipv4.ToString()},
                       {"ip.checksum.status", "1"}});
  } else {
    v.insert(v.end(), {{"ipv6.src", f.src_ipv6.ToString()},
                       {"ipv6.dst", f.dst_ipv6.ToString()}});
  }
  return v;
}

NtpTimestamp ToNtp(TaiNs t, const ClockModel& m) {
  return UtcToNtp(m.TaiToUtc(t));
}

// How a reply to `request` (as parsed) under `m` must read.
NtpWant ReplyWant(const NtpHeader& request, const ClockModel& m, TaiNs rx) {
  const bool synced = m.IsSynchronized(rx);
  NtpWant w;
  w.li = static_cast<int>(m.NtpLeapAt(rx));
  w.vn = request.version;
  w.stratum = synced ? m.stratum : 0;
  w.poll = std::clamp<int>(request.poll_log2, kNtpReplyMinPollLog2,
                           kNtpReplyMaxPollLog2);
  w.precision = m.precision_log2;
  w.root_delay = NtpShortCeilFromNanos(m.root_delay_ns);
  const int64_t bound = m.ErrorBoundNs(rx);
  w.root_dispersion =
      NtpShortCeilFromNanos(synced ? bound : std::max(bound, 16 * kS));
  w.refid = synced ? "47:50:53:00" : "00:00:00:00";  // "GPS\0"
  w.reftime = ToNtp(m.reference_time, m);
  w.org = request.transmit_time;
  w.rec = ToNtp(rx, m);
  w.xmt = ToNtp(rx + kHoldNs, m);
  return w;
}

// Answers the request frame `f` in place as the data plane does; returns the
// reply frame and describes it in *reply.
std::vector<uint8_t> Answer(std::vector<uint8_t> f, const LocalAddresses& local,
                            const ClockModel* model, TaiNs rx,
                            FrameInfo* reply) {
  const FrameInfo req = ClassifyFrame(f.data(), f.size(), local);
  EXPECT_EQ(req.kind, FrameKind::kNtp) << FrameDropName(req.drop);
  uint8_t* payload = f.data() + req.payload_offset;
  uint32_t len = 0;
  if (model == nullptr) {
    const NtpRequestCheck check = ValidateNtpRequest(payload, req.payload_len);
    EXPECT_EQ(check.drop, NtpDrop::kNone);
    len = WriteNtpKissOfDeath(payload, check, kNtpKissRate, 8);
  } else {
    EXPECT_EQ(BuildNtpReply(payload, req.payload_len, rx, *model, &len),
              NtpDrop::kNone);
  }
  const uint32_t n =
      PrepareUdpReply(f.data(), req, local, static_cast<uint16_t>(len), reply);
  EXPECT_NE(n, 0u);
  f.resize(n);
  FinaliseUdpChecksum(f.data(), *reply);
  if (model != nullptr) {  // T3, written last
    uint8_t* t3 = f.data() + reply->payload_offset + kNtpOffsetTransmitTime;
    uint8_t old_t3[8];
    std::memcpy(old_t3, t3, 8);
    StampNtpTransmit(f.data() + reply->payload_offset, rx + kHoldNs, *model);
    UpdateUdpChecksum(f.data(), *reply, kNtpOffsetTransmitTime, old_t3, t3, 8);
  }
  return f;
}

// A client request from the peer (port 40000) to us, built by
// BuildNtpClientRequest in a BuildUdpFrame frame.
std::vector<uint8_t> ClientRequestFrame(uint8_t version, bool v6,
                                        NtpTimestamp t1, FrameInfo* info) {
  UdpFrameSpec spec;
  spec.src_mac = kPeerMac;
  spec.dst_mac = kOurMac;
  spec.src_ip = v6 ? IpAddress::V6(kPeer6) : IpAddress::V4(kPeer4);
  spec.dst_ip = v6 ? IpAddress::V6(kOur6) : IpAddress::V4(kOur4);
  spec.src_port = 40000;
  spec.dst_port = kNtpPort;
  std::vector<uint8_t> f(200);
  const uint32_t n = BuildUdpFrame(f.data(), f.size(), spec, 48, info);
  EXPECT_NE(n, 0u);
  BuildNtpClientRequest(f.data() + info->payload_offset, version, kPoll, t1);
  FinaliseUdpChecksum(f.data(), *info);
  f.resize(n);
  return f;
}

NtpHeader Parse(const std::vector<uint8_t>& f, const FrameInfo& info) {
  NtpHeader h;
  EXPECT_TRUE(
      ParseNtpHeader(f.data() + info.payload_offset, info.payload_len, &h));
  return h;
}

void AddOwnRequestsAndReplies(std::vector<FrameCheck>& out) {
  const LocalAddresses ours = OurAddresses();
  struct Model {
    const char* name;
    ClockModel model;
    TaiNs rx = kRx;
  };
  const std::vector<Model> models = {
      {"synced", Synced()},
      {"unsynchronised", Unsynced()},
      {"leap insert pending", Leap(LeapPending::kInsert)},
      {"leap delete pending", Leap(LeapPending::kDelete)},
      {"synced in era 1 (2040)", Synced(kRxEra1), kRxEra1}};
  int n = 0;
  for (const uint8_t version : {3, 4}) {
    for (const bool v6 : {false, true}) {
      const std::string what =
          absl::StrCat("NTPv", version, v6 ? " IPv6" : " IPv4");
      const NtpTimestamp t1{0xE8F5A1B3u, 0x01020304u + 0x100u * n++};
      FrameInfo info;
      const std::vector<uint8_t> req =
          ClientRequestFrame(version, v6, t1, &info);
      NtpWant w;
      w.vn = version;
      w.mode = 3;
      w.poll = kPoll;
      w.xmt = t1;
      out.push_back(
          NtpCheck(what + " client request", req, UdpAddressing(info), w));
      const NtpHeader request = Parse(req, info);
      for (const Model& m : models) {
        FrameInfo reply;
        std::vector<uint8_t> f = Answer(req, ours, &m.model, m.rx, &reply);
        out.push_back(NtpCheck(absl::StrCat(what, " reply, ", m.name), f,
                               UdpAddressing(reply),
                               ReplyWant(request, m.model, m.rx)));
      }
      // RATE kiss-o'-death: LI 3, stratum 0, refid "RATE", poll raised to 8,
      // every timestamp the client's own.
      FrameInfo reply;
      std::vector<uint8_t> f = Answer(req, ours, nullptr, kRx, &reply);
      NtpWant kod;
      kod.li = 3;
      kod.vn = version;
      kod.poll = 8;
      kod.refid = "52:41:54:45";  // "RATE"
      kod.org = kod.rec = kod.xmt = t1;
      out.push_back(
          NtpCheck(what + " RATE kiss", f, UdpAddressing(reply), kod));
    }
  }
}

// Our synchronised reply to each real client's first request.
void AddRealClientReplies(std::vector<FrameCheck>& out) {
  const std::vector<LocalAddresses> ends = testutil::PeerPairEndpoints();
  for (const char* file :
       {"ntp_ntpdig_v4.pcap", "ntp_ntpdig_v6.pcap",
        "ntp_chronyd_client_v4.pcap", "ntp_chronyd_client_v6.pcap"}) {
    absl::StatusOr<std::vector<testutil::ClassifiedFrame>> frames =
        testutil::ClassifyPcapFile(testutil::TestDataPath(file), ends);
    ASSERT_TRUE(frames.ok()) << frames.status();
    const testutil::ClassifiedFrame& req = frames->front();
    ASSERT_EQ(req.info.kind, FrameKind::kNtp) << file;
    const NtpHeader request = Parse(req.frame, req.info);
    const ClockModel m = Synced();
    FrameInfo reply;
    std::vector<uint8_t> f = Answer(req.frame, ends[0], &m, kRx, &reply);
    out.push_back(NtpCheck(absl::StrCat("reply to ", file), f,
                           UdpAddressing(reply), ReplyWant(request, m, kRx)));
  }
}

TEST(NtpTsharkTest, RequestsAndRepliesDissectCleanWithEveryFieldAsSet) {
  if (!testutil::TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  std::vector<FrameCheck> checks;
  AddOwnRequestsAndReplies(checks);
  AddRealClientReplies(checks);
  ASSERT_EQ(checks.size(), 4u * 7 + 4);
  testutil::TsharkOptions options;
  options.extra_args = {"-x"};  // <field>_raw: the bytes of each field
  const absl::Status s = testutil::DissectAndCheck(checks, options);
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace ntp_tshark_test
}  // namespace zg::core::testing
