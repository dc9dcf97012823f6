// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/mempools.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dataplane/port/eal.h"

namespace zg::dataplane {

MbufPools::~MbufPools() {
  for (rte_mempool* mp : all_) rte_mempool_free(mp);
}

absl::StatusOr<rte_mempool*> MbufPools::ForSocket(int socket) {
  if (socket == SOCKET_ID_ANY) socket = static_cast<int>(rte_socket_id());
  if (auto it = by_socket_.find(socket); it != by_socket_.end()) {
    return it->second;
  }
  absl::StatusOr<rte_mempool*> mp =
      Create(absl::StrCat("zg_mbuf_s", socket), socket, per_pool_);
  if (mp.ok()) by_socket_[socket] = *mp;
  return mp;
}

absl::StatusOr<rte_mempool*> MbufPools::Dedicated(const std::string& tag,
                                                  int socket, uint32_t mbufs) {
  if (socket == SOCKET_ID_ANY) socket = static_cast<int>(rte_socket_id());
  return Create(absl::StrCat("zg_mbuf_", tag), socket, mbufs);
}

absl::StatusOr<rte_mempool*> MbufPools::Create(const std::string& name,
                                               int socket, uint32_t mbufs) {
  // DPDK requires the per-lcore cache to be at most n / 1.5.
  const uint32_t cache = std::min(kMbufCacheSize, mbufs * 2 / 3);
  rte_mempool* mp =
      rte_pktmbuf_pool_create(name.c_str(), mbufs, cache, /*priv_size=*/0,
                              RTE_MBUF_DEFAULT_BUF_SIZE, socket);
  if (mp == nullptr) {
    const int err = rte_errno;
    const std::string what =
        absl::StrCat("cannot create mbuf pool ", name, " (", mbufs, " x ",
                     RTE_MBUF_DEFAULT_BUF_SIZE, " B on NUMA socket ", socket,
                     "): ", rte_strerror(err));
    if (err == ENOMEM || err == ENOSPC) {
      return absl::ResourceExhaustedError(absl::StrCat(
          what, ". Give the EAL more memory (-m or --socket-mem; ",
          DescribeHugepages(), ") or use fewer descriptors/workers"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        what, err == EEXIST ? ". Another pool has that name" : ""));
  }
  all_.push_back(mp);
  return mp;
}

}  // namespace zg::dataplane
