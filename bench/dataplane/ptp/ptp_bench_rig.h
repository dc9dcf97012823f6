// SPDX-License-Identifier: Apache-2.0
// The PTP benchmarks' rig: zeitgeberd's real worker loop and protocol
// pipeline with the PtpPlugin of the --ptp_* flags, on an in-process ring
// port (net_ring: rx_burst and tx_burst are ring operations, so what is
// timed is the worker, not a NIC). One per process (one EAL). The caller
// sets the --ptp_* flags first; MakePtpBenchRig enables --ptp, opens the
// port, builds the worker and steps the port to MASTER.
//
//   absl::SetFlag(&FLAGS_ptp_profile, "enterprise_hybrid");
//   PtpBenchRig& r = *MakePtpBenchRig("ptp_dataplane_benchmark", 255);
//   r.Round(frame);              // 32 requests in, one PollOnce, replies out
//
// Benchmarks only: errors print and exit.
#ifndef ZG_BENCH_DATAPLANE_PTP_PTP_BENCH_RIG_H_
#define ZG_BENCH_DATAPLANE_PTP_PTP_BENCH_RIG_H_

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/net/net_headers.h"
#include "core/time/clock_model.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/ptp/ptp_plugin.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker.h"

namespace zg::bench {

inline constexpr uint16_t kPtpBenchRound = 32;
inline const core::Ipv4Addr kPtpBenchServer =
    core::Ipv4Addr::FromOctets(10, 1, 0, 1);
inline const core::MacAddr kPtpBenchServerMac{{0x02, 0x5E, 0, 0, 0, 1}};
inline const core::Ipv4Addr kPtpBenchClient =
    core::Ipv4Addr::FromOctets(10, 1, 0, 2);

// One UDP/IPv4 request frame, `src`:src_port -> the server:dst_port.
std::vector<uint8_t> PtpBenchFrame(core::Ipv4Addr src, uint16_t src_port,
                                   uint16_t dst_port, const uint8_t* payload,
                                   uint16_t len);

struct PtpBenchRig {
  std::unique_ptr<dataplane::Eal> eal;
  std::unique_ptr<dataplane::MbufPools> pools;
  std::unique_ptr<dataplane::Port> port;
  rte_ring* rx = nullptr;       // the worker's RX: requests go in here
  rte_ring* tx = nullptr;       // its TX: replies and originated frames
  rte_mempool* pool = nullptr;  // the requests' mbufs
  core::PublishedClock clock;
  std::unique_ptr<dataplane::PtpPlugin> ptp;
  std::unique_ptr<dataplane::ProtocolPipelineFactory> factory;
  dataplane::CounterNames names;
  dataplane::WorkerStats stats;
  std::atomic<bool> stop{false};
  std::unique_ptr<dataplane::Worker> worker;
  std::vector<rte_mbuf*> mbufs;  // Round's request buffers

  // Runs one round of kPtpBenchRound copies of `frame`; false if not every
  // one came back. Frames the PTP source originated are freed.
  bool Round(const std::vector<uint8_t>& frame);
  // The control thread's step (BMCA, grant expiry), as zeitgeberd's loop.
  void ControlStep();
};

// `request_mbufs`: the pool Round and the benchmarks' requests come from;
// `rx_ring`: the RX ring's size (a power of two).
PtpBenchRig* MakePtpBenchRig(const char* program, unsigned request_mbufs,
                             unsigned rx_ring = 1024);

}  // namespace zg::bench

#endif  // ZG_BENCH_DATAPLANE_PTP_PTP_BENCH_RIG_H_
