// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/testing/emulated_nic.h"

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tests/dataplane/testing/emulated_nic_device.h"
#include "tests/dataplane/testing/ethdev_pmd_abi.h"

namespace zg::dataplane::testing {
namespace {

using emulated_nic_internal::EmulatedNicDevice;
using emulated_nic_internal::Queue;
using pmd_abi::Dev;

// The driver as rte_eth_dev_info reports it (the vdev driver has this name
// too: emulated_nic_vdev.h).
constexpr char kDriverName[] = "net_zg_emu";
constexpr int64_t kNsPerS = 1'000'000'000;

// What ethdev's dev_private points to (rte_zmalloc'd: ethdev rte_free's it
// when the port is released; the device itself belongs to the EmulatedNic).
struct Private {
  EmulatedNicDevice* dev;
};

EmulatedNicDevice* DeviceOf(Dev* dev) {
  return static_cast<Private*>(pmd_abi::View(dev)->data->dev_private)->dev;
}

int64_t NsOf(const timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}
timespec TimespecOf(int64_t ns) {
  int64_t s = ns / kNsPerS, r = ns % kNsPerS;
  if (r < 0) r += kNsPerS, --s;
  return {static_cast<time_t>(s), static_cast<long>(r)};
}

uint16_t RxBurst(void* q, rte_mbuf** pkts, uint16_t n) {
  auto* queue = static_cast<Queue*>(q);
  return queue->dev->RxBurst(queue, pkts, n);
}
uint16_t TxBurst(void* q, rte_mbuf** pkts, uint16_t n) {
  auto* queue = static_cast<Queue*>(q);
  return queue->dev->TxBurst(queue, pkts, n);
}

int Configure(Dev* dev) {
  DeviceOf(dev)->Configure(pmd_abi::View(dev)->data->dev_conf);
  return 0;
}
int Start(Dev* dev) {
  return DeviceOf(dev)->Start(pmd_abi::View(dev)->data->port_id);
}
int Stop(Dev*) { return 0; }
int Close(Dev*) { return 0; }  // the EmulatedNic frees the device
int Ok(Dev*) { return 0; }
int LinkUpdate(Dev*, int) { return 0; }  // the link never changes
int MacAddrSet(Dev*, rte_ether_addr*) { return 0; }
int MtuSet(Dev*, uint16_t) { return 0; }

int InfosGet(Dev* dev, rte_eth_dev_info* info) {
  const EmulatedNicDevice* d = DeviceOf(dev);
  const EmulatedNicConfig& c = d->config();
  info->max_mac_addrs = 1;
  info->max_rx_pktlen = d->mbuf_data_room();
  info->max_mtu = static_cast<uint16_t>(d->mbuf_data_room() -
                                        RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN);
  info->max_rx_queues = c.queues;
  info->max_tx_queues = c.queues;
  info->flow_type_rss_offloads = RTE_ETH_RSS_IP;
  info->rx_offload_capa = c.rx_dynfield ? RTE_ETH_RX_OFFLOAD_TIMESTAMP : 0;
  info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
  if (c.send_on_timestamp) {
    info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
  }
  info->speed_capa = RTE_ETH_LINK_SPEED_25G;
  return 0;
}

int RxQueueSetup(Dev* dev, uint16_t q, uint16_t, unsigned,
                 const rte_eth_rxconf*, rte_mempool*) {
  EmulatedNicDevice* d = DeviceOf(dev);
  if (q >= d->config().queues) return -EINVAL;
  pmd_abi::View(dev)->data->rx_queues[q] = d->rx_queue(q);
  return 0;
}
int TxQueueSetup(Dev* dev, uint16_t q, uint16_t, unsigned,
                 const rte_eth_txconf*) {
  EmulatedNicDevice* d = DeviceOf(dev);
  if (q >= d->config().queues) return -EINVAL;
  pmd_abi::View(dev)->data->tx_queues[q] = d->tx_queue(q);
  return 0;
}
void QueueRelease(Dev*, uint16_t) {}  // queues belong to the device

int StatsGet(Dev* dev, rte_eth_stats* s) {
  EmulatedNicDevice* d = DeviceOf(dev);
  constexpr auto r = std::memory_order_relaxed;
  for (uint16_t q = 0; q < d->config().queues; ++q) {
    const uint64_t ip = d->rx_queue(q)->packets.load(r);
    const uint64_t ib = d->rx_queue(q)->bytes.load(r);
    const uint64_t op = d->tx_queue(q)->packets.load(r);
    const uint64_t ob = d->tx_queue(q)->bytes.load(r);
    s->ipackets += ip, s->ibytes += ib, s->opackets += op, s->obytes += ob;
    if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
      s->q_ipackets[q] = ip, s->q_ibytes[q] = ib;
      s->q_opackets[q] = op, s->q_obytes[q] = ob;
    }
  }
  s->imissed = d->rx_missed();
  return 0;
}
int StatsReset(Dev* dev) {
  DeviceOf(dev)->ResetQueueStats();
  return 0;
}

// Driver xstats: the emulation's own counters (EmulatedNic::Counters).
constexpr const char* kXstatNames[] = {
    "rx_hw_timestamped",        "rx_timesync_latched",
    "tx_timesync_latched",      "tx_timesync_lost",
    "tx_timesync_overwritten",  "tx_timesync_read",
    "tx_launch_time_scheduled", "tx_launch_time_late"};
constexpr unsigned kNumXstats = std::size(kXstatNames);

int XstatsGetNames(Dev*, rte_eth_xstat_name* names, unsigned size) {
  if (names == nullptr || size < kNumXstats) return kNumXstats;
  for (unsigned i = 0; i < kNumXstats; ++i) {
    std::snprintf(names[i].name, sizeof(names[i].name), "%s", kXstatNames[i]);
  }
  return kNumXstats;
}
int XstatsGet(Dev* dev, rte_eth_xstat* xstats, unsigned n) {
  if (xstats == nullptr || n < kNumXstats) return kNumXstats;
  const EmulatedNic::Counters c = DeviceOf(dev)->Snapshot();
  const uint64_t values[] = {c.rx_stamped,
                             c.rx_timesync_latched,
                             c.tx_stamps_latched,
                             c.tx_stamps_lost,
                             c.tx_stamps_overwritten,
                             c.tx_stamps_read,
                             c.launch_scheduled,
                             c.launch_late};
  static_assert(std::size(values) == kNumXstats);
  for (unsigned i = 0; i < kNumXstats; ++i) xstats[i] = {i, values[i]};
  return kNumXstats;
}

int TimesyncEnable(Dev* dev) {
  DeviceOf(dev)->SetTimesync(true);
  return 0;
}
int TimesyncDisable(Dev* dev) {
  DeviceOf(dev)->SetTimesync(false);
  return 0;
}
int ReadRxTimestamp(Dev* dev, timespec* ts, uint32_t flags) {
  return DeviceOf(dev)->ReadRxStamp(ts, flags);
}
int ReadTxTimestamp(Dev* dev, timespec* ts) {
  return DeviceOf(dev)->ReadTxStamp(ts);
}
int AdjustTime(Dev* dev, int64_t delta_ns) {
  DeviceOf(dev)->clock().Step(delta_ns);
  return 0;
}
int ReadTime(Dev* dev, timespec* ts) {
  *ts = TimespecOf(DeviceOf(dev)->clock().Now());
  return 0;
}
int WriteTime(Dev* dev, const timespec* ts) {
  EmulatedNicDevice* d = DeviceOf(dev);
  d->clock().Step(NsOf(*ts) - d->clock().Now());
  return 0;
}
int ReadClock(Dev* dev, uint64_t* ticks) {
  *ticks = static_cast<uint64_t>(DeviceOf(dev)->clock().Now());
  return 0;
}

// The ops a NIC with `c`'s features has; the others stay null (-ENOTSUP).
pmd_abi::DevOps MakeOps(const EmulatedNicConfig& c) {
  pmd_abi::DevOps ops{};
  ops.dev_configure = Configure;
  ops.dev_start = Start;
  ops.dev_stop = Stop;
  ops.dev_close = Close;
  ops.link_update = LinkUpdate;
  ops.promiscuous_enable = ops.promiscuous_disable = Ok;
  ops.allmulticast_enable = ops.allmulticast_disable = Ok;
  ops.mac_addr_set = MacAddrSet;
  ops.mtu_set = MtuSet;
  ops.stats_get = StatsGet;
  ops.stats_reset = StatsReset;
  ops.xstats_get = XstatsGet;
  ops.xstats_get_names = XstatsGetNames;
  ops.dev_infos_get = InfosGet;
  ops.rx_queue_setup = RxQueueSetup;
  ops.rx_queue_release = QueueRelease;
  ops.tx_queue_setup = TxQueueSetup;
  ops.tx_queue_release = QueueRelease;
  if (c.timesync) {
    ops.timesync_enable = TimesyncEnable;
    ops.timesync_disable = TimesyncDisable;
    ops.timesync_read_rx_timestamp = ReadRxTimestamp;
    ops.timesync_read_tx_timestamp = ReadTxTimestamp;
    ops.timesync_adjust_time = AdjustTime;
    ops.timesync_read_time = ReadTime;
    ops.timesync_write_time = WriteTime;
  }
  if (c.rx_dynfield) ops.read_clock = ReadClock;
  return ops;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "EmulatedNic: %s\n", what.c_str());
  std::abort();
}

}  // namespace

struct EmulatedNic::State {
  EmulatedNicConfig config;
  std::string name;  // the ethdev name, "net_zg_emu_<tag>"
  std::unique_ptr<EmulatedNicDevice> device;
  pmd_abi::DevOps ops{};
  pmd_abi::Driver driver{};
  pmd_abi::Device rte_device{};
  rte_eth_dev* dev = nullptr;
  uint16_t port_id = 0;
};

std::unique_ptr<EmulatedNic> EmulatedNic::Create(
    const std::string& tag, const EmulatedNicConfig& config) {
  static std::atomic<int> instances{0};
  if (config.queues == 0 || config.ring_size < 2) {
    Die(absl::StrCat(tag, ": needs at least one queue and a ring of 2"));
  }
  auto s = std::make_unique<State>();
  s->config = config;
  s->name = absl::StrCat("net_zg_emu_", tag);
  s->device = std::make_unique<EmulatedNicDevice>(
      config, absl::StrCat("zgemu", instances.fetch_add(1)));
  s->ops = MakeOps(config);
  s->driver.name = kDriverName;
  s->rte_device.name = s->name.c_str();
  s->rte_device.driver = &s->driver;
  s->rte_device.numa_node = SOCKET_ID_ANY;

  s->dev = rte_eth_dev_allocate(s->name.c_str());
  if (s->dev == nullptr) {
    Die(absl::StrCat("rte_eth_dev_allocate(", s->name,
                     ") failed (name taken or no free port)"));
  }
  pmd_abi::EthDev* e = pmd_abi::View(s->dev);
  pmd_abi::DevData* data = e->data;
  auto* priv = static_cast<Private*>(rte_zmalloc("zgemu", sizeof(Private), 0));
  auto* mac = static_cast<rte_ether_addr*>(
      rte_zmalloc("zgemu", sizeof(rte_ether_addr), 0));
  if (priv == nullptr || mac == nullptr) Die("rte_zmalloc failed");
  priv->dev = s->device.get();
  // A locally administered unicast MAC: 02:5a:47:00:<port id>.
  const uint8_t addr[RTE_ETHER_ADDR_LEN] = {
      0x02, 0x5a, 0x47, 0x00, 0x00, static_cast<uint8_t>(data->port_id)};
  std::memcpy(mac->addr_bytes, addr, sizeof(addr));
  data->dev_private = priv;
  data->mac_addrs = mac;
  data->dev_link = {};
  data->dev_link.link_speed = RTE_ETH_SPEED_NUM_25G;
  data->dev_link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
  data->dev_link.link_autoneg = RTE_ETH_LINK_FIXED;
  data->dev_link.link_status = RTE_ETH_LINK_UP;
  data->mode_bits |= pmd_abi::kPromiscuousBit | pmd_abi::kAllMulticastBit;
  data->numa_node = SOCKET_ID_ANY;
  e->device = &s->rte_device;
  e->dev_ops = &s->ops;
  e->rx_pkt_burst = RxBurst;
  e->tx_pkt_burst = TxBurst;
  rte_eth_dev_probing_finish(s->dev);

  // The layouts of ethdev_pmd_abi.h must be the library's.
  uint16_t id = 0;
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_info info{};
  rte_eth_link link{};
  if (rte_eth_dev_get_port_by_name(s->name.c_str(), &id) != 0 ||
      id != data->port_id || rte_eth_dev_get_name_by_port(id, name) != 0 ||
      s->name != name || rte_eth_dev_info_get(id, &info) != 0 ||
      std::strcmp(info.driver_name, kDriverName) != 0 ||
      info.max_rx_queues != config.queues ||
      rte_eth_link_get_nowait(id, &link) != 0 ||
      link.link_speed != RTE_ETH_SPEED_NUM_25G ||
      rte_eth_dev_socket_id(id) != SOCKET_ID_ANY) {
    Die(absl::StrCat(s->name,
                     ": this DPDK's ethdev driver ABI differs from "
                     "tests/dataplane/testing/ethdev_pmd_abi.h"));
  }
  s->port_id = id;
  return std::unique_ptr<EmulatedNic>(new EmulatedNic(std::move(s)));
}

EmulatedNic::EmulatedNic(std::unique_ptr<State> state)
    : state_(std::move(state)) {}

EmulatedNic::~EmulatedNic() {
  // A zeitgeber Port may have closed (and so released) it already.
  if (rte_eth_dev_allocated(state_->name.c_str()) == state_->dev) {
    if (pmd_abi::View(state_->dev)->data->mode_bits & pmd_abi::kStartedBit) {
      rte_eth_dev_stop(state_->port_id);
    }
    rte_eth_dev_close(state_->port_id);  // releases the port
  }
}

uint16_t EmulatedNic::port_id() const { return state_->port_id; }
const EmulatedNicConfig& EmulatedNic::config() const { return state_->config; }

int64_t EmulatedNic::NicNowNs() const { return state_->device->clock().Now(); }
int64_t EmulatedNic::NicNsAtTsc(uint64_t tsc) const {
  return state_->device->clock().AtTsc(tsc);
}
void EmulatedNic::StepNs(int64_t delta_ns) {
  state_->device->clock().Step(delta_ns);
}

std::optional<int64_t> EmulatedNic::Inject(std::span<const uint8_t> frame,
                                           uint16_t queue,
                                           std::optional<int64_t> wire_ns) {
  return state_->device->Inject(frame, queue, wire_ns);
}

std::vector<EmulatedNic::WireFrame> EmulatedNic::TakeTransmitted() {
  return state_->device->TakeTransmitted();
}

EmulatedNic::Counters EmulatedNic::counters() const {
  return state_->device->Snapshot();
}

}  // namespace zg::dataplane::testing
