// SPDX-License-Identifier: Apache-2.0
// The frames of a pcap as the data plane sees them: each record classified
// by core/net/frame.h's ClassifyFrame with the addresses of the capture's
// endpoints, so tests replay real-peer fixtures through our own parser
// (bounds, checksums, addressing) rather than a second, test-only one, and
// pull out the NTP or PTP payloads from the FrameInfo it returns.
//
//   ZG_ASSIGN_OR_RETURN(std::vector<ClassifiedFrame> frames,
//       ClassifyPcapFile(TestDataPath("ntp_ntpdig_v4.pcap"),
//                        PeerPairEndpoints()));
//   for (const std::vector<uint8_t>& ntp : UdpPayloads(frames, 123)) ...
//   std::vector<std::vector<uint8_t>> ptp = PtpPayloads(frames);
#ifndef ZG_TESTS_UTIL_PCAP_FRAMES_H_
#define ZG_TESTS_UTIL_PCAP_FRAMES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "tests/util/pcap.h"

namespace zg::testutil {

struct ClassifiedFrame {
  size_t record = 0;           // index of the record in the file
  int64_t timestamp_ns = 0;    // capture time (UTC nanoseconds)
  std::vector<uint8_t> frame;  // the captured bytes
  int endpoint = -1;           // which endpoint accepted it
  core::FrameInfo info;        // ClassifyFrame's answer for that endpoint

  // The UDP payload, PTP-over-Ethernet message or ICMP data.
  std::span<const uint8_t> Payload() const {
    return std::span<const uint8_t>(frame).subspan(info.payload_offset,
                                                   info.payload_len);
  }
};

// Classifies every record of `file` with each endpoint in turn (`rx_flags`
// as ClassifyFrame takes them); a frame belongs to the first endpoint that
// does not drop it. An error names every frame that all endpoints drop, with
// their drop reasons: a fixture must be wholly valid traffic.
absl::StatusOr<std::vector<ClassifiedFrame>> ClassifyPcap(
    const PcapFile& file, const std::vector<core::LocalAddresses>& endpoints,
    uint32_t rx_flags = 0);
// The same for the file at `path`.
absl::StatusOr<std::vector<ClassifiedFrame>> ClassifyPcapFile(
    const std::string& path, const std::vector<core::LocalAddresses>& endpoints,
    uint32_t rx_flags = 0);

// UDP payloads of datagrams to or from `port`, in capture order.
std::vector<std::vector<uint8_t>> UdpPayloads(
    const std::vector<ClassifiedFrame>& frames, uint16_t port);
// Payloads of frames of `ethertype` (after any VLAN tags) that carry no IP.
std::vector<std::vector<uint8_t>> EthertypePayloads(
    const std::vector<ClassifiedFrame>& frames, uint16_t ethertype);
// PTP messages: UDP to or from port 319 or 320, and EtherType 0x88F7.
std::vector<std::vector<uint8_t>> PtpPayloads(
    const std::vector<ClassifiedFrame>& frames);

// ---- The endpoints of the fixtures in tests/data/ -------------------------

// tests/data/*.pcap (scripts/capture-peer-pcaps.sh): side A 10.98.0.1,
// fd98::1, 02:5a:47:00:00:0a; side B 10.98.0.2, fd98::2, 02:5a:47:00:00:0b.
std::vector<core::LocalAddresses> PeerPairEndpoints();
// tests/data/ptp/*.pcap (scripts/capture_ptp_fixtures.sh): master 10.77.0.1
// on fe:94:f9:16:d2:d8, slave 10.77.0.2 on 7a:55:25:59:6f:22. Captured with
// UDP checksum offload on, so their UDP checksums are not filled in: classify
// them with core::kRxL4ChecksumGood, as a NIC that checked them would.
std::vector<core::LocalAddresses> Ptp4lFixtureEndpoints();

// ClassifyPcapFile(TestDataPath(name), endpoints, rx_flags), then
// PtpPayloads: the PTP messages of a fixture.
absl::StatusOr<std::vector<std::vector<uint8_t>>> PtpMessagesInFixture(
    const std::string& name, const std::vector<core::LocalAddresses>& endpoints,
    uint32_t rx_flags = 0);
// The PTP messages of tests/data/ptp/<name>, classified as
// Ptp4lFixtureEndpoints() says.
absl::StatusOr<std::vector<std::vector<uint8_t>>> Ptp4lFixtureMessages(
    const std::string& name);
// Every PTP fixture of both sets: file name under tests/data/ -> its PTP
// messages.
absl::StatusOr<std::map<std::string, std::vector<std::vector<uint8_t>>>>
AllPtpFixtureMessages();

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_PCAP_FRAMES_H_
