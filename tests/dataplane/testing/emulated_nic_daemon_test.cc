// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's whole body (RunDaemon: EAL, port, NIC clock, control plane,
// workers) on the emulated NIC, made by the EAL from --vdev (see
// emulated_nic_vdev.h), serving the host clock: the daemon finds hardware
// RX stamps on it, its control plane correlates the NIC clock
// (rte_eth_read_clock) with the TSC, and a request injected with a wire time
// 200 ms in the past gets a T2 200 ms in the past, which a software stamp
// (taken when the worker polls) could not give. Requests sent before the
// NIC model is published get TSC stamps (T2 about now): the test retries
// until the hardware path answers, for at most 10 s.
#include <rte_ethdev.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/time_types.h"
#include "dataplane/daemon/daemon.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gtest/gtest.h"
#include "tests/dataplane/testing/emulated_nic_vdev.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::testing {
namespace emulated_nic_daemon_test {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr core::NtpTimestamp kT1{0xe8fe6f80u, 0x12345678u};

// The NTP reply in `frame` (Ethernet, IPv4, UDP from port 123), if it is
// one: which request it answers (its origin timestamp's fraction, set to
// the request's index) and T2 as UTC ns.
struct Reply {
  uint32_t request = 0;
  int64_t t2_utc_ns = 0;
};
std::optional<Reply> ParseReply(const std::vector<uint8_t>& frame) {
  constexpr size_t kPayload = 14 + 20 + 8;
  if (frame.size() < kPayload + core::kNtpHeaderSize) return std::nullopt;
  if (frame[34] != 0 || frame[35] != 123) return std::nullopt;
  core::NtpHeader h;
  if (!core::ParseNtpHeader(frame.data() + kPayload, core::kNtpHeaderSize,
                            &h)) {
    return std::nullopt;
  }
  const core::UtcNs now{absl::ToUnixNanos(absl::Now())};
  return Reply{h.origin_time.fraction,
               core::NtpToUtc(h.receive_time, now).value};
}

TEST(EmulatedNicDaemonTest, ZeitgeberdUsesTheNicStampsOfTheEmulatedNic) {
  RegisterEmulatedNicVdev();
  const std::string vdev = "net_zg_emu_d0";
  std::vector<std::string> args = {"zeitgeberd",
                                   "--no-huge",
                                   "-m",
                                   "256",
                                   "--no-shconf",
                                   "--no-pci",
                                   "--no-telemetry",
                                   "--file-prefix",
                                   absl::StrCat("zgemud", getpid()),
                                   "--log-level=lib.eal:error",
                                   "-l",
                                   "0-1",
                                   "--vdev=" + vdev,
                                   "--",
                                   "--port=" + vdev,
                                   "--address=10.99.0.1/24",
                                   "--require_system_clock_sync=false",
                                   "--metrics_address=",
                                   "--status_address=",
                                   "--control_socket=",
                                   "--run_for=60s"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  signal(SIGHUP, SIG_IGN);  // until RunDaemon installs its handlers
  ProtocolPipelineFactory factory;
  int rc = -1;
  std::thread daemon([&] {
    rc = RunDaemon(static_cast<int>(args.size()), argv.data(), factory);
  });

  constexpr int64_t kAgo = 200 * kMs;
  bool hardware = false;
  int software = 0;
  std::vector<int64_t> sent_utc;  // [i]: when request i was injected
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!hardware && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EmulatedNic* nic = FindEmulatedNic(vdev);
    if (nic == nullptr) continue;  // not probed yet
    rte_ether_addr mac;
    if (rte_eth_macaddr_get(nic->port_id(), &mac) != 0) continue;
    const core::NtpTimestamp t1{kT1.seconds,
                                static_cast<uint32_t>(sent_utc.size())};
    sent_utc.push_back(absl::ToUnixNanos(absl::Now()));
    nic->Inject(UdpFrame(ClientFlow::V4(mac), NtpRequest(4, t1)), 0,
                nic->NicNowNs() - kAgo);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const EmulatedNic::WireFrame& f : nic->TakeTransmitted()) {
      const std::optional<Reply> r = ParseReply(f.bytes);
      if (!r || r->request >= sent_utc.size()) continue;
      const int64_t sent = sent_utc[r->request];
      if (std::abs(r->t2_utc_ns - (sent - kAgo)) < 20 * kMs) {
        hardware = true;
      } else {
        // A TSC stamp: taken when the worker polled, after the inject
        // (requests queued before the port started wait for it).
        EXPECT_GT(r->t2_utc_ns, sent - 10 * kMs);
        ++software;
      }
    }
  }
  kill(getpid(), SIGTERM);
  daemon.join();
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(hardware) << software << " replies with software stamps only";
}

}  // namespace
}  // namespace emulated_nic_daemon_test
}  // namespace zg::dataplane::testing
