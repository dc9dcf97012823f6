// SPDX-License-Identifier: Apache-2.0
// One DPDK port (the device), set up for zeitgeberd: one RX/TX queue pair
// per worker, RSS on the source and destination IP addresses only (not the
// UDP ports) so a client always lands on the same worker (the NTP rate
// limiter's per-worker client table depends on it), mbuf pools on the workers'
// NUMA sockets, and the timestamp and checksum offloads the device has,
// detected at start and reported.
//
// As in Seastar's DPDK backend, the device (this class, owned by the control
// thread) is separate from the per-lcore queue pairs the workers poll
// (QueuePair: plain port/queue ids, used by exactly one worker).
//
// Hardware receive timestamps are used only when the device has both
// RTE_ETH_RX_OFFLOAD_TIMESTAMP and a readable clock (rte_eth_read_clock):
// without the clock the control plane cannot map the stamps to TAI.
//
//   MbufPools pools(16383);
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<Port> port,
//                       Port::Open({.name = "0", .num_queues = 2}, &pools));
//   ZG_RETURN_IF_ERROR(port->Start());
//   LogInfo(port->Describe());
//   QueuePair qp = port->queue(1);           // handed to worker 1
#ifndef ZG_DATAPLANE_PORT_PORT_H_
#define ZG_DATAPLANE_PORT_PORT_H_

#include <rte_ethdev.h>
#include <rte_ether.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/clock/tx_scheduler.h"
#include "dataplane/port/mempools.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

struct PortOptions {
  std::string name;         // port id ("0") or DPDK name ("net_af_xdp0",
                            // "0000:3b:00.0")
  uint16_t num_queues = 1;  // RX/TX queue pairs: one per worker
  uint16_t rx_desc = 1024;
  uint16_t tx_desc = 1024;
  uint16_t mtu = 0;          // 0: keep the device's
  bool rx_timestamp = true;  // use HW RX timestamps where possible
  bool timesync = false;     // enable IEEE 1588 timesync (PTP)
  // Enable RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP where offered (--tx_schedule)
  // and register the TX-timestamp dynfield (tx_launch_field()).
  bool tx_schedule = false;
  bool tx_checksum_offload = true;  // IPv4/UDP TX checksum offload if offered
  // NUMA socket of the worker polling queue q (empty: the port's socket).
  std::vector<int> queue_sockets;
};

// What the device offers and what was enabled, detected at Open/Start.
struct PortCapabilities {
  std::string driver;
  uint16_t max_rx_queues = 0;
  uint16_t max_tx_queues = 0;
  uint64_t rss_hf_offered = 0;  // flow_type_rss_offloads
  uint64_t rss_hf = 0;  // enabled: RssHashFunctions(offered), if > 1 queue
  bool rx_timestamp_offload = false;  // RTE_ETH_RX_OFFLOAD_TIMESTAMP enabled
  bool read_clock = false;            // rte_eth_read_clock works
  bool timesync = false;              // rte_eth_timesync_enable succeeded
  bool send_on_timestamp = false;     // TX launch times enabled
  bool tx_ipv4_checksum = false;
  bool tx_udp_checksum = false;
  bool lsc_interrupt = false;    // link-state interrupts (else polled)
  bool dedicated_pools = false;  // per-queue mbuf pools (AF_XDP UMEM)
  // Frames carry NIC RX stamps that can be mapped to TAI.
  bool hardware_rx_stamps() const { return rx_timestamp_offload && read_clock; }
};

struct LinkState {
  bool up = false;
  uint32_t speed_mbps = 0;
  bool full_duplex = false;
  friend bool operator==(const LinkState&, const LinkState&) = default;
};

// What a worker polls. Used by one worker only.
struct QueuePair {
  uint16_t port_id = 0;
  uint16_t queue_id = 0;
};

class Port {
 public:
  // Resolves, configures and sets up the queues (does not start).
  static absl::StatusOr<std::unique_ptr<Port>> Open(const PortOptions& options,
                                                    MbufPools* pools);
  ~Port();  // stops and closes the device
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  // Starts the device, then probes what only a started device can tell
  // (clock, timesync) and reads MAC/MTU.
  absl::Status Start();
  void Stop();

  uint16_t id() const { return id_; }
  const std::string& name() const { return name_; }
  const PortCapabilities& caps() const { return caps_; }
  const rte_ether_addr& mac() const { return mac_; }
  uint16_t mtu() const { return mtu_; }
  uint16_t num_queues() const { return num_queues_; }
  // RssSteersByAddress for this port's queues and RSS.
  bool steers_by_address() const;
  QueuePair queue(uint16_t q) const { return {id_, q}; }
  TxOffloads tx_offloads() const {
    return {caps_.tx_ipv4_checksum, caps_.tx_udp_checksum};
  }
  // Valid iff caps().rx_timestamp_offload.
  const NicStampField& stamp_field() const { return stamp_field_; }
  // Valid iff caps().send_on_timestamp (clock/tx_scheduler.h).
  const TxLaunchField& tx_launch_field() const { return tx_launch_field_; }
  // The EAL devargs of the device ("iface=veth0,xdp_prog=/x.o"), if any.
  std::string devargs() const;

  // One line: driver, queues, RSS, offloads, MAC, MTU, link.
  std::string Describe() const;

  // Control thread: reads the link without waiting; returns true if it
  // changed since the last call (and logs the change).
  bool PollLink();
  const LinkState& link() const { return link_; }
  // Link-state interrupts seen (written by the EAL interrupt thread).
  uint64_t lsc_events() const {
    return lsc_events_.load(std::memory_order_relaxed);
  }

 private:
  Port(uint16_t id, std::string name) : id_(id), name_(std::move(name)) {}
  absl::Status Configure(const PortOptions& options, MbufPools* pools);
  absl::Status SetupQueues(const PortOptions& options, MbufPools* pools,
                           const rte_eth_conf& conf);
  static int OnLinkEvent(uint16_t port_id, rte_eth_event_type type, void* self,
                         void* ret_param);

  uint16_t id_;
  std::string name_;
  uint16_t num_queues_ = 0;
  PortCapabilities caps_;
  NicStampField stamp_field_;
  TxLaunchField tx_launch_field_;
  rte_ether_addr mac_ = {};
  uint16_t mtu_ = 0;
  bool want_timesync_ = false;
  bool started_ = false;
  bool lsc_registered_ = false;
  LinkState link_;
  bool link_known_ = false;
  // Written by: EAL interrupt thread. Read by: control thread.
  std::atomic<uint64_t> lsc_events_{0};
};

// Resolves "0", "net_ring0" or "0000:3b:00.0" to a port id, with an error
// that lists the ports there are.
absl::StatusOr<uint16_t> ResolvePort(const std::string& name_or_id);

// The RSS hash functions enabled from those the device offers: IPv4/IPv6
// addresses, never L4 ports (RTE_ETH_RSS_IP & offered).
uint64_t RssHashFunctions(uint64_t offered);

// Whether every frame of one client address reaches the same queue whatever
// its UDP ports: one queue, or RSS on IP addresses only (`rss_hf`, from
// RssHashFunctions). False where the queues are spread by something we did
// not configure (AF_XDP: the kernel NIC's hash, often over UDP ports too).
bool RssSteersByAddress(uint16_t queues, uint64_t rss_hf);

// "IPV4 IPV6 NONFRAG_IPV4_UDP ..." for an RSS hash-function mask.
std::string DescribeRssHf(uint64_t rss_hf);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_PORT_H_
