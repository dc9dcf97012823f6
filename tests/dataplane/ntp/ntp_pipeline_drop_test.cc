// SPDX-License-Identifier: Apache-2.0
// The protocol pipeline's refusals (ntp_pipeline_fixture.h): bad inputs of
// every kind (NTP lengths, versions, modes and trailers; checksums,
// fragments, addressing and lengths of the frame) counted under their own
// drop reason and never answered, and the per-client policy seam (a drop
// counted under the policy's reason, a Kiss-o'-Death sent).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/net/frame.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace ntp_pipeline_drop_test {
namespace {

namespace ct = ::zg::core::testing;
using testing::ClientFlow;
using testing::ClientView;
using testing::NtpPipelineTest;

// A test policy: drops requests from port 40001, sends RATE to 40002.
class TestPolicy final : public NtpRequestPolicy {
 public:
  explicit TestPolicy(uint8_t drop_reason) : drop_reason_(drop_reason) {}
  NtpPolicyVerdict Check(const core::FrameInfo& req,
                         const core::NtpRequestCheck&, core::TaiNs) override {
    if (req.src_port == 40001) return NtpPolicyVerdict::Drop(drop_reason_);
    if (req.src_port == 40002) {
      return NtpPolicyVerdict::Kiss(core::kNtpKissRate, 10);
    }
    return NtpPolicyVerdict::Answer();
  }

 private:
  uint8_t drop_reason_;
};
class TestPolicyFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames& names) override {
    absl::StatusOr<uint8_t> base = names.AddDropReasons("policy", {"denied"});
    if (!base.ok()) return base.status();
    reason_ = *base;
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::make_unique<TestPolicy>(reason_);
  }
  uint8_t reason_ = 0;
};

// One bad input and the counter it must raise.
struct BadInput {
  std::string name;
  std::vector<uint8_t> frame;
  std::string reason;
};

std::vector<uint8_t> WithNtpPayload(const ClientFlow& flow,
                                    std::vector<uint8_t> payload) {
  return testing::UdpFrame(flow, payload);
}

TEST_F(NtpPipelineTest, BadInputsOfEveryKindAreCountedByReasonNeverAnswered) {
  SetUpServer();
  const ClientFlow f4 = Flow4(), f6 = Flow6();
  auto ntp = [](uint8_t li_vn_mode, size_t len = 48) {
    std::vector<uint8_t> p = testing::NtpRequest(4, kT1);
    p[0] = li_vn_mode;
    p.resize(len, 0);
    return p;
  };
  auto vn_mode = [](uint8_t vn, uint8_t mode) {
    return static_cast<uint8_t>(vn << 3 | mode);
  };
  std::vector<BadInput> cases;
  // NTP: short, odd lengths, versions, modes, trailers.
  cases.push_back(
      {"short", WithNtpPayload(f4, ntp(vn_mode(4, 3), 40)), "ntp_too_short"});
  cases.push_back({"length 50", WithNtpPayload(f4, ntp(vn_mode(4, 3), 50)),
                   "ntp_bad_length"});
  cases.push_back(
      {"version 0", WithNtpPayload(f4, ntp(vn_mode(0, 3))), "ntp_bad_version"});
  cases.push_back(
      {"version 5", WithNtpPayload(f6, ntp(vn_mode(5, 3))), "ntp_bad_version"});
  cases.push_back({"mode 0 v4", WithNtpPayload(f4, ntp(vn_mode(4, 0))),
                   "ntp_mode_reserved"});
  cases.push_back(
      {"mode 1", WithNtpPayload(f4, ntp(vn_mode(4, 1))), "ntp_mode_symmetric"});
  cases.push_back(
      {"mode 4", WithNtpPayload(f4, ntp(vn_mode(4, 4))), "ntp_mode_server"});
  cases.push_back(
      {"mode 5", WithNtpPayload(f4, ntp(vn_mode(4, 5))), "ntp_mode_broadcast"});
  cases.push_back({"mode 6 (ntpq)",
                   WithNtpPayload(f4, ntp(vn_mode(2, 6), 12 + 36)),
                   "ntp_mode_control"});
  cases.push_back({"mode 7 (monlist)", WithNtpPayload(f4, ntp(vn_mode(2, 7))),
                   "ntp_mode_private"});
  std::vector<uint8_t> bad_ef = ntp(vn_mode(4, 3), 48 + 16);
  core::StoreBe16(&bad_ef[48], 0x2005);
  core::StoreBe16(&bad_ef[50], 12);  // shorter than an extension field
  cases.push_back(
      {"bad extension", WithNtpPayload(f4, bad_ef), "ntp_malformed_extension"});
  std::vector<uint8_t> mac = ntp(vn_mode(4, 3), 48 + 20);
  mac[51] = 1;  // key id 1 + MD5
  cases.push_back({"MAC", WithNtpPayload(f4, mac), "ntp_mac_present"});
  std::vector<uint8_t> nts = ntp(vn_mode(4, 3), 48 + 36);
  core::StoreBe16(&nts[48], 0x0104);  // NTS unique identifier
  core::StoreBe16(&nts[50], 36);
  cases.push_back({"NTS", WithNtpPayload(f4, nts), "ntp_nts_unsupported"});
  std::vector<uint8_t> zero_t1 = ntp(vn_mode(4, 3));
  std::fill(zero_t1.begin() + 40, zero_t1.end(), 0);
  cases.push_back(
      {"zero transmit", WithNtpPayload(f4, zero_t1), "ntp_zero_transmit"});
  // Frames: checksums, fragments, addressing, lengths.
  const std::vector<uint8_t> good4 =
      testing::UdpFrame(f4, testing::NtpRequest(4, kT1));
  const std::vector<uint8_t> good6 =
      testing::UdpFrame(f6, testing::NtpRequest(4, kT1));
  std::vector<uint8_t> f = good4;
  f[24] ^= 0x5A;  // IPv4 header checksum
  cases.push_back({"IPv4 checksum", f, "frame_ipv4_bad_checksum"});
  f = good4;
  f[40] ^= 0x5A;  // UDP checksum
  cases.push_back({"UDP checksum", f, "frame_udp_bad_checksum"});
  f = good6;
  f[60] ^= 0x5A;
  cases.push_back({"UDP checksum v6", f, "frame_udp_bad_checksum"});
  f = good6;
  f[60] = f[61] = 0;
  cases.push_back({"zero UDP checksum v6", f, "frame_udp_zero_checksum_v6"});
  f = good4;
  f[20] |= 0x20;  // more fragments
  ct::RefSealIpv4Header(f.data(), 14);
  cases.push_back({"IPv4 fragment", f, "frame_ipv4_fragment"});
  f = good6;  // insert a fragment header after the IPv6 header
  const uint8_t frag[8] = {17, 0, 0, 1, 0, 0, 0x12, 0x34};
  f.insert(f.begin() + 54, frag, frag + 8);
  f[20] = 44;
  core::StoreBe16(&f[18], static_cast<uint16_t>(core::LoadBe16(&f[18]) + 8));
  cases.push_back({"IPv6 fragment", f, "frame_ipv6_fragment"});
  ClientFlow other = f4;
  other.server_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, 77));
  cases.push_back({"other address",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv4_not_ours"});
  other = f6;
  other.server_ip = core::IpAddress::V6(ct::kPeer6);
  cases.push_back({"other address v6",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv6_not_ours"});
  other = f4;
  other.server_port = 5353;
  cases.push_back({"other port",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_not_served"});
  other = f4;
  other.server_mac = core::MacAddr{{0x02, 0, 0, 0, 0, 0x77}};
  cases.push_back({"other MAC",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_eth_dst_not_ours"});
  other = f4;
  other.client_port = 0;
  cases.push_back({"source port 0",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_udp_source_port_zero"});
  other = f4;
  other.client_ip =
      core::IpAddress::V4(core::Ipv4Addr::FromOctets(127, 0, 0, 1));
  cases.push_back({"loopback source",
                   testing::UdpFrame(other, testing::NtpRequest(4, kT1)),
                   "frame_ipv4_bad_source"});
  f = good4;
  f.resize(f.size() - 8);  // cut inside the NTP payload
  cases.push_back({"truncated", f, "frame_ipv4_bad_total_length"});
  cases.push_back({"runt",
                   std::vector<uint8_t>(good4.begin(), good4.begin() + 10),
                   "frame_eth_truncated"});
  cases.push_back({"VLAN tag on an untagged port",
                   ct::FromHex(ct::kNtp4Vlan100Hex), "frame_vlan_mismatch"});

  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.frame.empty());
    Exchange e = Run({c.frame});
    EXPECT_EQ(e.out.size(), 0u) << "a bad input is never answered";
    EXPECT_EQ(e.delta.TotalDropped(), 1u);
    size_t hit = kMaxDropReasons;
    for (size_t r = 0; r < kMaxDropReasons; ++r) {
      if (e.delta.dropped[r] != 0) hit = r;
    }
    EXPECT_EQ(names_.DropReasonName(hit), c.reason);
    Free(e);
  }
}

TEST_F(NtpPipelineTest, PolicyDropsAndKissesOfDeathAreCountedAndSent) {
  TestPolicyFactory policy;
  SetUpServer(std::nullopt, &policy);
  const std::vector<uint8_t> req = testing::NtpRequest(4, kT1, 6);
  Exchange e = Run({testing::UdpFrame(Flow4(40000), req),
                    testing::UdpFrame(Flow4(40001), req),
                    testing::UdpFrame(Flow4(40002), req)});
  ASSERT_EQ(e.out.size(), 2u);
  ExpectNtpReply(e.out[0], Flow4(40000), req, e);
  absl::StatusOr<ClientView> v =
      testing::ReceiveAtClient(Flow4(40002), e.out[1]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader kod;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &kod));
  EXPECT_EQ(core::ClassifyNtpKiss(kod), core::NtpKiss::kRate);
  EXPECT_EQ(kod.poll_log2, 10);
  EXPECT_EQ(kod.origin_time, kT1);
  EXPECT_EQ(kod.transmit_time, kT1) << "a KoD reveals no time";
  EXPECT_EQ(e.delta.dropped[policy.reason_], 1u);
  EXPECT_EQ(names_.DropReasonName(policy.reason_), "policy_denied");
  EXPECT_EQ(e.delta.replied[kNtpKind], 2u);
  Free(e);
}

}  // namespace
}  // namespace ntp_pipeline_drop_test
}  // namespace zg::dataplane
