// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: the few pieces of DPDK 22.11's driver-side ethdev ABI that the
// emulated NIC (emulated_nic.h) needs to be a PMD: rte_eth_dev_allocate and
// friends, and the layouts of struct rte_eth_dev, rte_eth_dev_data,
// eth_dev_ops, rte_device and rte_driver, declared here because Debian's
// libdpdk-dev ships no driver SDK (DPDK built without enable_driver_sdk:
// ethdev_driver.h and dev_driver.h are not installed).
//
// Only the fields the emulated NIC reads or writes are named; the rest are
// padding. The offsets are those of the DPDK 22.11 LTS headers on x86-64
// with Debian's rte_config.h (RTE_MAX_QUEUES_PER_PORT 1024), measured with
// offsetof against v22.11.11's ethdev_driver.h (the layouts have not changed
// since v22.11). EmulatedNic::Create checks at run time that the library
// agrees (the allocated port's name and id, read through these offsets,
// match what the public API reports) and aborts the test binary otherwise,
// so a DPDK upgrade fails loudly rather than corrupting memory.
//
//   rte_eth_dev* dev = rte_eth_dev_allocate("net_zg_emu_e0");
//   pmd_abi::EthDev* d = pmd_abi::View(dev);
//   d->dev_ops = &kOps;  d->data->dev_private = ...;
//   rte_eth_dev_probing_finish(dev);
#ifndef ZG_TESTS_DATAPLANE_TESTING_ETHDEV_PMD_ABI_H_
#define ZG_TESTS_DATAPLANE_TESTING_ETHDEV_PMD_ABI_H_

#include <rte_ethdev.h>
#include <rte_ether.h>

#include <cstddef>
#include <cstdint>
#include <ctime>

// Exported by librte_ethdev.so.23 (version INTERNAL).
extern "C" {
struct rte_eth_dev;  // opaque here: read through pmd_abi::View
struct rte_eth_dev* rte_eth_dev_allocate(const char* name);
struct rte_eth_dev* rte_eth_dev_allocated(const char* name);
int rte_eth_dev_release_port(struct rte_eth_dev* eth_dev);
void rte_eth_dev_probing_finish(struct rte_eth_dev* dev);
}

namespace zg::dataplane::testing::pmd_abi {

// struct rte_driver (dev_driver.h).
struct Driver {
  void* next[2];  // RTE_TAILQ_ENTRY
  const char* name;
  const char* alias;
};
static_assert(offsetof(Driver, name) == 16 && sizeof(Driver) == 32);

// struct rte_device (dev_driver.h): rte_eth_dev_info_get reads
// device->driver->name; rte_dev_devargs reads devargs.
struct Device {
  void* next[2];  // RTE_TAILQ_ENTRY
  const char* name;
  const char* bus_info;
  const Driver* driver;
  const void* bus;
  int numa_node;
  void* devargs;
};
static_assert(offsetof(Device, driver) == 32 &&
              offsetof(Device, devargs) == 56 && sizeof(Device) == 64);

// struct rte_eth_dev_data (ethdev_driver.h), shared by ethdev and the PMD.
struct DevData {
  char name[RTE_ETH_NAME_MAX_LEN];
  void** rx_queues;
  void** tx_queues;
  uint16_t nb_rx_queues;
  uint16_t nb_tx_queues;
  uint8_t pad0_[96 - 84];  // sriov
  void* dev_private;       // rte_free'd by rte_eth_dev_release_port
  rte_eth_link dev_link;
  rte_eth_conf dev_conf;
  uint16_t mtu;
  uint8_t pad1_[2400 - 2386];  // min_rx_buf_size, rx_mbuf_alloc_failed
  rte_ether_addr* mac_addrs;   // rte_free'd by rte_eth_dev_release_port
  uint8_t pad2_[3440 - 2408];  // mac_pool_sel, hash_mac_addrs
  uint16_t port_id;
  uint8_t mode_bits;  // bit 0 promiscuous, bit 2 all_multicast, 3 started
  uint8_t pad3_[5492 - 3443];  // queue states
  uint32_t dev_flags;          // RTE_ETH_DEV_*
  int numa_node;
};
static_assert(sizeof(rte_eth_conf) == 2272 && sizeof(rte_eth_link) == 8);
static_assert(RTE_MAX_QUEUES_PER_PORT == 1024);  // the queue-state arrays
static_assert(offsetof(DevData, rx_queues) == 64);
static_assert(offsetof(DevData, nb_rx_queues) == 80);
static_assert(offsetof(DevData, dev_private) == 96);
static_assert(offsetof(DevData, dev_link) == 104);
static_assert(offsetof(DevData, dev_conf) == 112);
static_assert(offsetof(DevData, mtu) == 2384);
static_assert(offsetof(DevData, mac_addrs) == 2400);
static_assert(offsetof(DevData, port_id) == 3440);
static_assert(offsetof(DevData, mode_bits) == 3442);
static_assert(offsetof(DevData, dev_flags) == 5492);
static_assert(offsetof(DevData, numa_node) == 5496);
inline constexpr uint8_t kPromiscuousBit = 1u << 0;
inline constexpr uint8_t kAllMulticastBit = 1u << 2;
inline constexpr uint8_t kStartedBit = 1u << 3;

using Dev = rte_eth_dev;

// struct eth_dev_ops (ethdev_driver.h): 113 function pointers; the slots
// the emulated NIC fills are named, the others stay null (ethdev answers
// -ENOTSUP for them).
struct DevOps {
  int (*dev_configure)(Dev*);                           // slot 0
  int (*dev_start)(Dev*);                               // 1
  int (*dev_stop)(Dev*);                                // 2
  void* pad0_[2];                                       // 3-4 set_link_up/down
  int (*dev_close)(Dev*);                               // 5
  void* pad1_;                                          // 6 reset
  int (*link_update)(Dev*, int wait_to_complete);       // 7
  void* pad2_;                                          // 8 is_removed
  int (*promiscuous_enable)(Dev*);                      // 9
  int (*promiscuous_disable)(Dev*);                     // 10
  int (*allmulticast_enable)(Dev*);                     // 11
  int (*allmulticast_disable)(Dev*);                    // 12
  void* pad3_[2];                                       // 13-14 mac_addr_rm/add
  int (*mac_addr_set)(Dev*, rte_ether_addr*);           // 15
  void* pad4_;                                          // 16 set_mc_addr_list
  int (*mtu_set)(Dev*, uint16_t);                       // 17
  int (*stats_get)(Dev*, rte_eth_stats*);               // 18
  int (*stats_reset)(Dev*);                             // 19
  int (*xstats_get)(Dev*, rte_eth_xstat*, unsigned n);  // 20
  int (*xstats_reset)(Dev*);                            // 21
  int (*xstats_get_names)(Dev*, rte_eth_xstat_name*, unsigned size);  // 22
  void* pad5_;                                    // 23 queue_stats_mapping
  int (*dev_infos_get)(Dev*, rte_eth_dev_info*);  // 24
  void* pad6_[41 - 25];  // 25-40 queue info, ptypes, vlan, queue start/stop
  int (*rx_queue_setup)(Dev*, uint16_t queue, uint16_t nb_desc, unsigned socket,
                        const rte_eth_rxconf*,
                        rte_mempool*);             // 41
  void (*rx_queue_release)(Dev*, uint16_t queue);  // 42
  void* pad7_[2];                                  // 43-44 rx intr
  int (*tx_queue_setup)(Dev*, uint16_t queue, uint16_t nb_desc, unsigned socket,
                        const rte_eth_txconf*);    // 45
  void (*tx_queue_release)(Dev*, uint16_t queue);  // 46
  void* pad8_[72 - 47];           // 47-71 flow control ... dcb info
  int (*timesync_enable)(Dev*);   // 72
  int (*timesync_disable)(Dev*);  // 73
  int (*timesync_read_rx_timestamp)(Dev*, timespec*, uint32_t);  // 74
  int (*timesync_read_tx_timestamp)(Dev*, timespec*);            // 75
  int (*timesync_adjust_time)(Dev*, int64_t);                    // 76
  int (*timesync_read_time)(Dev*, timespec*);                    // 77
  int (*timesync_write_time)(Dev*, const timespec*);             // 78
  int (*read_clock)(Dev*, uint64_t*);                            // 79
  void* pad9_[113 - 80];  // 80-112 xstats by id ... cman
};
static_assert(offsetof(DevOps, dev_infos_get) == 24 * sizeof(void*));
static_assert(offsetof(DevOps, rx_queue_setup) == 41 * sizeof(void*));
static_assert(offsetof(DevOps, tx_queue_setup) == 45 * sizeof(void*));
static_assert(offsetof(DevOps, timesync_enable) == 72 * sizeof(void*));
static_assert(offsetof(DevOps, read_clock) == 79 * sizeof(void*));
static_assert(sizeof(DevOps) == 904);

// struct rte_eth_dev (ethdev_driver.h): the per-process part.
struct EthDev {
  uint16_t (*rx_pkt_burst)(void* rxq, rte_mbuf** pkts, uint16_t n);
  uint16_t (*tx_pkt_burst)(void* txq, rte_mbuf** pkts, uint16_t n);
  void* pad0_[4];  // tx_prepare, queue count, descriptor status
  DevData* data;
  void* process_private;
  const DevOps* dev_ops;
  Device* device;
};
static_assert(offsetof(EthDev, data) == 48 && offsetof(EthDev, dev_ops) == 64 &&
              offsetof(EthDev, device) == 72);

inline EthDev* View(Dev* dev) { return reinterpret_cast<EthDev*>(dev); }

}  // namespace zg::dataplane::testing::pmd_abi

#endif  // ZG_TESTS_DATAPLANE_TESTING_ETHDEV_PMD_ABI_H_
