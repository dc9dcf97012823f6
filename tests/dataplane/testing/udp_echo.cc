// TEST-ONLY: see udp_echo.h.
#include "tests/dataplane/testing/udp_echo.h"

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <cstring>
#include <memory>

#include "core/status_macros.h"
#include "dataplane/tx_checksum.h"

namespace zg::dataplane::testing {
namespace {

constexpr size_t kL3 = sizeof(rte_ether_hdr);
constexpr size_t kL4 = kL3 + sizeof(rte_ipv4_hdr);
constexpr size_t kPayload = kL4 + sizeof(rte_udp_hdr);

struct EchoParse {
  uint16_t payload_len;
};

void PutBe64(uint8_t* p, int64_t v) {
  const uint64_t be = rte_cpu_to_be_64(static_cast<uint64_t>(v));
  std::memcpy(p, &be, 8);
}
int64_t GetBe64(const uint8_t* p) {
  uint64_t be;
  std::memcpy(&be, p, 8);
  return static_cast<int64_t>(rte_be_to_cpu_64(be));
}

class EchoClassifier final : public FrameClassifier {
 public:
  explicit EchoClassifier(uint8_t drop_base) : drop_base_(drop_base) {}
  Verdict Classify(Packet& pkt) override {
    const uint8_t* f = pkt.data();
    if (pkt.length() < kPayload) return Verdict::Drop(drop_base_ + kNotUdp);
    const auto* eth = reinterpret_cast<const rte_ether_hdr*>(f);
    const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(f + kL3);
    if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
        ip->version_ihl != RTE_IPV4_VHL_DEF ||
        ip->next_proto_id != IPPROTO_UDP) {
      return Verdict::Drop(drop_base_ + kNotUdp);
    }
    const auto* udp = reinterpret_cast<const rte_udp_hdr*>(f + kL4);
    const uint16_t udp_len = rte_be_to_cpu_16(udp->dgram_len);
    if (udp_len < sizeof(rte_udp_hdr) || kL4 + udp_len > pkt.length()) {
      return Verdict::Drop(drop_base_ + kNotUdp);
    }
    pkt.ParseAs<EchoParse>().payload_len =
        static_cast<uint16_t>(udp_len - sizeof(rte_udp_hdr));
    switch (rte_be_to_cpu_16(udp->dst_port)) {
      case kEchoPort:
        return Verdict::Kind(EchoKind::kEcho);
      case kUnhandledPort:
        return Verdict::Kind(EchoKind::kUnhandled);
      default:
        return Verdict::Drop(drop_base_ + kNotUdp);
    }
  }

 private:
  uint8_t drop_base_;
};

class EchoHandler final : public FrameHandler {
 public:
  EchoHandler(uint8_t drop_base, TxOffloads offloads)
      : drop_base_(drop_base), offloads_(offloads) {}
  HandleResult Handle(Packet& pkt, const BurstContext&) override {
    if (pkt.ParseAs<EchoParse>().payload_len < kEchoPayloadMin) {
      return HandleResult::Drop(drop_base_ + kShort);
    }
    uint8_t* f = pkt.data();
    auto* eth = reinterpret_cast<rte_ether_hdr*>(f);
    auto* ip = reinterpret_cast<rte_ipv4_hdr*>(f + kL3);
    auto* udp = reinterpret_cast<rte_udp_hdr*>(f + kL4);
    std::swap(eth->src_addr, eth->dst_addr);
    const rte_be32_t ip_src = ip->src_addr;
    ip->src_addr = ip->dst_addr;
    ip->dst_addr = ip_src;
    const rte_be16_t port_src = udp->src_port;
    udp->src_port = udp->dst_port;
    udp->dst_port = port_src;
    // Trim Ethernet padding so the reply is exactly the datagram.
    pkt.Trim(static_cast<uint16_t>(kL4 + rte_be_to_cpu_16(udp->dgram_len)));
    PutBe64(f + kPayload + 8, pkt.rx.tai.value);
    f[kPayload + 24] = static_cast<uint8_t>(pkt.rx.clock);
    return HandleResult::TransmitFinalise();
  }
  void FinaliseTx(Packet& pkt, const TxStamp& tx) override {
    PutBe64(pkt.data() + kPayload + 16, tx.tai.value);
    FinaliseUdpChecksums(pkt.mbuf, offloads_, kL3, kL4 - kL3);
  }

 private:
  uint8_t drop_base_;
  TxOffloads offloads_;
};

}  // namespace

absl::Status UdpEchoFactory::RegisterNames(CounterNames& names) {
  ZG_RETURN_IF_ERROR(
      names.SetKindName(static_cast<uint8_t>(EchoKind::kEcho), "echo_test"));
  ZG_RETURN_IF_ERROR(names.SetKindName(
      static_cast<uint8_t>(EchoKind::kUnhandled), "echo_test_unhandled"));
  ZG_ASSIGN_OR_RETURN(drop_base_,
                      names.AddDropReasons("echo_test", {"not_udp", "short"}));
  return absl::OkStatus();
}

absl::StatusOr<Pipeline> UdpEchoFactory::Create(const WorkerSetup& setup) {
  Pipeline p;
  p.SetClassifier(std::make_unique<EchoClassifier>(drop_base_));
  const TxOffloads offloads =
      setup.ports.empty() ? TxOffloads{} : setup.ports[0].offloads;
  ZG_RETURN_IF_ERROR(p.SetHandler(
      EchoKind::kEcho, std::make_unique<EchoHandler>(drop_base_, offloads)));
  return p;
}

rte_mbuf* BuildUdpFrame(rte_mempool* pool, const UdpFrameSpec& spec) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  const size_t len = kPayload + spec.payload.size();
  uint8_t* f = reinterpret_cast<uint8_t*>(
      rte_pktmbuf_append(m, static_cast<uint16_t>(len)));
  if (f == nullptr) {
    rte_pktmbuf_free(m);
    return nullptr;
  }
  auto* eth = reinterpret_cast<rte_ether_hdr*>(f);
  std::memcpy(eth->dst_addr.addr_bytes, spec.dst_mac, 6);
  std::memcpy(eth->src_addr.addr_bytes, spec.src_mac, 6);
  eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
  auto* ip = reinterpret_cast<rte_ipv4_hdr*>(f + kL3);
  std::memset(ip, 0, sizeof(*ip));
  ip->version_ihl = RTE_IPV4_VHL_DEF;
  ip->total_length = rte_cpu_to_be_16(static_cast<uint16_t>(len - kL3));
  ip->time_to_live = 64;
  ip->next_proto_id = IPPROTO_UDP;
  ip->src_addr = rte_cpu_to_be_32(spec.src_ip);
  ip->dst_addr = rte_cpu_to_be_32(spec.dst_ip);
  ip->hdr_checksum = rte_ipv4_cksum(ip);
  auto* udp = reinterpret_cast<rte_udp_hdr*>(f + kL4);
  udp->src_port = rte_cpu_to_be_16(spec.src_port);
  udp->dst_port = rte_cpu_to_be_16(spec.dst_port);
  udp->dgram_len = rte_cpu_to_be_16(
      static_cast<uint16_t>(sizeof(rte_udp_hdr) + spec.payload.size()));
  std::memcpy(f + kPayload, spec.payload.data(), spec.payload.size());
  udp->dgram_cksum = 0;
  udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
  return m;
}

bool ParseEchoReply(const rte_mbuf* m, EchoReply* out) {
  if (m->data_len < kPayload + kEchoPayloadMin) return false;
  const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
  const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(f + kL3);
  const auto* udp = reinterpret_cast<const rte_udp_hdr*>(f + kL4);
  if (ip->next_proto_id != IPPROTO_UDP) return false;
  out->src_ip = rte_be_to_cpu_32(ip->src_addr);
  out->dst_ip = rte_be_to_cpu_32(ip->dst_addr);
  out->src_port = rte_be_to_cpu_16(udp->src_port);
  out->dst_port = rte_be_to_cpu_16(udp->dst_port);
  out->rx_tai_ns = GetBe64(f + kPayload + 8);
  out->tx_tai_ns = GetBe64(f + kPayload + 16);
  out->clock = f[kPayload + 24];
  // Recompute over a copy (rte_ipv4_udptcp_cksum_verify is experimental).
  std::vector<uint8_t> copy(f, f + m->data_len);
  auto* cip = reinterpret_cast<rte_ipv4_hdr*>(copy.data() + kL3);
  auto* cudp = reinterpret_cast<rte_udp_hdr*>(copy.data() + kL4);
  cudp->dgram_cksum = 0;
  out->udp_checksum_ok = udp->dgram_cksum != 0 &&
                         rte_ipv4_udptcp_cksum(cip, cudp) == udp->dgram_cksum;
  return true;
}

}  // namespace zg::dataplane::testing
