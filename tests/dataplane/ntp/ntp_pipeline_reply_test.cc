// SPDX-License-Identifier: Apache-2.0
// The protocol pipeline's NTP replies, field by field against the published
// ClockModel (ntp_pipeline_fixture.h): requests of every version over IPv4
// and IPv6, the poll echoed within bounds, an unsynchronised clock, a
// pending leap second, the root dispersion growing with the model's error
// bound, and replies never longer than their requests.
#include <cstdint>
#include <utility>
#include <vector>

#include "core/net/frame.h"
#include "core/ntp/ntp_wire.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace ntp_pipeline_reply_test {
namespace {

namespace ct = ::zg::core::testing;
using testing::ClientFlow;
using testing::ClientView;
using testing::NtpPipelineTest;

TEST_F(NtpPipelineTest, EveryVersionOverIpv4AndIpv6IsAnsweredFieldByField) {
  SetUpServer();
  std::vector<std::vector<uint8_t>> frames, requests;
  std::vector<ClientFlow> flows;
  for (uint8_t version = 1; version <= 4; ++version) {
    for (bool v6 : {false, true}) {
      const uint16_t port = static_cast<uint16_t>(40000 + flows.size());
      flows.push_back(v6 ? Flow6(port) : Flow4(port));
      requests.push_back(testing::NtpRequest(version, kT1));
      frames.push_back(testing::UdpFrame(flows.back(), requests.back()));
    }
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  for (size_t i = 0; i < e.out.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(e.out[i]->data_len, frames[i].size()) << "48 bytes in, 48 out";
    ExpectNtpReply(e.out[i], flows[i], requests[i], e);
  }
  EXPECT_EQ(e.delta.handled[kNtpKind], frames.size());
  EXPECT_EQ(e.delta.replied[kNtpKind], frames.size());
  EXPECT_EQ(e.delta.TotalDropped(), 0u);
  Free(e);
}

TEST_F(NtpPipelineTest, Version1WithModeZeroIsAClientRequest) {
  SetUpServer();
  std::vector<uint8_t> req = testing::NtpRequest(1, kT1);
  req[0] = 1 << 3;  // LI 0, VN 1, mode 0 (RFC 1059 had no mode field)
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  const core::NtpHeader h = ExpectNtpReply(e.out[0], Flow4(), req, e);
  EXPECT_EQ(h.version, 1);
  Free(e);
}

TEST_F(NtpPipelineTest, PollIsEchoedWithinBounds) {
  SetUpServer();
  const std::vector<std::pair<int8_t, int8_t>> cases = {
      {3, 3}, {-7, -7}, {-10, -7}, {17, 17}, {30, 17}, {-128, -7}, {127, 17}};
  std::vector<std::vector<uint8_t>> frames;
  for (size_t i = 0; i < cases.size(); ++i) {
    frames.push_back(
        testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                          testing::NtpRequest(4, kT1, cases[i].first)));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(
        Flow4(static_cast<uint16_t>(40000 + i)), e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    core::NtpHeader h;
    ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    EXPECT_EQ(h.poll_log2, cases[i].second)
        << "request poll " << int{cases[i].first};
  }
  Free(e);
}

TEST_F(NtpPipelineTest, UnsynchronisedClockIsServedAsSuch) {
  SetUpServer();
  model_.state = core::SyncState::kFreerun;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  EXPECT_EQ(h.leap, core::NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.stratum, 0);
  EXPECT_EQ(h.reference_id, 0u);
  EXPECT_GE(core::NtpShortToNanos(h.root_dispersion), 16 * kS);
  EXPECT_EQ(h.origin_time, kT1) << "timestamps are still served";
  Free(e);
}

TEST_F(NtpPipelineTest, PendingLeapSecondIsAnnounced) {
  SetUpServer();
  model_.leap = core::LeapPending::kInsert;
  model_.leap_at = model_.tai_anchor + 3600 * kS;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow6(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow6(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  EXPECT_EQ(h.leap, core::NtpLeapIndicator::kLastMinute61);
  Free(e);
}

TEST_F(NtpPipelineTest, RootDispersionGrowsWithTheModelsErrorBound) {
  SetUpServer();
  // Anchored 1000 s ago, growing 1 us/s: 50 ms + 1 ms at receive time.
  const uint64_t hz = testing::TscHz();
  model_.raw_anchor -= 1000 * hz;
  model_.tai_anchor = model_.tai_anchor - 1000 * kS;
  model_.error_growth_ns_per_s = 1000;
  tsc_clock_.Write(model_);
  Exchange e = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  const int64_t disp = core::NtpShortToNanos(h.root_dispersion);
  EXPECT_GE(disp, kErrorBoundNs + 1'000'000 - 16'000);  // 2^-16 s format
  EXPECT_LE(disp, kErrorBoundNs + 1'010'000 + 16'000);
  Free(e);
}

TEST_F(NtpPipelineTest, RepliesAreNeverLongerThanRequests) {
  SetUpServer();
  // An unknown 64-byte extension field (answered, not echoed), IPv4 options
  // and IPv6 extension headers (not echoed either).
  std::vector<uint8_t> with_ef = testing::NtpRequest(4, kT1);
  with_ef.resize(48 + 64, 0xAB);
  core::StoreBe16(&with_ef[48], 0x2005);
  core::StoreBe16(&with_ef[50], 64);
  const std::vector<std::vector<uint8_t>> frames = {
      testing::UdpFrame(Flow4(), with_ef), ct::FromHex(ct::kNtp4OptionsHex),
      ct::FromHex(ct::kNtp6ExtHex)};
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_LT(e.out[i]->data_len, frames[i].size());
    const ClientFlow flow = i == 2 ? Flow6() : Flow4();
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(flow, e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->info.payload_len, core::kNtpHeaderSize);
    EXPECT_EQ(v->info.payload_offset, flow.server_ip.is_v6() ? 62 : 42)
        << "bare IP header";
  }
  Free(e);
}

}  // namespace
}  // namespace ntp_pipeline_reply_test
}  // namespace zg::dataplane
