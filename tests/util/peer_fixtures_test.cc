// SPDX-License-Identifier: Apache-2.0
// Checks the real-peer fixtures in tests/data/ (captured by
// scripts/capture-peer-pcaps.sh from ntpdig, chronyd, ptp4l and pmc): our pcap
// reader loads each one, tshark dissects every packet without a single
// expert warning or malformed marker (checksums validated), and each file
// holds exactly the kinds and counts of packets the script promises. This
// proves the fixtures and the harness together; parser round-trip tests
// build on the same files.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/paths.h"
#include "tests/util/pcap.h"
#include "tests/util/tshark.h"

namespace zg::testutil {
namespace peer_fixtures_test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAreArray;

enum class Transport { kUdp4, kUdp6, kEthernet };

struct Fixture {
  const char* file;
  Transport transport;
  PcapTimeResolution resolution;
  std::map<std::string, int> kinds;  // KindOf() -> count
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.file; }

// The same counts scripts/capture-peer-pcaps.sh asks trim() for.
const std::map<std::string, int> kNtpOneEach = {{"NTP mode 3", 2},
                                                {"NTP mode 4", 2}};
const std::map<std::string, int> kE2e = {{"PTP Announce", 2},
                                         {"PTP Sync", 3},
                                         {"PTP Follow_Up", 3},
                                         {"PTP Delay_Req", 3},
                                         {"PTP Delay_Resp", 3}};
const std::map<std::string, int> kManagement = {
    {"PTP Management GET", 8},
    {"PTP Management SET", 1},
    {"PTP Management RESPONSE", 8},
    {"PTP Management RESPONSE error", 1}};

const PcapTimeResolution kUs = PcapTimeResolution::kMicroseconds;
const PcapTimeResolution kNs = PcapTimeResolution::kNanoseconds;

std::vector<Fixture> Fixtures() {
  return {
      {"ntp_ntpdig_v4.pcap", Transport::kUdp4, kUs, kNtpOneEach},
      {"ntp_ntpdig_v6.pcap", Transport::kUdp6, kUs, kNtpOneEach},
      {"ntp_chronyd_client_v4.pcap", Transport::kUdp4, kUs, kNtpOneEach},
      {"ntp_chronyd_client_v6.pcap", Transport::kUdp6, kUs, kNtpOneEach},
      {"ntp_chronyd_xleave_v4.pcap",
       Transport::kUdp4,
       kUs,
       {{"NTP mode 3", 3}, {"NTP mode 4", 3}}},
      {"ptp_e2e_udp4.pcap", Transport::kUdp4, kNs, kE2e},
      {"ptp_e2e_l2.pcap", Transport::kEthernet, kNs, kE2e},
      {"ptp_p2p_l2.pcap",
       Transport::kEthernet,
       kNs,
       {{"PTP Announce", 2},
        {"PTP Sync", 3},
        {"PTP Follow_Up", 3},
        {"PTP Pdelay_Req", 3},
        {"PTP Pdelay_Resp", 3},
        {"PTP Pdelay_Resp_Follow_Up", 3}}},
      {"ptp_unicast_udp4.pcap",
       Transport::kUdp4,
       kNs,
       {{"PTP Signaling", 5},
        {"PTP Announce", 2},
        {"PTP Sync", 3},
        {"PTP Follow_Up", 3},
        {"PTP Delay_Req", 3},
        {"PTP Delay_Resp", 3}}},
      {"ptp_management_udp4.pcap", Transport::kUdp4, kNs, kManagement},
      {"ptp_management_l2.pcap", Transport::kEthernet, kNs, kManagement},
  };
}

int64_t ParseInt(const std::optional<std::string>& s) {
  return s ? std::strtoll(s->c_str(), nullptr, 0) : -1;
}

std::string PtpTypeName(int64_t type) {
  static const std::map<int64_t, std::string> kNames = {
      {0x0, "Sync"},
      {0x1, "Delay_Req"},
      {0x2, "Pdelay_Req"},
      {0x3, "Pdelay_Resp"},
      {0x8, "Follow_Up"},
      {0x9, "Delay_Resp"},
      {0xa, "Pdelay_Resp_Follow_Up"},
      {0xb, "Announce"},
      {0xc, "Signaling"},
      {0xd, "Management"}};
  auto it = kNames.find(type);
  return it == kNames.end() ? absl::StrCat("type ", type) : it->second;
}

// "NTP mode 3", "PTP Sync", "PTP Management GET", "PTP Management RESPONSE
// error" (a MANAGEMENT_ERROR_STATUS TLV).
std::string KindOf(const DissectedPacket& p) {
  if (p.HasProtocol("ntp")) {
    return absl::StrCat("NTP mode ", ParseInt(p.Field("ntp.flags.mode")));
  }
  if (!p.HasProtocol("ptp")) {
    return absl::StrCat("other: ", absl::StrJoin(p.protocols, ":"));
  }
  const int64_t type = ParseInt(p.Field("ptp.v2.messagetype"));
  std::string kind = absl::StrCat("PTP ", PtpTypeName(type));
  if (type == 0xd) {
    static const char* const kActions[] = {"GET", "SET", "RESPONSE", "COMMAND",
                                           "ACKNOWLEDGE"};
    const int64_t action = ParseInt(p.Field("ptp.v2.mm.action"));
    absl::StrAppend(&kind, " ",
                    action >= 0 && action < 5 ? kActions[action] : "action?");
    if (p.Field("ptp.v2.mm.managementErrorId"))
      absl::StrAppend(&kind, " error");
  }
  return kind;
}

// tshark takes about a second per run: dissect each fixture once per test
// binary run.
const absl::StatusOr<std::vector<DissectedPacket>>& Dissected(
    const std::string& file) {
  static auto* cache =
      new std::map<std::string, absl::StatusOr<std::vector<DissectedPacket>>>;
  auto it = cache->find(file);
  if (it == cache->end()) {
    it = cache->emplace(file, DissectPcapFile(TestDataPath(file))).first;
  }
  return it->second;
}

bool TransportMatches(const DissectedPacket& p, Transport t) {
  switch (t) {
    case Transport::kUdp4:
      return p.HasProtocol("ip") && p.HasProtocol("udp");
    case Transport::kUdp6:
      return p.HasProtocol("ipv6") && p.HasProtocol("udp");
    case Transport::kEthernet:
      return !p.HasProtocol("ip") && !p.HasProtocol("ipv6") &&
             p.Field("eth.type") == "0x88f7";
  }
  return false;
}

class PeerFixtureTest : public ::testing::TestWithParam<Fixture> {
 protected:
  void SetUp() override {
    if (!TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  }
};

TEST_P(PeerFixtureTest, LoadsAndTsharkFindsNothingWrong) {
  const Fixture& fx = GetParam();
  const std::string path = TestDataPath(fx.file);
  absl::StatusOr<PcapFile> pcap = ReadPcapFile(path);
  ASSERT_TRUE(pcap.ok()) << pcap.status();
  EXPECT_EQ(pcap->link_type, kLinkTypeEthernet);
  EXPECT_EQ(pcap->resolution, fx.resolution);
  for (const PcapRecord& r : pcap->records) {
    EXPECT_EQ(r.original_length, r.data.size()) << "snapped record";
  }

  const absl::StatusOr<std::vector<DissectedPacket>>& packets =
      Dissected(fx.file);
  ASSERT_TRUE(packets.ok()) << packets.status();
  ASSERT_EQ(packets->size(), pcap->records.size());
  absl::Status clean = CheckClean(*packets);
  EXPECT_TRUE(clean.ok()) << clean;

  std::map<std::string, int> kinds;
  for (const DissectedPacket& p : *packets) {
    ++kinds[KindOf(p)];
    EXPECT_TRUE(TransportMatches(p, fx.transport)) << p.Summary();
    EXPECT_EQ(
        ParseInt(p.Field("frame.len")),
        static_cast<int64_t>(pcap->records[p.frame_number - 1].data.size()));
  }
  EXPECT_THAT(kinds, ElementsAreArray(fx.kinds));
  std::vector<std::string> listing;
  for (const auto& [kind, n] : kinds)
    listing.push_back(absl::StrCat(kind, "=", n));
  std::cout << fx.file << ": " << packets->size() << " packets ("
            << absl::StrJoin(listing, ", ") << ")\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PeerFixtureTest,
                         ::testing::ValuesIn(Fixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

// What makes some fixtures worth having, checked so a regenerated file
// cannot silently lose it.
class PeerFixtureDetailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  }
  std::vector<DissectedPacket> Dissect(const char* file) {
    const absl::StatusOr<std::vector<DissectedPacket>>& p = Dissected(file);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : std::vector<DissectedPacket>{};
  }
};

TEST_F(PeerFixtureDetailTest, ChronydInterleavedRequestsEchoTheServerRxTime) {
  // In interleaved mode the client's origin timestamp is the server's receive
  // timestamp of the previous exchange (RFC 5905 interleaved, chrony xleave).
  std::vector<DissectedPacket> p = Dissect("ntp_chronyd_xleave_v4.pcap");
  ASSERT_EQ(p.size(), 6u);
  int interleaved = 0;
  for (size_t i = 2; i < p.size(); ++i) {
    if (p[i].Field("ntp.flags.mode") != "3") continue;
    ASSERT_TRUE(p[i].Field("ntp.org").has_value());
    EXPECT_EQ(p[i].Field("ntp.org"), p[i - 1].Field("ntp.rec"));
    EXPECT_NE(p[i].Field("ntp.org"), p[i - 1].Field("ntp.xmt"));  // not basic
    ++interleaved;
  }
  EXPECT_EQ(interleaved, 2);
  // An interleaved reply answers the request's receive field (where the
  // client keeps its previous receive time), not its transmit field; the
  // last reply is one.
  const DissectedPacket& request = p[4];
  const DissectedPacket& reply = p[5];
  ASSERT_EQ(reply.Field("ntp.flags.mode"), "4");
  EXPECT_EQ(reply.Field("ntp.org"), request.Field("ntp.rec"));
  EXPECT_NE(reply.Field("ntp.org"), request.Field("ntp.xmt"));
}

TEST_F(PeerFixtureDetailTest, UnicastNegotiationRequestsAndGrants) {
  std::vector<DissectedPacket> p = Dissect("ptp_unicast_udp4.pcap");
  std::vector<std::string> tlv_types;
  for (const DissectedPacket& d : p) {
    for (const std::string& t : d.FieldValues("ptp.v2.sig.tlv.tlvType")) {
      tlv_types.push_back(t);
    }
    // Everything negotiated travels unicast and says so in its flags.
    if (d.Field("ip.dst") != "224.0.1.129") {
      EXPECT_EQ(d.Field("ptp.v2.flags.unicast"), "1") << d.Summary();
    }
  }
  EXPECT_THAT(tlv_types, Contains("4"));  // REQUEST_UNICAST_TRANSMISSION
  EXPECT_THAT(tlv_types, Contains("5"));  // GRANT_UNICAST_TRANSMISSION
}

TEST_F(PeerFixtureDetailTest, ManagementSetIsRefusedAsNotSupported) {
  for (const char* file :
       {"ptp_management_udp4.pcap", "ptp_management_l2.pcap"}) {
    int errors = 0;
    for (const DissectedPacket& d : Dissect(file)) {
      if (std::optional<std::string> e =
              d.Field("ptp.v2.mm.managementErrorId")) {
        EXPECT_EQ(ParseInt(e), 0x0006) << file;  // NOT_SUPPORTED
        ++errors;
      }
    }
    EXPECT_EQ(errors, 1) << file;
  }
}

}  // namespace
}  // namespace peer_fixtures_test
}  // namespace zg::testutil
