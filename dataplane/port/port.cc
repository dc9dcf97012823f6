// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/port.h"

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "dataplane/clock/nic_clock.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {
namespace {

constexpr uint16_t kMaxBurst = 64;

std::string PortLabel(uint16_t id, const std::string& name) {
  return absl::StrCat("port ", id, " (", name, ")");
}

std::string ListPorts() {
  std::vector<std::string> ports;
  uint16_t id;
  RTE_ETH_FOREACH_DEV(id) {
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(id, name);
    ports.push_back(absl::StrCat(id, " (", name, ")"));
  }
  if (ports.empty()) {
    return "there are no DPDK ports: add a device with an EAL option (a PCI "
           "NIC bound to vfio-pci: -a 0000:3b:00.0; AF_XDP: "
           "--vdev=net_af_xdp0,iface=eth1; tests: --vdev=net_ring0) and check "
           "the EAL's probe messages above";
  }
  return absl::StrCat("ports: ", absl::StrJoin(ports, ", "));
}

std::string FormatMac(const rte_ether_addr& mac) {
  const uint8_t* b = mac.addr_bytes;
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2],
                         b[3], b[4], b[5]);
}

uint32_t RoundUpPow2Minus1(uint32_t n) {
  uint32_t p = 1;
  while (p - 1 < n) p <<= 1;
  return p - 1;  // mempools are most memory-efficient at 2^k - 1 elements
}

}  // namespace

absl::StatusOr<uint16_t> ResolvePort(const std::string& name_or_id) {
  uint32_t id = 0;
  if (absl::SimpleAtoi(name_or_id, &id)) {
    if (id < RTE_MAX_ETHPORTS && rte_eth_dev_is_valid_port(id)) {
      return static_cast<uint16_t>(id);
    }
    return absl::NotFoundError(
        absl::StrCat("no DPDK port ", name_or_id, "; ", ListPorts()));
  }
  uint16_t port = 0;
  if (rte_eth_dev_get_port_by_name(name_or_id.c_str(), &port) == 0) {
    return port;
  }
  return absl::NotFoundError(absl::StrCat(
      "no DPDK port named '", name_or_id,
      "' (if it was given with --vdev or -a, its probe failed: see the EAL "
      "messages above); ",
      ListPorts()));
}

uint64_t RssHashFunctions(uint64_t offered) {
  // IPv4/IPv6 source and destination addresses only (RTE_ETH_RSS_IP has no
  // L4 types): a client keeps its worker, and the rate limiter's per-worker
  // table its record, whatever source port it uses.
  return RTE_ETH_RSS_IP & offered;
}

bool RssSteersByAddress(uint16_t queues, uint64_t rss_hf) {
  return queues <= 1 || (rss_hf != 0 && (rss_hf & ~RTE_ETH_RSS_IP) == 0);
}

bool Port::steers_by_address() const {
  return RssSteersByAddress(num_queues_, caps_.rss_hf);
}

std::string DescribeRssHf(uint64_t rss_hf) {
  static constexpr std::pair<uint64_t, const char*> kNames[] = {
      {RTE_ETH_RSS_IPV4, "ipv4"},
      {RTE_ETH_RSS_FRAG_IPV4, "ipv4-frag"},
      {RTE_ETH_RSS_NONFRAG_IPV4_UDP, "ipv4-udp"},
      {RTE_ETH_RSS_NONFRAG_IPV4_OTHER, "ipv4-other"},
      {RTE_ETH_RSS_IPV6, "ipv6"},
      {RTE_ETH_RSS_FRAG_IPV6, "ipv6-frag"},
      {RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ipv6-udp"},
      {RTE_ETH_RSS_NONFRAG_IPV6_OTHER, "ipv6-other"},
      {RTE_ETH_RSS_IPV6_EX, "ipv6-ex"},
      {RTE_ETH_RSS_IPV6_UDP_EX, "ipv6-udp-ex"},
  };
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if (rss_hf & bit) out.push_back(name);
  }
  return out.empty() ? "none" : absl::StrJoin(out, ",");
}

absl::StatusOr<std::unique_ptr<Port>> Port::Open(const PortOptions& options,
                                                 MbufPools* pools) {
  ZG_ASSIGN_OR_RETURN(const uint16_t id, ResolvePort(options.name));
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_get_name_by_port(id, name);
  std::unique_ptr<Port> port(new Port(id, name));
  ZG_RETURN_IF_ERROR(port->Configure(options, pools));
  return port;
}

absl::Status Port::Configure(const PortOptions& options, MbufPools* pools) {
  const std::string label = PortLabel(id_, name_);
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(id_, &info); rc != 0) {
    return absl::InternalError(
        absl::StrCat(label, ": cannot read device info: ", std::strerror(-rc)));
  }
  caps_.driver = info.driver_name != nullptr ? info.driver_name : "?";
  caps_.max_rx_queues = info.max_rx_queues;
  caps_.max_tx_queues = info.max_tx_queues;
  caps_.rss_hf_offered = info.flow_type_rss_offloads;
  const uint16_t nq = options.num_queues;
  const uint16_t max_q = std::min(info.max_rx_queues, info.max_tx_queues);
  if (nq == 0 || nq > max_q) {
    return absl::FailedPreconditionError(absl::StrCat(
        label, " supports ", max_q, " queue", max_q == 1 ? "" : "s", " but ",
        nq, " worker", nq == 1 ? " was" : "s were",
        " requested: give the EAL fewer worker lcores (-l), or give the device "
        "more queues (AF_XDP: queue_count= in --vdev and ethtool -L on the "
        "interface)"));
  }
  num_queues_ = nq;

  rte_eth_conf conf{};
  if (nq > 1) {
    caps_.rss_hf = RssHashFunctions(info.flow_type_rss_offloads);
    if (caps_.rss_hf != 0) {
      conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
      conf.rx_adv_conf.rss_conf.rss_hf = caps_.rss_hf;
    } else {
      LogWarning(absl::StrCat(
          label, " offers no IP RSS: with ", nq,
          " queues, clients are not spread by the NIC (only queue 0 may "
          "receive, unless the device splits traffic itself)"));
    }
  }
  if (options.rx_timestamp &&
      (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0) {
    conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
    caps_.rx_timestamp_offload = true;
  }
  if (options.tx_schedule &&
      (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP) != 0) {
    conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
    caps_.send_on_timestamp = true;
  }
  if (options.tx_checksum_offload) {
    caps_.tx_ipv4_checksum =
        (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0;
    caps_.tx_udp_checksum =
        (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
    if (caps_.tx_ipv4_checksum)
      conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
    if (caps_.tx_udp_checksum)
      conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
  }
  if (options.mtu != 0) {
    if (options.mtu < info.min_mtu || options.mtu > info.max_mtu) {
      return absl::OutOfRangeError(absl::StrCat(
          label, ": MTU ", options.mtu, " is outside the device's range ",
          info.min_mtu, "..", info.max_mtu));
    }
    conf.rxmode.mtu = options.mtu;
  }
  caps_.lsc_interrupt = info.dev_flags != nullptr &&
                        (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
  conf.intr_conf.lsc = caps_.lsc_interrupt ? 1 : 0;
  want_timesync_ = options.timesync;

  if (int rc = rte_eth_dev_configure(id_, nq, nq, &conf); rc != 0) {
    return absl::InternalError(absl::StrCat(
        label, ": rte_eth_dev_configure(", nq, " queues) failed: ",
        std::strerror(-rc), " (EAL/PMD messages above say which setting)"));
  }
  if (caps_.rx_timestamp_offload) {
    ZG_ASSIGN_OR_RETURN(stamp_field_, RegisterNicStampField());
  }
  if (caps_.send_on_timestamp) {
    ZG_ASSIGN_OR_RETURN(tx_launch_field_, RegisterTxLaunchField());
  }
  if (caps_.lsc_interrupt) {
    lsc_registered_ =
        rte_eth_dev_callback_register(id_, RTE_ETH_EVENT_INTR_LSC,
                                      &Port::OnLinkEvent, this) == 0;
  }
  return SetupQueues(options, pools, conf);
}

absl::Status Port::SetupQueues(const PortOptions& options, MbufPools* pools,
                               const rte_eth_conf& conf) {
  const std::string label = PortLabel(id_, name_);
  uint16_t nb_rxd = options.rx_desc, nb_txd = options.tx_desc;
  if (int rc = rte_eth_dev_adjust_nb_rx_tx_desc(id_, &nb_rxd, &nb_txd);
      rc != 0) {
    return absl::InternalError(absl::StrCat(
        label, ": cannot adjust descriptor counts: ", std::strerror(-rc)));
  }
  rte_eth_dev_info info{};
  rte_eth_dev_info_get(id_, &info);
  rte_eth_rxconf rxconf = info.default_rxconf;
  rxconf.offloads = conf.rxmode.offloads;
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  // net_af_xdp turns each RX queue's pool into a UMEM: it needs its own.
  caps_.dedicated_pools = caps_.driver == "net_af_xdp";
  const int port_socket = rte_eth_dev_socket_id(id_);
  for (uint16_t q = 0; q < num_queues_; ++q) {
    int socket = port_socket;
    if (q < options.queue_sockets.size()) socket = options.queue_sockets[q];
    rte_mempool* pool = nullptr;
    if (caps_.dedicated_pools) {
      const uint32_t need = RoundUpPow2Minus1(nb_rxd + nb_txd + 2 * kMaxBurst +
                                              kMbufCacheSize + 4096);
      ZG_ASSIGN_OR_RETURN(
          pool, pools->Dedicated(absl::StrCat("p", id_, "q", q), socket, need));
    } else {
      ZG_ASSIGN_OR_RETURN(pool, pools->ForSocket(socket));
    }
    const unsigned qsocket = socket == SOCKET_ID_ANY
                                 ? rte_socket_id()
                                 : static_cast<unsigned>(socket);
    if (int rc = rte_eth_rx_queue_setup(id_, q, nb_rxd, qsocket, &rxconf, pool);
        rc != 0) {
      return absl::InternalError(absl::StrCat(
          label, ": RX queue ", q, " setup failed: ", std::strerror(-rc)));
    }
    if (int rc = rte_eth_tx_queue_setup(id_, q, nb_txd, qsocket, &txconf);
        rc != 0) {
      return absl::InternalError(absl::StrCat(
          label, ": TX queue ", q, " setup failed: ", std::strerror(-rc)));
    }
  }
  return absl::OkStatus();
}

absl::Status Port::Start() {
  const std::string label = PortLabel(id_, name_);
  if (int rc = rte_eth_dev_start(id_); rc != 0) {
    return absl::InternalError(
        absl::StrCat(label, ": start failed: ", std::strerror(-rc),
                     " (see the PMD messages above)"));
  }
  started_ = true;
  caps_.read_clock = EthdevNicClock::Open(id_).ok();
  if (want_timesync_) {
    const absl::Status ts = EnableTimesync(id_);
    caps_.timesync = ts.ok();
    if (!ts.ok()) LogWarning(ts.message());
  }
  // PTP multicast and IPv6 neighbour solicitations reach us only with
  // all-multicast on; some PMDs cannot (they deliver everything anyway).
  if (int rc = rte_eth_allmulticast_enable(id_); rc != 0 && rc != -ENOTSUP) {
    LogWarning(absl::StrCat(
        label, ": cannot enable all-multicast: ", std::strerror(-rc)));
  }
  rte_eth_macaddr_get(id_, &mac_);
  if (rte_is_zero_ether_addr(&mac_)) {
    // Virtual devices (net_ring, net_null) have none; replies need one.
    rte_eth_random_addr(mac_.addr_bytes);
    (void)rte_eth_dev_default_mac_addr_set(id_, &mac_);
    LogWarning(absl::StrCat(label, ": the device has no MAC address; using ",
                            FormatMac(mac_),
                            " (random, locally administered)"));
  }
  rte_eth_dev_get_mtu(id_, &mtu_);
  PollLink();
  return absl::OkStatus();
}

void Port::Stop() {
  if (!started_) return;
  if (caps_.timesync) rte_eth_timesync_disable(id_);
  rte_eth_dev_stop(id_);
  started_ = false;
}

Port::~Port() {
  if (lsc_registered_) {
    rte_eth_dev_callback_unregister(id_, RTE_ETH_EVENT_INTR_LSC,
                                    &Port::OnLinkEvent, this);
  }
  Stop();
  rte_eth_dev_close(id_);
}

std::string Port::devargs() const {
  rte_eth_dev_info info{};
  if (rte_eth_dev_info_get(id_, &info) != 0 || info.device == nullptr)
    return "";
  const rte_devargs* da = rte_dev_devargs(info.device);
  if (da == nullptr || da->args == nullptr) return "";
  return da->args;
}

std::string Port::Describe() const {
  const char* yes_no[] = {"no", "yes"};
  return absl::StrCat(
      PortLabel(id_, name_), ": driver ", caps_.driver, ", ", num_queues_,
      " queue pair(s) of max ", caps_.max_rx_queues, ", RSS ",
      num_queues_ > 1 ? DescribeRssHf(caps_.rss_hf) : "off (1 queue)",
      "; rx_timestamp ", yes_no[caps_.rx_timestamp_offload], ", read_clock ",
      yes_no[caps_.read_clock], " -> ",
      caps_.hardware_rx_stamps() ? "hardware" : "software (TSC)",
      " RX stamps; timesync ",
      want_timesync_ ? yes_no[caps_.timesync] : "not requested",
      "; send_on_timestamp ", yes_no[caps_.send_on_timestamp],
      "; TX checksum offload ipv4 ", yes_no[caps_.tx_ipv4_checksum], " udp ",
      yes_no[caps_.tx_udp_checksum], "; link state ",
      caps_.lsc_interrupt ? "interrupt" : "polled", "; MAC ", FormatMac(mac_),
      ", MTU ", mtu_, "; link ",
      link_.up ? absl::StrCat("up ", link_.speed_mbps, " Mb/s") : "down");
}

bool Port::PollLink() {
  rte_eth_link l{};
  if (rte_eth_link_get_nowait(id_, &l) != 0) return false;
  LinkState now{l.link_status == RTE_ETH_LINK_UP, l.link_speed,
                l.link_duplex == RTE_ETH_LINK_FULL_DUPLEX};
  if (link_known_ && now == link_) return false;
  const bool changed = link_known_;
  link_known_ = true;
  link_ = now;
  if (changed) {
    LogInfo(absl::StrCat(PortLabel(id_, name_), ": link ",
                         now.up
                             ? absl::StrCat("up ", now.speed_mbps, " Mb/s",
                                            now.full_duplex ? " full" : " half")
                             : "down"));
  }
  return true;
}

int Port::OnLinkEvent(uint16_t, rte_eth_event_type, void* self, void*) {
  static_cast<Port*>(self)->lsc_events_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

}  // namespace zg::dataplane
