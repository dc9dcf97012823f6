// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY frame helpers for the dataplane tests and benchmarks. Client
// frames are built with core's builders (core/net/frame_build.h BuildUdpFrame,
// core/ntp/ntp_client.h) and copied into mbufs; replies are read back the way
// the client would read them: core::ClassifyFrame with the client's own
// addresses checks the addressing and every checksum.
//
//   ClientFlow flow = ClientFlow::V4(port->mac());
//   rte_mbuf* m = ToMbuf(pool, UdpFrame(flow, NtpRequest(4, t1)));
//   ... worker.PollOnce(); reply = dequeue ...
//   absl::StatusOr<ClientView> v = ReceiveAtClient(flow, reply);
//   core::NtpHeader h;  core::ParseNtpHeader(v->payload(), ..., &h);
#ifndef ZG_TESTS_DATAPLANE_TESTING_FRAMES_H_
#define ZG_TESTS_DATAPLANE_TESTING_FRAMES_H_

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/net/frame.h"
#include "core/net/net_headers.h"
#include "core/time/time_types.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane::testing {

// The server's addresses in these tests (--address values).
inline constexpr core::Ipv4Addr kServerIpv4 =
    core::Ipv4Addr::FromOctets(10, 99, 0, 1);
inline constexpr core::Ipv4Addr kClientIpv4 =
    core::Ipv4Addr::FromOctets(10, 99, 0, 2);
core::Ipv6Addr ServerIpv6();                             // fd99::1
core::Ipv6Addr ClientIpv6();                             // fd99::2
const std::vector<InterfaceAddress>& ServerAddresses();  // both, /24 and /64

// A WorkerSetup for one port with ServerAddresses().
WorkerSetup ServerSetup(uint16_t port_id, const rte_ether_addr& mac,
                        std::optional<uint16_t> vlan = std::nullopt);
core::MacAddr ToMac(const rte_ether_addr& mac);

// One client talking to the server.
struct ClientFlow {
  core::MacAddr client_mac{{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}};
  core::MacAddr server_mac;
  core::IpAddress client_ip;
  core::IpAddress server_ip;
  uint16_t client_port = 40000;
  uint16_t server_port = 123;
  std::optional<uint16_t> vlan;

  static ClientFlow V4(const rte_ether_addr& server_mac);
  static ClientFlow V6(const rte_ether_addr& server_mac);
};

// An Ethernet/IP/UDP frame from the client with valid checksums.
std::vector<uint8_t> UdpFrame(const ClientFlow& flow,
                              absl::Span<const uint8_t> payload);
// A 48-byte NTP client request (mode 3, core::BuildNtpClientRequest).
std::vector<uint8_t> NtpRequest(uint8_t version, core::NtpTimestamp transmit,
                                int8_t poll_log2 = 6);

// Copies `frame` into a fresh mbuf from `pool` (null if the pool is empty).
rte_mbuf* ToMbuf(rte_mempool* pool, absl::Span<const uint8_t> frame);
std::vector<uint8_t> Bytes(const rte_mbuf* m);

// A frame as the client of `flow` received it.
struct ClientView {
  std::vector<uint8_t> bytes;
  core::FrameInfo info;  // ClassifyFrame with the client's addresses
  const uint8_t* payload() const { return bytes.data() + info.payload_offset; }
};
// Classifies the frame in `m` with the client's MAC and address: an error
// unless it is addressed to the client and every checksum is right.
absl::StatusOr<ClientView> ReceiveAtClient(const ClientFlow& flow,
                                           const rte_mbuf* m);

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_FRAMES_H_
