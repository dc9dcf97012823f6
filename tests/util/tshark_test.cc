// SPDX-License-Identifier: Apache-2.0
// Proves the tshark harness reports what tshark sees: a hand-built good NTP
// request is clean and decoded field by field; the same frame with a broken
// UDP checksum yields exactly one error (Checksum) and nothing else; a
// truncated one is marked malformed; DissectAndCheck reports each frame that
// is not clean or shows other values than asked, by name. The frames are built
// here byte by byte, independently of core/'s serializers.
#include "tests/util/tshark.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::testutil {
namespace tshark_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

// RFC 1071 one's-complement sum, folded (not inverted).
uint32_t Sum16(const std::vector<uint8_t>& b, size_t from, size_t to,
               uint32_t sum = 0) {
  for (size_t i = from; i < to; i += 2) {
    sum += (b[i] << 8) | (i + 1 < to ? b[i + 1] : 0);
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return sum;
}

void Put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v >> 8);
  b[at + 1] = static_cast<uint8_t>(v);
}

// 02:00:00:00:00:02 10.0.0.2:40000 -> 02:00:00:00:00:01 10.0.0.1:123.
// Returns the frame; *udp_checksum gets the correct UDP checksum.
std::vector<uint8_t> Udp4Frame(const std::vector<uint8_t>& payload,
                               uint16_t dst_port, uint16_t* udp_checksum) {
  std::vector<uint8_t> f = {0x02, 0, 0, 0, 0,    0x01, 0x02,
                            0,    0, 0, 0, 0x02, 0x08, 0x00};
  const size_t ip = f.size();
  const uint16_t udp_len = static_cast<uint16_t>(8 + payload.size());
  // Sized once and filled in place (an insert after a resize makes GCC 12 at
  // -O3 report a false -Warray-bounds inside vector::_M_range_insert).
  f.resize(ip + 20 + 8 + payload.size());
  f[ip] = 0x45;
  Put16(f, ip + 2, static_cast<uint16_t>(20 + udp_len));
  Put16(f, ip + 4, 0x1234);  // id
  Put16(f, ip + 6, 0x4000);  // DF
  f[ip + 8] = 64;            // TTL
  f[ip + 9] = 17;            // UDP
  const uint8_t addrs[8] = {10, 0, 0, 2, 10, 0, 0, 1};
  std::copy(addrs, addrs + 8, f.begin() + ip + 12);
  Put16(f, ip + 10, static_cast<uint16_t>(~Sum16(f, ip, ip + 20)));
  const size_t udp = ip + 20;
  Put16(f, udp, 40000);
  Put16(f, udp + 2, dst_port);
  Put16(f, udp + 4, udp_len);
  std::copy(payload.begin(), payload.end(), f.begin() + udp + 8);
  // Pseudo-header: addresses, protocol, UDP length.
  uint32_t sum = Sum16(f, ip + 12, ip + 20, 17 + udp_len);
  sum = Sum16(f, udp, f.size(), sum);
  uint16_t c = static_cast<uint16_t>(~sum);
  if (c == 0) c = 0xffff;
  Put16(f, udp + 6, c);
  *udp_checksum = c;
  return f;
}

// A 48-byte NTPv4 client request: LI 0, VN 4, mode 3, poll 6, precision -20,
// transmit timestamp 0xe9000000.12345678.
std::vector<uint8_t> NtpRequest() {
  std::vector<uint8_t> ntp(48, 0);
  ntp[0] = 0x23;
  ntp[2] = 6;
  ntp[3] = 0xec;
  const uint8_t xmt[8] = {0xe9, 0, 0, 0, 0x12, 0x34, 0x56, 0x78};
  std::copy(xmt, xmt + 8, ntp.begin() + 40);
  return ntp;
}

class TsharkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  }
};

TEST_F(TsharkTest, GoodNtpRequestIsCleanAndDecoded) {
  uint16_t csum;
  absl::StatusOr<DissectedPacket> p =
      DissectFrame(Udp4Frame(NtpRequest(), 123, &csum));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->frame_number, 1u);
  EXPECT_THAT(p->protocols,
              ElementsAre("eth", "ethertype", "ip", "udp", "ntp"));
  EXPECT_EQ(p->Field("ntp.flags.li"), "0");
  EXPECT_EQ(p->Field("ntp.flags.vn"), "4");
  EXPECT_EQ(p->Field("ntp.flags.mode"), "3");
  EXPECT_EQ(p->Field("ntp.ppoll"), "6");
  EXPECT_EQ(p->Field("ntp.precision"), "236");  // tshark 4.0 shows it unsigned
  EXPECT_EQ(p->Field("ip.src"), "10.0.0.2");
  EXPECT_EQ(p->Field("udp.checksum"), absl::StrFormat("0x%04x", csum));
  EXPECT_EQ(p->Field("udp.checksum.status"), "1");  // verified good
  EXPECT_EQ(p->Field("ip.checksum.status"), "1");
  EXPECT_THAT(p->FieldValues("udp.port"), ElementsAre("40000", "123"));
  EXPECT_FALSE(p->Field("ntp.no_such_field").has_value());
  EXPECT_FALSE(p->malformed);
  EXPECT_THAT(p->ExpertAtLeast(ExpertSeverity::kWarning), IsEmpty());
  EXPECT_TRUE(p->Clean()) << p->Summary();
  EXPECT_TRUE(CheckClean({*p}).ok());
}

TEST_F(TsharkTest, BadUdpChecksumIsExactlyOneChecksumError) {
  uint16_t csum;
  std::vector<uint8_t> frame = Udp4Frame(NtpRequest(), 123, &csum);
  frame[14 + 20 + 6] ^= 0x5a;  // corrupt the UDP checksum
  absl::StatusOr<DissectedPacket> p = DissectFrame(frame);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->Clean());
  EXPECT_FALSE(p->malformed);
  EXPECT_EQ(p->Field("udp.checksum.status"), "0");  // verified bad
  std::vector<ExpertItem> bad = p->ExpertAtLeast(ExpertSeverity::kWarning);
  ASSERT_THAT(bad, SizeIs(1)) << p->Summary();
  EXPECT_EQ(bad[0].severity, ExpertSeverity::kError);
  EXPECT_EQ(bad[0].group, "Checksum");
  EXPECT_EQ(bad[0].name, "udp.checksum.bad");
  EXPECT_EQ(bad[0].layer, "udp");
  EXPECT_EQ(bad[0].message,
            absl::StrFormat("Bad checksum [should be 0x%04x]", csum));
  // The NTP payload above it still decodes.
  EXPECT_EQ(p->Field("ntp.flags.mode"), "3");
  absl::Status clean = CheckClean({*p});
  EXPECT_THAT(std::string(clean.message()),
              HasSubstr("error/Checksum in udp: Bad checksum"));

  // The error comes from the validation preference, not from elsewhere.
  absl::StatusOr<DissectedPacket> lax =
      DissectFrame(frame, {.check_checksums = false});
  ASSERT_TRUE(lax.ok()) << lax.status();
  EXPECT_TRUE(lax->Clean()) << lax->Summary();
}

TEST_F(TsharkTest, TruncatedNtpIsMalformed) {
  uint16_t csum;
  std::vector<uint8_t> ntp = NtpRequest();
  ntp.resize(30);  // cuts the originate timestamp in half
  absl::StatusOr<DissectedPacket> p = DissectFrame(Udp4Frame(ntp, 123, &csum));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->malformed);
  EXPECT_FALSE(p->Clean());
  std::vector<ExpertItem> bad = p->ExpertAtLeast(ExpertSeverity::kError);
  ASSERT_THAT(bad, SizeIs(1)) << p->Summary();
  EXPECT_EQ(bad[0].group, "Malformed");
  EXPECT_EQ(bad[0].layer, "_ws.malformed");
  EXPECT_THAT(bad[0].message, HasSubstr("Malformed Packet"));
}

TEST_F(TsharkTest, DissectsSeveralFramesInOrderAndPtpOnItsPort) {
  // A PTPv2 Delay_Req (messageType 1, 44 bytes) to UDP 319, sequenceId 0x0102.
  std::vector<uint8_t> ptp(44, 0);
  ptp[0] = 0x01;  // transportSpecific 0, messageType Delay_Req
  ptp[1] = 0x02;  // versionPTP 2
  ptp[3] = 44;    // messageLength
  ptp[30] = 0x01;
  ptp[31] = 0x02;
  ptp[32] = 0x01;  // controlField: Delay_Req
  ptp[33] = 0x7f;  // logMessageInterval
  uint16_t csum;
  absl::StatusOr<std::vector<DissectedPacket>> pkts = DissectFrames(
      {Udp4Frame(NtpRequest(), 123, &csum), Udp4Frame(ptp, 319, &csum)});
  ASSERT_TRUE(pkts.ok()) << pkts.status();
  ASSERT_THAT(*pkts, SizeIs(2));
  EXPECT_TRUE((*pkts)[0].HasProtocol("ntp"));
  EXPECT_EQ((*pkts)[1].frame_number, 2u);
  EXPECT_TRUE((*pkts)[1].HasProtocol("ptp"));
  EXPECT_EQ((*pkts)[1].Field("ptp.v2.messagetype"), "0x01");
  EXPECT_EQ((*pkts)[1].Field("ptp.v2.sequenceid"), "258");
  EXPECT_TRUE(CheckClean(*pkts).ok()) << CheckClean(*pkts);
}

TEST_F(TsharkTest, DissectAndCheckNamesEveryFrameThatDiffers) {
  uint16_t csum;
  const std::vector<uint8_t> good = Udp4Frame(NtpRequest(), 123, &csum);
  std::vector<uint8_t> corrupt = good;
  corrupt[14 + 20 + 6] ^= 0x5a;  // the UDP checksum
  const auto from_10_0_0_2 = [](const DissectedPacket& p) {
    return p.Field("ip.src") == "10.0.0.2" ? absl::OkStatus()
                                           : absl::InternalError("ip.src");
  };
  const std::vector<FrameCheck> checks = {
      {"as built",
       good,
       {{"ntp.flags.mode", "3"}, {"ntp.ppoll", "6"}},
       from_10_0_0_2},
      {"wrong stratum", good, {{"ntp.stratum", "1"}, {"ntp.nosuch", "x"}}},
      {"bad checksum", corrupt, {{"ntp.flags.mode", "3"}}},
      {"extra says no",
       good,
       {},
       [](const DissectedPacket&) { return absl::InternalError("no!"); }},
  };
  const absl::Status s = DissectAndCheck(checks);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_THAT(m, HasSubstr("3 of 4 frames differ"));
  EXPECT_THAT(m, Not(HasSubstr("as built")));
  EXPECT_THAT(m, HasSubstr("wrong stratum (frame 2): ntp.stratum is \"0\", "
                           "want \"1\"; ntp.nosuch is absent, want \"x\""));
  EXPECT_THAT(m, HasSubstr("bad checksum (frame 3): frame 3 "));
  EXPECT_THAT(m, HasSubstr("error/Checksum in udp"));
  EXPECT_THAT(m, HasSubstr("extra says no (frame 4): no!"));
}

TEST(TsharkJsonTest, CheckFieldsOnRepeatedFields) {
  const char* json = R"([{"_source": {"layers": {"ptp": {
    "ptp.v2.sequenceid": "7",
    "ptp.v2.tlv": [{"ptp.v2.tlv.type": "3"}, {"ptp.v2.tlv.type": "3"}],
    "ptp.v2.x": [{"ptp.v2.tlv.kind": "3"}, {"ptp.v2.tlv.kind": "8"}]}}}}])";
  absl::StatusOr<std::vector<DissectedPacket>> pkts = ParseTsharkJson(json);
  ASSERT_TRUE(pkts.ok()) << pkts.status();
  const DissectedPacket& p = (*pkts)[0];
  EXPECT_TRUE(
      CheckFields(p, {{"ptp.v2.sequenceid", "7"}, {"ptp.v2.tlv.type", "3"}})
          .ok());
  EXPECT_TRUE(CheckFields(p, {}).ok());
  const absl::Status s = CheckFields(p, {{"ptp.v2.tlv.kind", "3"}});
  EXPECT_EQ(s.message(), "ptp.v2.tlv.kind is \"3\", \"8\", want \"3\"");
  // Listed several times: exactly those values, in order.
  EXPECT_TRUE(
      CheckFields(p, {{"ptp.v2.tlv.kind", "3"}, {"ptp.v2.tlv.kind", "8"}})
          .ok());
  EXPECT_FALSE(
      CheckFields(p, {{"ptp.v2.tlv.kind", "8"}, {"ptp.v2.tlv.kind", "3"}})
          .ok());
  EXPECT_FALSE(CheckFields(p, {{"ptp.v2.tlv.type", "3"},
                               {"ptp.v2.tlv.type", "3"},
                               {"ptp.v2.tlv.type", "3"}})
                   .ok());
}

TEST(TsharkJsonTest, FlattensNestedFieldsRepeatsAndExpertArrays) {
  const char* json = R"([{"_index": "x", "_source": {"layers": {
    "frame": {"frame.number": "7", "frame.protocols": "eth:ethertype:ptp"},
    "ptp": {"ptp.v2.flags": "0x0200",
            "ptp.v2.flags_tree": {"ptp.v2.flags.twostep": "1"},
            "ptp.v2.tlv": [{"ptp.v2.tlv.type": "3"}, {"ptp.v2.tlv.type": "8"}],
            "Some text": {"_ws.expert": [
               {"ptp.x": "", "_ws.expert.message": "w",
                "_ws.expert.severity": "6291456", "_ws.expert.group": "150994944"},
               {"ptp.y": "", "_ws.expert.message": "n",
                "_ws.expert.severity": "4194304", "_ws.expert.group": "33554432"}]}}
  }}}])";
  absl::StatusOr<std::vector<DissectedPacket>> pkts = ParseTsharkJson(json);
  ASSERT_TRUE(pkts.ok()) << pkts.status();
  ASSERT_THAT(*pkts, SizeIs(1));
  const DissectedPacket& p = (*pkts)[0];
  EXPECT_EQ(p.frame_number, 7u);
  EXPECT_THAT(p.protocols, ElementsAre("eth", "ethertype", "ptp"));
  EXPECT_EQ(p.Field("ptp.v2.flags.twostep"), "1");
  EXPECT_THAT(p.FieldValues("ptp.v2.tlv.type"), ElementsAre("3", "8"));
  ASSERT_THAT(p.expert, SizeIs(2));
  EXPECT_EQ(p.expert[0].severity, ExpertSeverity::kWarning);
  EXPECT_EQ(p.expert[0].group, "Protocol");
  EXPECT_EQ(p.expert[0].name, "ptp.x");
  EXPECT_EQ(p.expert[0].layer, "ptp");
  EXPECT_EQ(p.expert[1].severity, ExpertSeverity::kNote);
  EXPECT_EQ(p.expert[1].group, "Sequence");
  EXPECT_THAT(p.ExpertAtLeast(ExpertSeverity::kWarning), SizeIs(1));
  EXPECT_FALSE(p.Clean());
  EXPECT_FALSE(p.malformed);
}

TEST(TsharkJsonTest, RejectsWhatIsNotTsharkJson) {
  EXPECT_FALSE(ParseTsharkJson("").ok());
  EXPECT_FALSE(ParseTsharkJson("[{").ok());
  EXPECT_FALSE(ParseTsharkJson("{}").ok());
  EXPECT_FALSE(ParseTsharkJson("[1E450]").ok()) << "a number beyond double";
  EXPECT_THAT(std::string(ParseTsharkJson("[{\"a\": 1}]").status().message()),
              HasSubstr("no _source.layers"));
  absl::StatusOr<std::vector<DissectedPacket>> empty = ParseTsharkJson("[]");
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(*empty, IsEmpty());
}

TEST(TsharkCommandTest, ValidatesChecksumsAndPinsOurPorts) {
  const std::vector<std::string> argv = TsharkCommand("x.pcap", {});
  const std::string joined = absl::StrJoin(argv, " ");
  EXPECT_THAT(joined, HasSubstr("-o udp.check_checksum:TRUE"));
  EXPECT_THAT(joined, HasSubstr("-d udp.port==319,ptp"));
  EXPECT_THAT(joined, HasSubstr("-r x.pcap -T json --no-duplicate-keys"));
}

}  // namespace
}  // namespace tshark_test
}  // namespace zg::testutil
