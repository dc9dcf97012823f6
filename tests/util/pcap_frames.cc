// SPDX-License-Identifier: Apache-2.0
#include "tests/util/pcap_frames.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/net/net_headers.h"
#include "tests/util/paths.h"

namespace zg::testutil {
namespace {

using core::FrameInfo;
using core::FrameKind;
using core::LocalAddresses;

core::LocalAddresses Endpoint(const char* mac, const char* ipv4,
                              const char* ipv6) {
  absl::StatusOr<LocalAddresses> l =
      LocalAddresses::Create(core::ParseMacAddr(mac).value());
  // The literals below are valid: a failure here is a bug in this file.
  if (!l.ok() || !l->AddIpv4(core::ParseIpv4Addr(ipv4).value()).ok() ||
      (ipv6 != nullptr &&
       !l->AddIpv6(core::ParseIpv6Addr(ipv6).value()).ok())) {
    std::abort();
  }
  return *std::move(l);
}

std::vector<uint8_t> PayloadOf(const ClassifiedFrame& f) {
  const std::span<const uint8_t> p = f.Payload();
  return {p.begin(), p.end()};
}

}  // namespace

absl::StatusOr<std::vector<ClassifiedFrame>> ClassifyPcap(
    const PcapFile& file, const std::vector<LocalAddresses>& endpoints,
    uint32_t rx_flags) {
  std::vector<ClassifiedFrame> out;
  std::vector<std::string> errors;
  for (size_t i = 0; i < file.records.size(); ++i) {
    const PcapRecord& r = file.records[i];
    ClassifiedFrame f;
    f.record = i;
    f.timestamp_ns = r.timestamp_ns;
    f.frame = r.data;
    std::vector<std::string> drops;
    for (size_t e = 0; e < endpoints.size() && f.endpoint < 0; ++e) {
      const FrameInfo info = core::ClassifyFrame(
          f.frame.data(), static_cast<uint32_t>(r.data.size()), endpoints[e],
          rx_flags);
      if (info.kind == FrameKind::kDrop) {
        drops.push_back(core::FrameDropName(info.drop));
      } else {
        f.endpoint = static_cast<int>(e);
        f.info = info;
      }
    }
    if (f.endpoint < 0) {
      errors.push_back(absl::StrCat(
          "record ", i, " (", r.data.size(),
          " bytes) dropped by every endpoint: ", absl::StrJoin(drops, ", ")));
      continue;
    }
    out.push_back(std::move(f));
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  }
  return out;
}

absl::StatusOr<std::vector<ClassifiedFrame>> ClassifyPcapFile(
    const std::string& path, const std::vector<LocalAddresses>& endpoints,
    uint32_t rx_flags) {
  ZG_ASSIGN_OR_RETURN(PcapFile file, ReadPcapFile(path));
  absl::StatusOr<std::vector<ClassifiedFrame>> frames =
      ClassifyPcap(file, endpoints, rx_flags);
  if (!frames.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", frames.status().message()));
  }
  return frames;
}

std::vector<std::vector<uint8_t>> UdpPayloads(
    const std::vector<ClassifiedFrame>& frames, uint16_t port) {
  std::vector<std::vector<uint8_t>> out;
  for (const ClassifiedFrame& f : frames) {
    if (f.info.l4_protocol == core::kIpProtoUdp &&
        (f.info.src_port == port || f.info.dst_port == port)) {
      out.push_back(PayloadOf(f));
    }
  }
  return out;
}

std::vector<std::vector<uint8_t>> EthertypePayloads(
    const std::vector<ClassifiedFrame>& frames, uint16_t ethertype) {
  std::vector<std::vector<uint8_t>> out;
  for (const ClassifiedFrame& f : frames) {
    if (f.info.ip_version == 0 && f.info.ethertype == ethertype) {
      out.push_back(PayloadOf(f));
    }
  }
  return out;
}

std::vector<std::vector<uint8_t>> PtpPayloads(
    const std::vector<ClassifiedFrame>& frames) {
  std::vector<std::vector<uint8_t>> out;
  for (const ClassifiedFrame& f : frames) {
    const FrameInfo& i = f.info;
    const bool udp = i.l4_protocol == core::kIpProtoUdp &&
                     (i.src_port == core::kPtpEventPort ||
                      i.src_port == core::kPtpGeneralPort ||
                      i.dst_port == core::kPtpEventPort ||
                      i.dst_port == core::kPtpGeneralPort);
    const bool l2 = i.ip_version == 0 && i.ethertype == core::kEtherTypePtp;
    if (udp || l2) out.push_back(PayloadOf(f));
  }
  return out;
}

std::vector<LocalAddresses> PeerPairEndpoints() {
  return {Endpoint("02:5a:47:00:00:0a", "10.98.0.1", "fd98::1"),
          Endpoint("02:5a:47:00:00:0b", "10.98.0.2", "fd98::2")};
}

std::vector<LocalAddresses> Ptp4lFixtureEndpoints() {
  return {Endpoint("fe:94:f9:16:d2:d8", "10.77.0.1", nullptr),
          Endpoint("7a:55:25:59:6f:22", "10.77.0.2", nullptr)};
}

absl::StatusOr<std::vector<std::vector<uint8_t>>> PtpMessagesInFixture(
    const std::string& name, const std::vector<LocalAddresses>& endpoints,
    uint32_t rx_flags) {
  ZG_ASSIGN_OR_RETURN(
      std::vector<ClassifiedFrame> frames,
      ClassifyPcapFile(TestDataPath(name), endpoints, rx_flags));
  return PtpPayloads(frames);
}

absl::StatusOr<std::vector<std::vector<uint8_t>>> Ptp4lFixtureMessages(
    const std::string& name) {
  return PtpMessagesInFixture("ptp/" + name, Ptp4lFixtureEndpoints(),
                              core::kRxL4ChecksumGood);
}

absl::StatusOr<std::map<std::string, std::vector<std::vector<uint8_t>>>>
AllPtpFixtureMessages() {
  std::map<std::string, std::vector<std::vector<uint8_t>>> out;
  for (const char* name :
       {"ptp_e2e_udp4.pcap", "ptp_e2e_l2.pcap", "ptp_p2p_l2.pcap",
        "ptp_unicast_udp4.pcap", "ptp_management_udp4.pcap",
        "ptp_management_l2.pcap"}) {
    ZG_ASSIGN_OR_RETURN(out[name],
                        PtpMessagesInFixture(name, PeerPairEndpoints()));
  }
  for (const char* name :
       {"ptp4l_e2e.pcap", "ptp4l_p2p.pcap", "ptp4l_l2_gptp.pcap",
        "ptp4l_unicast.pcap", "pmc.pcap"}) {
    ZG_ASSIGN_OR_RETURN(out[absl::StrCat("ptp/", name)],
                        Ptp4lFixtureMessages(name));
  }
  return out;
}

}  // namespace zg::testutil
