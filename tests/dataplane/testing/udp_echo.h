// TEST-ONLY pipeline: a UDP echo classifier + handler for the dataplane tests
// and the AF_XDP rig. Delete when the real pipeline (core/frame.h classifier,
// ARP/ICMP/ND, NTP and PTP handlers) is wired into zeitgeberd; it exists so
// the worker loop, the late-TX hook and the stamping can be tested before
// those land.
//
// Classification (IPv4 only, no VLAN): UDP to port 123 -> kind kEcho;
// UDP to port 319 -> kind kUnhandled (no handler: counted as no_handler);
// anything else -> dropped as "echo_test_not_udp".
// The echo handler swaps Ethernet/IP addresses and UDP ports and writes, at
// payload offset 8, the RX stamp (TAI ns, big-endian), at offset 24 the clock
// kind (0 TSC, 1 NIC); FinaliseTx writes the TX stamp at offset 16 and
// recomputes the UDP checksum. Payloads shorter than kEchoPayloadMin are
// dropped as "echo_test_short".
//
//   UdpEchoFactory factory;                 // a PipelineFactory
//   ZG_RETURN_IF_ERROR(factory.RegisterNames(names));
//   ZG_ASSIGN_OR_RETURN(Pipeline p, factory.Create(setup));
#ifndef ZG_TESTS_DATAPLANE_TESTING_UDP_ECHO_H_
#define ZG_TESTS_DATAPLANE_TESTING_UDP_ECHO_H_

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstdint>
#include <vector>

#include "dataplane/pipeline.h"

namespace zg::dataplane::testing {

enum class EchoKind : uint8_t { kEcho = 1, kUnhandled = 2 };
enum EchoDrop : uint8_t { kNotUdp = 0, kShort = 1 };
inline constexpr uint16_t kEchoPort = 123;
inline constexpr uint16_t kUnhandledPort = 319;
inline constexpr size_t kEchoPayloadMin = 25;

class UdpEchoFactory final : public PipelineFactory {
 public:
  absl::Status RegisterNames(CounterNames& names) override;
  absl::StatusOr<Pipeline> Create(const WorkerSetup& setup) override;
  uint8_t drop_base() const { return drop_base_; }

 private:
  uint8_t drop_base_ = 0;
};

// Frame building/parsing for tests.
struct UdpFrameSpec {
  uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
  uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
  uint32_t src_ip = 0x0a630002;  // 10.99.0.2 (host order)
  uint32_t dst_ip = 0x0a630001;  // 10.99.0.1
  uint16_t src_port = 40000;
  uint16_t dst_port = kEchoPort;
  std::vector<uint8_t> payload = std::vector<uint8_t>(48, 0);
};
// An Ethernet/IPv4/UDP frame with valid checksums, in an mbuf from `pool`.
rte_mbuf* BuildUdpFrame(rte_mempool* pool, const UdpFrameSpec& spec);
struct EchoReply {
  uint32_t src_ip = 0, dst_ip = 0;
  uint16_t src_port = 0, dst_port = 0;
  int64_t rx_tai_ns = 0, tx_tai_ns = 0;
  uint8_t clock = 0;
  bool udp_checksum_ok = false;
};
// Parses an echo reply; false if it is not one.
bool ParseEchoReply(const rte_mbuf* m, EchoReply* out);

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_UDP_ECHO_H_
