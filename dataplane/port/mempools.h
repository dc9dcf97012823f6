// SPDX-License-Identifier: Apache-2.0
// Packet-buffer (mbuf) pools: one shared pool per NUMA socket, so every
// queue's buffers live on the memory node of the worker that polls it; plus
// dedicated per-queue pools for PMDs that map a pool's memory into the kernel
// (net_af_xdp registers each RX queue's pool as its own UMEM).
// Created and destroyed on the control thread; the pools themselves are
// DPDK's lock-free per-lcore-cached mempools.
//
//   MbufPools pools(/*mbufs_per_pool=*/16383);
//   ZG_ASSIGN_OR_RETURN(rte_mempool* mp, pools.ForSocket(0));
//   ZG_ASSIGN_OR_RETURN(rte_mempool* q0, pools.Dedicated("p0q0", 0, 8191));
#ifndef ZG_DATAPLANE_PORT_MEMPOOLS_H_
#define ZG_DATAPLANE_PORT_MEMPOOLS_H_

#include <rte_mempool.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zg::dataplane {

inline constexpr uint32_t kMbufCacheSize = 256;

class MbufPools {
 public:
  explicit MbufPools(uint32_t mbufs_per_pool) : per_pool_(mbufs_per_pool) {}
  ~MbufPools();  // frees every pool; ports using them must be closed first
  MbufPools(const MbufPools&) = delete;
  MbufPools& operator=(const MbufPools&) = delete;

  // The shared pool of `socket` (SOCKET_ID_ANY picks the caller's socket),
  // created on first use.
  absl::StatusOr<rte_mempool*> ForSocket(int socket);
  // A pool for one queue only, `mbufs` buffers.
  absl::StatusOr<rte_mempool*> Dedicated(const std::string& tag, int socket,
                                         uint32_t mbufs);

 private:
  absl::StatusOr<rte_mempool*> Create(const std::string& name, int socket,
                                      uint32_t mbufs);
  uint32_t per_pool_;
  std::map<int, rte_mempool*> by_socket_;
  std::vector<rte_mempool*> all_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_MEMPOOLS_H_
