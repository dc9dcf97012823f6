// SPDX-License-Identifier: Apache-2.0
// End-to-end test peer for core/ptp/ptp_management.h: a UDP PTP management
// responder on the general port (320), so that linuxptp's `pmc` can query
// it over the network (tests/e2e/ptp_pmc_test.sh). Answers every management
// message with AnswerPtpManagement() and a fixed set of data sets, to the
// PTP primary multicast group as ptp4l does; exits after `seconds`. Prints
// "listening on ..." once it answers, then one line per request.
//
//   ptp_management_responder 10.77.0.1 8
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/net/net_headers.h"
#include "core/ptp/ptp_management.h"

namespace {

using namespace zg::core;

constexpr PtpClockIdentity kClock{
    {0x02, 0x00, 0x5E, 0xFF, 0xFE, 0x00, 0x01, 0x29}};
constexpr const char* kPrimaryGroup = "224.0.1.129";

PtpDataSets DataSets() {
  PtpDataSets ds;
  ds.default_ds = {true, false, 1, 7, {6, 0x21, 0x4E5D}, 128, kClock, 0};
  ds.current_ds = {0, PtpCorrection{0}, PtpCorrection{0}};
  ds.parent_ds.parent_port_identity = {kClock, 0};
  ds.parent_ds.grandmaster_priority1 = 7;
  ds.parent_ds.grandmaster_clock_quality = {6, 0x21, 0x4E5D};
  ds.parent_ds.grandmaster_identity = kClock;
  ds.time_properties_ds = {37,   false, false, true,
                           true, true,  true,  PtpTimeSource::kGnss};
  ds.port_ds.port_identity = {kClock, 1};
  ds.port_ds.port_state = PtpPortState::kMaster;
  ds.port_ds.log_min_delay_req_interval = -4;
  return ds;
}

int Fail(const char* what) {
  std::perror(what);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LOCAL_IPV4 SECONDS\n", argv[0]);
    return 2;
  }
  in_addr local{};
  if (inet_pton(AF_INET, argv[1], &local) != 1) return Fail("inet_pton");
  const int seconds = std::atoi(argv[2]);
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return Fail("socket");
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in bind_addr{};
  bind_addr.sin_family = AF_INET;
  bind_addr.sin_port = htons(kPtpGeneralPort);
  if (bind(fd, reinterpret_cast<sockaddr*>(&bind_addr), sizeof bind_addr) < 0) {
    return Fail("bind 320");
  }
  ip_mreq mreq{};
  inet_pton(AF_INET, kPrimaryGroup, &mreq.imr_multiaddr);
  mreq.imr_interface = local;
  if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof mreq) < 0) {
    return Fail("IP_ADD_MEMBERSHIP");
  }
  setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &local, sizeof local);
  sockaddr_in group{};
  group.sin_family = AF_INET;
  group.sin_port = htons(kPtpGeneralPort);
  inet_pton(AF_INET, kPrimaryGroup, &group.sin_addr);

  PtpManagementConfig config;
  config.port_identity = {kClock, 1};
  const PtpDataSets data_sets = DataSets();
  std::array<uint8_t, 1500> in, out;
  // Bound and in the group: from here on a request is answered.
  std::printf("listening on %s port %u\n", argv[1], kPtpGeneralPort);
  std::fflush(stdout);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    sockaddr_in from{};
    socklen_t from_len = sizeof from;
    const ssize_t n = recvfrom(fd, in.data(), in.size(), 0,
                               reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n <= 0 || from.sin_addr.s_addr == local.s_addr) continue;
    const PtpManagementAnswer a = AnswerPtpManagement(
        std::span(in).first(static_cast<size_t>(n)), config, data_sets, out);
    std::printf("request of %zd octets: %s, drop %s, reply %zu octets\n", n,
                PtpManagementResultName(a.result), PtpDropName(a.drop),
                a.length);
    std::fflush(stdout);
    if (a.length == 0) continue;
    sendto(fd, out.data(), a.length, 0, reinterpret_cast<sockaddr*>(&group),
           sizeof group);
  }
  close(fd);
  return 0;
}
