// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: what a worker (dataplane/worker/worker.h) does to one burst
// between rx_burst and tx_burst, for the benchmarks that drive a Pipeline
// without a ring or NIC: stamp, classify (and Prefetch), each kind's
// BeginBurst, Handle,
// then FinaliseTx in groups of kFinaliseCheckEvery with the handlers'
// EndFinalise after each, as Worker::PollQueue and Flush do (no chunking
// by time, no tx_burst).
//
//   PipelineBurst burst(&pipeline, stamper.get(), kPortId);
//   size_t answered = burst.Process(mbufs.data(), kBurstSize);
//   burst.finalise_ticks();       // TSC ticks of FinaliseTx + EndFinalise
//   for (i) if (burst.finalised(i)) burst.finalised(i)->AfterTx(
//               burst.packet(i), after, true);
#ifndef ZG_TESTS_DATAPLANE_TESTING_PIPELINE_BURST_H_
#define ZG_TESTS_DATAPLANE_TESTING_PIPELINE_BURST_H_

#include <rte_mbuf.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "dataplane/clock/timestamper.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane::testing {

class PipelineBurst {
 public:
  // `pipeline` and `stamper` must outlive this object.
  PipelineBurst(const Pipeline* pipeline, Timestamper* stamper,
                uint16_t port_id);

  // Runs mbufs[0..n) (n <= kBurstSize) through the pipeline; returns the
  // frames answered (Transmit or TransmitFinalise).
  size_t Process(rte_mbuf* const* mbufs, size_t n);

  // After Process: frame i's packet, and its handler if it had FinaliseTx.
  Packet& packet(size_t i) { return packets_[i]; }
  FrameHandler* finalised(size_t i) const { return finalise_[i]; }
  // TSC ticks from the first FinaliseTx to the last EndFinalise of the
  // last Process: how early the first reply's T3 is at tx_burst.
  uint64_t finalise_ticks() const { return finalise_ticks_; }

 private:
  const Pipeline* pipeline_;
  Timestamper* stamper_;
  uint16_t port_id_;
  std::array<Packet, kBurstSize> packets_ = {};
  std::array<Packet*, kBurstSize> classified_ = {};
  std::array<uint8_t, kBurstSize> kinds_ = {};
  std::array<Packet*, kBurstSize> group_ = {};
  std::array<FrameHandler*, kBurstSize> finalise_ = {};
  uint64_t finalise_ticks_ = 0;
};

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_PIPELINE_BURST_H_
