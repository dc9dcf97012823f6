// SPDX-License-Identifier: Apache-2.0
// Every frame of every real-peer fixture passes our own front end: with the
// capture's addresses configured, ClassifyFrame (core/net/frame.h) accepts each
// one (lengths, checksums, addressing), calls it the kind the data plane
// would dispatch on, and attributes it to the right side. Then the payload
// helpers pull out exactly the NTP and PTP messages.
#include "tests/util/pcap_frames.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/paths.h"
#include "tests/util/pcap.h"

namespace zg::testutil {
namespace pcap_frames_test {
namespace {

using core::FrameKind;
using ::testing::ElementsAreArray;

struct Fixture {
  const char* file;
  std::map<FrameKind, int> kinds;
  // The NTP server's side (every NTP request goes to it), or -1.
  int ntp_server = -1;
  uint32_t rx_flags = 0;
  bool legacy = false;  // tests/data/ptp/ (Ptp4lFixtureEndpoints)
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.file; }

constexpr FrameKind kNtp = FrameKind::kNtp;
constexpr FrameKind kOther = FrameKind::kOther;
constexpr FrameKind kEvent = FrameKind::kPtpEvent;
constexpr FrameKind kGeneral = FrameKind::kPtpGeneral;
constexpr FrameKind kL2 = FrameKind::kPtpL2;

// Counts as tests/data/README.md and scripts/capture_ptp_fixtures.sh list
// them. NTP: requests (kNtp, to the server A), replies (kOther: UDP to the
// client's own port, on B). PTP event messages (Sync, Delay_Req, Pdelay_Req,
// Pdelay_Resp) are on port 319, the rest on 320.
std::vector<Fixture> Fixtures() {
  const uint32_t kOffload = core::kRxL4ChecksumGood;
  return {
      {"ntp_ntpdig_v4.pcap", {{kNtp, 2}, {kOther, 2}}, 0},
      {"ntp_ntpdig_v6.pcap", {{kNtp, 2}, {kOther, 2}}, 0},
      {"ntp_chronyd_client_v4.pcap", {{kNtp, 2}, {kOther, 2}}, 0},
      {"ntp_chronyd_client_v6.pcap", {{kNtp, 2}, {kOther, 2}}, 0},
      {"ntp_chronyd_xleave_v4.pcap", {{kNtp, 3}, {kOther, 3}}, 0},
      {"ptp_e2e_udp4.pcap", {{kEvent, 6}, {kGeneral, 8}}},
      {"ptp_e2e_l2.pcap", {{kL2, 14}}},
      {"ptp_p2p_l2.pcap", {{kL2, 17}}},
      {"ptp_unicast_udp4.pcap", {{kEvent, 6}, {kGeneral, 13}}},
      {"ptp_management_udp4.pcap", {{kGeneral, 18}}},
      {"ptp_management_l2.pcap", {{kL2, 18}}},
      {"ptp/ptp4l_e2e.pcap",
       {{kEvent, 14}, {kGeneral, 23}},
       -1,
       kOffload,
       true},
      {"ptp/ptp4l_p2p.pcap",
       {{kEvent, 20}, {kGeneral, 10}},
       -1,
       kOffload,
       true},
      {"ptp/ptp4l_l2_gptp.pcap", {{kL2, 30}}, -1, 0, true},
      {"ptp/ptp4l_unicast.pcap",
       {{kEvent, 20}, {kGeneral, 38}},
       -1,
       kOffload,
       true},
      {"ptp/pmc.pcap", {{kGeneral, 36}}, -1, kOffload, true},
  };
}

class PcapFramesTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(PcapFramesTest, EveryFrameClassifiesAsItsKindForItsRecipient) {
  const Fixture& fx = GetParam();
  const std::vector<core::LocalAddresses> endpoints =
      fx.legacy ? Ptp4lFixtureEndpoints() : PeerPairEndpoints();
  absl::StatusOr<PcapFile> pcap = ReadPcapFile(TestDataPath(fx.file));
  ASSERT_TRUE(pcap.ok()) << pcap.status();
  absl::StatusOr<std::vector<ClassifiedFrame>> frames =
      ClassifyPcap(*pcap, endpoints, fx.rx_flags);
  ASSERT_TRUE(frames.ok()) << frames.status();
  ASSERT_EQ(frames->size(), pcap->records.size());

  std::map<FrameKind, int> kinds;
  for (const ClassifiedFrame& f : *frames) {
    ++kinds[f.info.kind];
    const core::FrameInfo& i = f.info;
    EXPECT_EQ(i.frame_len, f.frame.size());
    if (i.ip_version != 0 && !i.dst_multicast) {
      // Unicast: the side whose address it was sent to, and no other.
      const core::LocalAddresses& to = endpoints[f.endpoint];
      if (i.ip_version == 4) {
        EXPECT_EQ(to.FindIpv4(i.dst_ipv4), i.local_index);
      } else {
        EXPECT_EQ(to.FindIpv6(i.dst_ipv6.b.data()), i.local_index);
      }
    }
    if (fx.ntp_server >= 0) {
      EXPECT_EQ(f.endpoint, i.kind == kNtp ? fx.ntp_server : 1 - fx.ntp_server)
          << "record " << f.record;
      if (i.kind == kOther) {
        EXPECT_EQ(i.src_port, core::kNtpPort);
      }
    }
    if (i.kind == kEvent || i.kind == kGeneral) {
      EXPECT_EQ(i.src_port, i.dst_port);  // ptp4l and pmc use 319/320 both ways
    }
    if (i.kind == kNtp || i.kind == kEvent || i.kind == kGeneral ||
        i.kind == kL2) {
      EXPECT_GE(i.payload_len, 34u) << "record " << f.record;
    }
  }
  EXPECT_THAT(kinds, ElementsAreArray(fx.kinds));

  // The payload helpers find every NTP or PTP message and nothing else.
  const size_t messages = frames->size();
  if (fx.ntp_server >= 0) {
    EXPECT_EQ(UdpPayloads(*frames, core::kNtpPort).size(), messages);
    EXPECT_TRUE(PtpPayloads(*frames).empty());
  } else {
    EXPECT_EQ(PtpPayloads(*frames).size(), messages);
    EXPECT_TRUE(UdpPayloads(*frames, core::kNtpPort).empty());
    const size_t l2 = kinds.count(kL2) ? kinds.at(kL2) : 0;
    EXPECT_EQ(EthertypePayloads(*frames, core::kEtherTypePtp).size(), l2);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PcapFramesTest,
                         ::testing::ValuesIn(Fixtures()),
                         [](const ::testing::TestParamInfo<Fixture>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) {
                             if (c == '/') c = '_';
                           }
                           return name;
                         });

TEST(PcapFramesTest, AFrameNoEndpointAcceptsIsAnErrorThatSaysWhy) {
  absl::StatusOr<PcapFile> pcap =
      ReadPcapFile(TestDataPath("ntp_ntpdig_v4.pcap"));
  ASSERT_TRUE(pcap.ok()) << pcap.status();
  // Only side B configured: the requests to A are not for us.
  absl::StatusOr<std::vector<ClassifiedFrame>> frames =
      ClassifyPcap(*pcap, {PeerPairEndpoints()[1]});
  ASSERT_FALSE(frames.ok());
  EXPECT_THAT(std::string(frames.status().message()),
              ::testing::HasSubstr("eth_dst_not_ours"));
  // A corrupted UDP checksum is caught by ClassifyFrame, as on the wire.
  PcapFile bad = *pcap;
  bad.records[0].data.back() ^= 1;
  frames = ClassifyPcap(bad, PeerPairEndpoints());
  ASSERT_FALSE(frames.ok());
  EXPECT_THAT(std::string(frames.status().message()),
              ::testing::HasSubstr("record 0 (90 bytes) dropped by every "
                                   "endpoint: udp_bad_checksum"));
}

TEST(PcapFramesTest, OffloadedChecksumsNeedTheNicHint) {
  // tests/data/ptp/ was captured with UDP checksum offload on.
  EXPECT_FALSE(ClassifyPcapFile(TestDataPath("ptp/ptp4l_e2e.pcap"),
                                Ptp4lFixtureEndpoints())
                   .ok());
  EXPECT_TRUE(ClassifyPcapFile(TestDataPath("ptp/ptp4l_e2e.pcap"),
                               Ptp4lFixtureEndpoints(), core::kRxL4ChecksumGood)
                  .ok());
}

}  // namespace
}  // namespace pcap_frames_test
}  // namespace zg::testutil
