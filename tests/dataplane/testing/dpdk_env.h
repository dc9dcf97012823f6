// SPDX-License-Identifier: Apache-2.0
// Shared set-up for the dataplane integration tests: one EAL per test process
// (no hugepages, no shared config files, no PCI, a unique --file-prefix, two
// lcores: main
// + one worker) and in-process ring ports (rte_eth_from_rings) whose RX and TX
// rings the test reaches directly to inject frames and collect replies.
//
//   // in the test binary: link dpdk_test_main (this main()).
//   RingPort p = MakeRingPort("t0", /*queues=*/1);
//   rte_ring_enqueue(p.rx[0], frame);  ... worker.PollOnce(); ...
//   rte_ring_dequeue(p.tx[0], &reply);
#ifndef ZG_TESTS_DATAPLANE_TESTING_DPDK_ENV_H_
#define ZG_TESTS_DATAPLANE_TESTING_DPDK_ENV_H_

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zg::dataplane::testing {

struct RingPort {
  uint16_t port_id = 0;
  std::string name;
  std::vector<rte_ring*> rx;  // test enqueues here; the port receives
  std::vector<rte_ring*> tx;  // the port transmits here; test dequeues
};

// Creates a ring port with `queues` RX/TX queue pairs; TX rings hold
// tx_ring_size - 1 frames (power of two). Aborts the test binary on failure.
RingPort MakeRingPort(const std::string& tag, uint16_t queues,
                      unsigned tx_ring_size = 1024);

// Dequeues everything on `ring`.
std::vector<rte_mbuf*> DrainRing(rte_ring* ring);
void FreeAll(const std::vector<rte_mbuf*>& mbufs);

// The EAL's TSC frequency.
uint64_t TscHz();

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_DPDK_ENV_H_
