// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: see frames.h.
#include "tests/dataplane/testing/frames.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/net/frame_build.h"
#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_wire.h"

namespace zg::dataplane::testing {

core::Ipv6Addr ServerIpv6() {
  return {{0xfd, 0x99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
}
core::Ipv6Addr ClientIpv6() {
  return {{0xfd, 0x99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};
}

const std::vector<InterfaceAddress>& ServerAddresses() {
  static const std::vector<InterfaceAddress>* addresses = [] {
    auto* v = new std::vector<InterfaceAddress>(2);
    (*v)[0].family = InterfaceAddress::kIpv4;
    kServerIpv4.Store((*v)[0].bytes.data());
    (*v)[0].prefix_len = 24;
    (*v)[1].family = InterfaceAddress::kIpv6;
    ServerIpv6().Store((*v)[1].bytes.data());
    (*v)[1].prefix_len = 64;
    return v;
  }();
  return *addresses;
}

WorkerSetup ServerSetup(uint16_t port_id, const rte_ether_addr& mac,
                        std::optional<uint16_t> vlan) {
  WorkerSetup s;
  WorkerPort p;
  p.port_id = port_id;
  p.mac = mac;
  s.ports.push_back(p);
  s.addresses = ServerAddresses();
  s.vlan_id = vlan.value_or(0);
  return s;
}

core::MacAddr ToMac(const rte_ether_addr& mac) {
  return core::MacAddr::Load(mac.addr_bytes);
}

ClientFlow ClientFlow::V4(const rte_ether_addr& server_mac) {
  ClientFlow f;
  f.server_mac = ToMac(server_mac);
  f.client_ip = core::IpAddress::V4(kClientIpv4);
  f.server_ip = core::IpAddress::V4(kServerIpv4);
  return f;
}

ClientFlow ClientFlow::V6(const rte_ether_addr& server_mac) {
  ClientFlow f;
  f.server_mac = ToMac(server_mac);
  f.client_ip = core::IpAddress::V6(ClientIpv6());
  f.server_ip = core::IpAddress::V6(ServerIpv6());
  return f;
}

std::vector<uint8_t> UdpFrame(const ClientFlow& flow,
                              absl::Span<const uint8_t> payload) {
  core::UdpFrameSpec spec;
  spec.src_mac = flow.client_mac;
  spec.dst_mac = flow.server_mac;
  spec.vlan_id = flow.vlan;
  spec.src_ip = flow.client_ip;
  spec.dst_ip = flow.server_ip;
  spec.src_port = flow.client_port;
  spec.dst_port = flow.server_port;
  std::vector<uint8_t> frame(128 + payload.size());
  core::FrameInfo info;
  const uint32_t len =
      core::BuildUdpFrame(frame.data(), static_cast<uint32_t>(frame.size()),
                          spec, static_cast<uint16_t>(payload.size()), &info);
  if (len == 0) return {};
  std::memcpy(frame.data() + info.payload_offset, payload.data(),
              payload.size());
  core::FinaliseUdpChecksum(frame.data(), info);
  frame.resize(len);
  return frame;
}

std::vector<uint8_t> NtpRequest(uint8_t version, core::NtpTimestamp transmit,
                                int8_t poll_log2) {
  std::vector<uint8_t> p(core::kNtpHeaderSize);
  core::BuildNtpClientRequest(p.data(), version, poll_log2, transmit);
  return p;
}

rte_mbuf* ToMbuf(rte_mempool* pool, absl::Span<const uint8_t> frame) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  char* p = rte_pktmbuf_append(m, static_cast<uint16_t>(frame.size()));
  if (p == nullptr) {
    rte_pktmbuf_free(m);
    return nullptr;
  }
  std::memcpy(p, frame.data(), frame.size());
  return m;
}

std::vector<uint8_t> Bytes(const rte_mbuf* m) {
  const uint8_t* p = rte_pktmbuf_mtod(m, const uint8_t*);
  return std::vector<uint8_t>(p, p + m->data_len);
}

absl::StatusOr<ClientView> ReceiveAtClient(const ClientFlow& flow,
                                           const rte_mbuf* m) {
  absl::StatusOr<core::LocalAddresses> local =
      core::LocalAddresses::Create(flow.client_mac, flow.vlan);
  if (!local.ok()) return local.status();
  if (absl::Status s = local->Add(flow.client_ip); !s.ok()) return s;
  ClientView v;
  v.bytes = Bytes(m);
  v.info = core::ClassifyFrame(v.bytes.data(),
                               static_cast<uint32_t>(v.bytes.size()), *local);
  if (v.info.kind == core::FrameKind::kDrop) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the client drops the reply: ", core::FrameDropName(v.info.drop)));
  }
  return v;
}

}  // namespace zg::dataplane::testing
