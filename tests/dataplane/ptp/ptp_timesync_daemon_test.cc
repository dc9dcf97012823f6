// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's whole body (RunDaemon) with --ptp --timesync on the emulated
// Intel-style NIC (timesync registers, no RX dynfield, made by the EAL from
// --vdev): the daemon's control plane tracks the timesync clock
// (TimesyncNicClock, rte_eth_timesync_read_time) like any NIC clock and its
// model maps PTP's hardware stamps to TAI. A Delay_Req injected with a wire
// time 200 ms in the past is answered with a t4 200 ms before that of one
// injected now (software stamps, taken when the worker polls, could not
// tell them apart), and Follow_Ups carry TX stamps read from the latch,
// mapped onto the same time scale. Retries until the timesync model is
// published, for at most 10 s.
#include <rte_ethdev.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "core/ptp/ptp_wire.h"
#include "dataplane/daemon/daemon.h"
#include "dataplane/ptp/ptp_plugin.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/emulated_nic_vdev.h"

namespace zg::dataplane::testing {
namespace ptp_timesync_daemon_test {
namespace {

constexpr int64_t kMs = 1'000'000;
const core::MacAddr kClientMac{{0x02, 0xC1, 0x1E, 0x00, 0x00, 0x02}};
const core::Ipv4Addr kServerIp = core::Ipv4Addr::FromOctets(10, 99, 0, 1);
const core::Ipv4Addr kClientIp = core::Ipv4Addr::FromOctets(10, 99, 0, 2);

std::vector<uint8_t> DelayReq(const core::MacAddr& server, uint16_t seq) {
  core::PtpMessage m;
  m.header.source_port_identity = {
      {{0x02, 0xC1, 0x1E, 0xFF, 0xFE, 0x00, 0x00, 0x02}}, 1};
  m.header.sequence_id = seq;
  m.header.flags.Set(core::PtpFlag::kUnicast);
  m.body = core::PtpDelayReq{};
  m.header.control_field = core::PtpControlFieldFor(core::PtpBodyType(m.body));
  std::vector<uint8_t> ptp(200);
  ptp.resize(core::SerializePtpMessage(m, ptp));
  std::vector<uint8_t> frame(400);
  core::UdpFrameSpec spec;
  spec.src_mac = kClientMac;
  spec.dst_mac = server;
  spec.src_ip = core::IpAddress::V4(kClientIp);
  spec.dst_ip = core::IpAddress::V4(kServerIp);
  spec.src_port = spec.dst_port = core::kPtpEventPort;
  core::FrameInfo info;
  const uint32_t len = core::BuildUdpFrame(
      frame.data(), 400, spec, static_cast<uint16_t>(ptp.size()), &info);
  std::memcpy(frame.data() + info.payload_offset, ptp.data(), ptp.size());
  core::FinaliseUdpChecksum(frame.data(), info);
  frame.resize(len);
  return frame;
}

// The PTP message in `frame`, if it is one to the client or its group.
std::optional<core::PtpMessage> ParsePtp(const std::vector<uint8_t>& frame,
                                         std::vector<uint8_t>* bytes) {
  core::LocalAddresses client =
      *core::LocalAddresses::Create(kClientMac, std::nullopt);
  (void)client.AddIpv4(kClientIp);
  const core::FrameInfo info = core::ClassifyFrame(
      frame.data(), static_cast<uint32_t>(frame.size()), client);
  if (info.kind != core::FrameKind::kPtpEvent &&
      info.kind != core::FrameKind::kPtpGeneral) {
    return std::nullopt;
  }
  bytes->assign(frame.begin() + info.payload_offset,
                frame.begin() + info.payload_offset + info.payload_len);
  core::PtpMessage m;
  if (core::ParsePtpMessage(*bytes, &m) != core::PtpDrop::kOk) {
    return std::nullopt;
  }
  return m;
}

TEST(PtpTimesyncDaemonTest, HardwareStampsMappedByTheTrackedTimesyncClock) {
  RegisterEmulatedNicVdev();
  const std::string vdev = "net_zg_emu_pt0";
  std::vector<std::string> args = {
      "zeitgeberd",
      "--no-huge",
      "-m",
      "256",
      "--no-shconf",
      "--no-pci",
      "--no-telemetry",
      "--file-prefix",
      absl::StrCat("zgptpts", getpid()),
      "--log-level=lib.eal:error",
      "-l",
      "0-1",
      "--vdev=" + vdev + ",timesync=1,rx_dynfield=0,tx_stamp_latency_ns=2000",
      "--",
      "--port=" + vdev,
      "--address=10.99.0.1/24",
      "--require_system_clock_sync=false",
      "--metrics_address=",
      "--status_address=",
      "--control_socket=",
      "--run_for=60s",
      "--timesync",
      "--ptp",
      "--ptp_profile=enterprise_hybrid",
      "--ptp_log_announce_interval=-3",
      "--ptp_log_sync_interval=-4"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  signal(SIGHUP, SIG_IGN);  // until RunDaemon installs its handlers
  PtpPlugin ptp;
  ProtocolPipelineFactory factory{
      ProtocolPipelineFactory::Options{nullptr, {&ptp}}};
  int rc = -1;
  std::thread daemon([&] {
    rc = RunDaemon(static_cast<int>(args.size()), argv.data(), factory);
  });

  constexpr int64_t kAgo = 200 * kMs;
  bool hardware = false;
  int follow_ups = 0;
  int64_t last_t1 = 0;
  uint16_t seq = 0;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!hardware && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EmulatedNic* nic = FindEmulatedNic(vdev);
    if (nic == nullptr) continue;  // not probed yet
    rte_ether_addr mac;
    if (rte_eth_macaddr_get(nic->port_id(), &mac) != 0) continue;
    core::MacAddr server;
    std::memcpy(server.b.data(), mac.addr_bytes, 6);
    // Two requests, one latch: the first 200 ms in the past, then one now.
    std::optional<int64_t> t4[2];
    for (int k = 0; k < 2; ++k) {
      const uint16_t s = ++seq;
      nic->Inject(DelayReq(server, s), 0,
                  nic->NicNowNs() - (k == 0 ? kAgo : 0));
      for (int w = 0; w < 20 && !t4[k].has_value(); ++w) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        for (const EmulatedNic::WireFrame& f : nic->TakeTransmitted()) {
          std::vector<uint8_t> bytes;
          const std::optional<core::PtpMessage> m = ParsePtp(f.bytes, &bytes);
          if (!m) continue;
          if (m->header.message_type == core::PtpMessageType::kFollowUp) {
            ++follow_ups;
            last_t1 = core::PtpToTai(std::get<core::PtpFollowUp>(m->body)
                                         .precise_origin_timestamp)
                          .value;
          }
          if (m->header.message_type == core::PtpMessageType::kDelayResp &&
              m->header.sequence_id == s) {
            t4[k] = core::PtpToTai(
                        std::get<core::PtpDelayResp>(m->body).receive_timestamp)
                        .value;
          }
        }
      }
    }
    if (t4[0] && t4[1]) {
      const int64_t d = *t4[1] - *t4[0];
      hardware = d > kAgo - 20 * kMs && d < kAgo + 100 * kMs;
      if (hardware && follow_ups > 0) {
        // The latest Follow_Up's t1, mapped by the same model: on the
        // daemon's time scale (the emulated clock's raw ns are years off).
        EXPECT_LT(std::abs(last_t1 - *t4[1]), 2000 * kMs);
      }
    }
  }
  EmulatedNic* nic = FindEmulatedNic(vdev);
  const uint64_t tx_read = nic != nullptr ? nic->counters().tx_stamps_read : 0;
  kill(getpid(), SIGTERM);
  daemon.join();
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(hardware) << "no Delay_Resp with the hardware RX stamp";
  EXPECT_GT(follow_ups, 0);
  EXPECT_GT(tx_read, 0u) << "no TX stamp read from the latch";
}

}  // namespace
}  // namespace ptp_timesync_daemon_test
}  // namespace zg::dataplane::testing
