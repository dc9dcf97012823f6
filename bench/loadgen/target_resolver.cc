// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/target_resolver.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/net/frame.h"
#include "core/net/l2l3_responder.h"

namespace zg::bench {
namespace {

constexpr absl::Duration kArpInterval = absl::Milliseconds(250);
constexpr absl::Duration kPollInterval = absl::Microseconds(100);

bool SendArpRequest(uint16_t port_id, rte_mempool* pool,
                    const LaneNetwork& net) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return false;
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t len =
      core::BuildArpRequest(data, rte_pktmbuf_tailroom(m), net.src_mac,
                            net.first_source.v4, net.target.v4, net.vlan_id);
  m->data_len = static_cast<uint16_t>(len);
  m->pkt_len = len;
  if (len == 0 || rte_eth_tx_burst(port_id, 0, &m, 1) != 1) {
    rte_pktmbuf_free(m);
    return false;
  }
  return true;
}

// Looks at one received frame: the target's MAC if it is the answer;
// answers ARP requests for our clients in place (the frame is then sent).
std::optional<core::MacAddr> Inspect(uint16_t port_id, uint16_t queue,
                                     rte_mbuf* m, const LaneNetwork& net) {
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  const core::FrameInfo info =
      core::ClassifyFrame(data, m->data_len, net.local);
  core::MacAddr mac;
  if (core::ReadArpReply(data, info, net.target.v4, &mac)) {
    rte_pktmbuf_free(m);
    return mac;
  }
  if (info.kind == core::FrameKind::kArpRequest) {
    core::FrameDrop drop;
    const uint32_t len = core::AnswerArpRequest(data, info, net.local, &drop);
    if (len != 0) {
      m->data_len = static_cast<uint16_t>(len);
      m->pkt_len = len;
      if (rte_eth_tx_burst(port_id, queue, &m, 1) == 1) return std::nullopt;
    }
  }
  rte_pktmbuf_free(m);
  return std::nullopt;
}

}  // namespace

absl::Status WaitForLink(uint16_t port_id, const std::string& port_name,
                         absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    rte_eth_link link{};
    if (rte_eth_link_get_nowait(port_id, &link) == 0 &&
        link.link_status == RTE_ETH_LINK_UP) {
      return absl::OkStatus();
    }
    if (absl::Now() >= deadline) break;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "port ", port_id, " (", port_name, "): link still down after ",
      absl::FormatDuration(timeout),
      ": is the peer running (net_memif: the role=server side must be up "
      "with the same socket=; AF_XDP: the interface up)? Raise "
      "--arp_timeout if it needs longer"));
}

absl::StatusOr<core::MacAddr> ResolveTargetMac(uint16_t port_id,
                                               uint16_t queues,
                                               rte_mempool* pool,
                                               const LaneNetwork& net,
                                               absl::Duration timeout) {
  if (net.target.is_v6() || net.first_source.is_v6()) {
    return absl::UnimplementedError(
        "IPv6 target: neighbour discovery is not implemented in zg-loadgen; "
        "pass the server's MAC with --target_mac=xx:xx:xx:xx:xx:xx");
  }
  const absl::Time deadline = absl::Now() + timeout;
  absl::Time next_request = absl::InfinitePast();
  uint32_t requests = 0;
  std::array<rte_mbuf*, 32> rx;
  while (absl::Now() < deadline) {
    if (absl::Now() >= next_request) {
      requests += SendArpRequest(port_id, pool, net) ? 1 : 0;
      next_request = absl::Now() + kArpInterval;
    }
    for (uint16_t q = 0; q < queues; ++q) {
      const uint16_t n = rte_eth_rx_burst(port_id, q, rx.data(), rx.size());
      std::optional<core::MacAddr> found;
      for (uint16_t i = 0; i < n; ++i) {
        const std::optional<core::MacAddr> mac =
            Inspect(port_id, q, rx[i], net);
        if (mac.has_value() && !found.has_value()) found = mac;
      }
      if (found.has_value()) return *found;
    }
    absl::SleepFor(kPollInterval);
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "no ARP reply from ", net.target.ToString(), " within ",
      absl::FormatDuration(timeout), " (", requests, " requests sent from ",
      net.first_source.ToString(), " on port ", port_id,
      "): is the server up, on this link, and serving that address? Pass "
      "--target_mac to skip ARP (e.g. for a reflector such as testpmd)"));
}

}  // namespace zg::bench
