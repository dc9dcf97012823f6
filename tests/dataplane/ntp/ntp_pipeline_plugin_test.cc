// SPDX-License-Identifier: Apache-2.0
// Protocol plugins in the protocol pipeline (ntp_pipeline_fixture.h): a
// plugin's handler next to NTP, counted under its own drop reason, and
// ProtocolPipelineFactory's checks (a kind that already has a handler, names
// registered once, a unicast MAC).
#include <rte_ether.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/net/frame.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace ntp_pipeline_plugin_test {
namespace {

namespace ct = ::zg::core::testing;
using testing::NtpPipelineTest;

// A protocol plugin (as the PTP grandmaster will be): a handler for PTP
// general messages that counts them under its own drop reason, or one that
// (wrongly) claims NTP.
class CountingHandler final : public FrameHandler {
 public:
  explicit CountingHandler(uint8_t reason) : reason_(reason) {}
  HandleResult Handle(Packet& pkt, const BurstContext&) override {
    const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
    return p.info.dst_port == 320 ? HandleResult::Drop(reason_)
                                  : HandleResult::Drop(0);
  }

 private:
  uint8_t reason_;
};
class TestPlugin final : public ProtocolPlugin {
 public:
  explicit TestPlugin(core::FrameKind kind) : kind_(kind) {}
  absl::Status RegisterNames(CounterNames& names) override {
    absl::StatusOr<uint8_t> base = names.AddDropReasons("plugin", {"seen"});
    if (!base.ok()) return base.status();
    reason_ = *base;
    return absl::OkStatus();
  }
  absl::Status AddHandlers(const WorkerSetup&, Pipeline& p) override {
    return p.SetHandler(kind_, std::make_unique<CountingHandler>(reason_));
  }
  core::FrameKind kind_;
  uint8_t reason_ = 0;
};

TEST_F(NtpPipelineTest, PluginsAddHandlersNextToNtp) {
  TestPlugin ptp(core::FrameKind::kPtpGeneral);
  SetUpServer(std::nullopt, nullptr, {&ptp});
  const std::vector<uint8_t> ptp_general = ct::FromHex(ct::kPtp4GeneralHex);
  Exchange e = Run(
      {ptp_general, testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u) << "NTP is still answered";
  EXPECT_EQ(e.delta.handled[static_cast<size_t>(core::FrameKind::kPtpGeneral)],
            1u);
  EXPECT_EQ(e.delta.dropped[ptp.reason_], 1u);
  EXPECT_EQ(names_.DropReasonName(ptp.reason_), "plugin_seen");
  Free(e);
}

TEST(ProtocolPipelineFactoryTest, APluginCannotTakeAKindThatHasAHandler) {
  TestPlugin grabby(core::FrameKind::kNtp);
  ProtocolPipelineFactory factory(
      ProtocolPipelineFactory::Options{nullptr, {&grabby}});
  CounterNames names;
  ASSERT_TRUE(factory.RegisterNames(names).ok());
  rte_ether_addr mac = {{0x02, 0, 0, 0, 0, 0x01}};
  absl::StatusOr<Pipeline> p = factory.Create(testing::ServerSetup(0, mac));
  EXPECT_EQ(p.status().code(), absl::StatusCode::kAlreadyExists) << p.status();
}

TEST(ProtocolPipelineFactoryTest, CreateNeedsNamesAndAUnicastMac) {
  ProtocolPipelineFactory factory;
  rte_ether_addr mac = {{0x02, 0, 0, 0, 0, 0x01}};
  EXPECT_EQ(factory.Create(testing::ServerSetup(0, mac)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  CounterNames names;
  ASSERT_TRUE(factory.RegisterNames(names).ok());
  EXPECT_FALSE(factory.RegisterNames(names).ok()) << "registered twice";
  rte_ether_addr group = {{0x01, 0, 0x5e, 0, 0, 1}};
  absl::StatusOr<Pipeline> p = factory.Create(testing::ServerSetup(0, group));
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(factory.Create(testing::ServerSetup(0, mac)).ok());
}

}  // namespace
}  // namespace ntp_pipeline_plugin_test
}  // namespace zg::dataplane
