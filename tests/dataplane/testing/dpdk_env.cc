// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/testing/dpdk_env.h"

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace zg::dataplane::testing {

RingPort MakeRingPort(const std::string& tag, uint16_t queues,
                      unsigned tx_ring_size) {
  RingPort p;
  for (uint16_t q = 0; q < queues; ++q) {
    p.rx.push_back(rte_ring_create(absl::StrCat(tag, "_rx", q).c_str(), 1024,
                                   SOCKET_ID_ANY,
                                   RING_F_SP_ENQ | RING_F_SC_DEQ));
    p.tx.push_back(rte_ring_create(absl::StrCat(tag, "_tx", q).c_str(),
                                   tx_ring_size, SOCKET_ID_ANY,
                                   RING_F_SP_ENQ | RING_F_SC_DEQ));
    if (p.rx.back() == nullptr || p.tx.back() == nullptr) {
      std::fprintf(stderr, "cannot create rings for %s\n", tag.c_str());
      std::abort();
    }
  }
  const int id =
      rte_eth_from_rings(absl::StrCat("zg_", tag).c_str(), p.rx.data(), queues,
                         p.tx.data(), queues, SOCKET_ID_ANY);
  if (id < 0) {
    std::fprintf(stderr, "rte_eth_from_rings(%s) failed\n", p.name.c_str());
    std::abort();
  }
  p.port_id = static_cast<uint16_t>(id);
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_get_name_by_port(p.port_id, name);
  p.name = name;  // "net_ring_<tag>"
  return p;
}

std::vector<rte_mbuf*> DrainRing(rte_ring* ring) {
  std::vector<rte_mbuf*> out;
  void* obj;
  while (rte_ring_dequeue(ring, &obj) == 0) {
    out.push_back(static_cast<rte_mbuf*>(obj));
  }
  return out;
}

void FreeAll(const std::vector<rte_mbuf*>& mbufs) {
  for (rte_mbuf* m : mbufs) rte_pktmbuf_free(m);
}

uint64_t TscHz() { return rte_get_tsc_hz(); }

}  // namespace zg::dataplane::testing
