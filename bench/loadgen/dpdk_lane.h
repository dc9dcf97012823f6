// SPDX-License-Identifier: Apache-2.0
// One zg-loadgen lane on its lcore: the DPDK side of a LaneEngine. It owns
// one RX/TX queue pair of the generator's port and, per trial, a fresh
// LaneEngine (requests, matching, measurements) and RateController (pacing).
//
// Each loop iteration:
//   - refresh the clock model (GeneratorClock's SeqLock), once;
//   - TX: as many requests as the pace allows (at most one burst): mbufs from
//     the pool, LaneEngine::Next writes the payload, core::BuildUdpFrame the
//     headers, FinaliseUdpChecksum; a TSC read right before tx_burst is T1;
//     what a full TX ring refuses stays built and goes first next time;
//   - RX: rx_burst, one TSC read right after it is T4 for the burst; each
//     frame goes through core::ClassifyFrame against the generator's own
//     addresses (the port's MAC + the clients' address range):
//       ARP/ND/ICMP echo for a client address -> answered in place and sent
//         (the server's kernel resolves our clients on the veth rig);
//       a UDP reply -> LaneEngine::OnReply, or, if it belongs to another
//         lane's client (RSS put it on our queue; OwnerLaneOf), handed to
//         that lane through an SPSC rte_ring with its RX TSC in an mbuf
//         dynamic field;
//       anything else is counted by drop reason and freed.
//   - publish progress (a SeqLock<LaneProgress>) about every millisecond.
// Sending stops at the plan's stop time, after its quota, or on abort; the
// lane then keeps receiving for the drain time (the reply timeout) and calls
// LaneEngine::Finish.
//
// Hot path: no locks, allocation, syscalls (beyond the PMD's) or exceptions.
//
//   DpdkLane lane(0, port->queue(0), pool, &net, &clock->published());
//   lane.Prepare(std::move(engine), pace, plan);      // main lcore
//   rte_eal_remote_launch(DpdkLane::Entry, &lane, lcore);
//   ... lane.progress().TryRead(&p) ...                // main lcore
//   rte_eal_wait_lcore(lcore);  lane.engine().measurements() ...
#ifndef ZG_BENCH_LOADGEN_DPDK_LANE_H_
#define ZG_BENCH_LOADGEN_DPDK_LANE_H_

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/loadgen/lane_engine.h"
#include "bench/loadgen/lane_network.h"
#include "bench/loadgen/ptp_subscribers.h"
#include "bench/loadgen/rate_controller.h"
#include "core/base/seqlock.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/time/clock_model.h"
#include "dataplane/port/port.h"

namespace zg::bench {

// The mbuf dynamic field that carries a frame's RX TSC from one lane to
// another. Registered once per process (needs the EAL).
absl::StatusOr<int> RegisterRxTscField();

// One trial as a lane sees it. TSC ticks.
struct LanePlan {
  uint64_t start_tsc = 0;    // sending starts (the same for every lane)
  uint64_t stop_tsc = 0;     // sending stops
  uint64_t quota = 0;        // requests to send at most (0: no limit)
  uint64_t drain_ticks = 0;  // receiving goes on this long after sending
  uint32_t burst = 32;       // requests per tx_burst at most
};

// A lane's totals, published about every millisecond and at the end.
// Written by: the lane. Read by: the main lcore.
struct LaneProgress {
  RequestCounts counts;       // in_flight filled in
  uint64_t invalid = 0;       // reply defects, all reasons
  uint64_t send_end_tsc = 0;  // when sending stopped (0: still sending)
  bool done = false;          // Finish() ran; the lane returns
};

// Frame-level counters (not replies). Written by: the lane. Read by: the
// main lcore once the lane returned.
struct LaneFrameStats {
  uint64_t rx_frames = 0;
  uint64_t tx_requests = 0;   // requests tx_burst took
  uint64_t tx_ring_full = 0;  // tx_burst calls that left requests behind
  uint64_t tx_unsent = 0;     // requests built but never taken (at the end)
  uint64_t alloc_failed = 0;
  uint64_t l2_answered = 0;      // ARP/ND/ICMP answers sent for our clients
  uint64_t handed_off = 0;       // replies passed to their own lane
  uint64_t handoff_dropped = 0;  // ... that found that lane's ring full
  std::array<uint64_t, core::kFrameDropCount> drops{};  // not for us

  LaneFrameStats& operator+=(const LaneFrameStats& o);
};

class DpdkLane {
 public:
  static constexpr uint16_t kRxBurst = 64;

  // `net` and `clock` must outlive the lane.
  DpdkLane(uint32_t index, dataplane::QueuePair queue, rte_mempool* pool,
           const LaneNetwork* net, const core::PublishedClock* clock);
  DpdkLane(const DpdkLane&) = delete;
  DpdkLane& operator=(const DpdkLane&) = delete;

  // Handoff rings: inbox[j] holds frames lane j received for this lane;
  // outbox[j] takes frames this lane received for lane j (null for j ==
  // index). Single producer, single consumer each.
  void SetRings(std::vector<rte_ring*> inbox, std::vector<rte_ring*> outbox);

  // Main lcore, before each trial: a fresh engine and pace (whose clock is
  // the generator's TSC), and the plan.
  void Prepare(std::unique_ptr<LaneEngine> engine, RateController pace,
               const LanePlan& plan);

  // Main lcore, instead of Prepare, for --mix=ptp_unicast: the lane runs
  // `subscribers` (its share of the unicast PTP subscribers) from
  // plan.start_tsc to plan.stop_tsc, sending what they have due (at most
  // plan.burst per tx_burst), then receives for plan.drain_ticks and calls
  // Finish. Frames for another lane's subscriber (by destination address)
  // are handed to that lane. Progress: counts.sent = Delay_Reqs sent,
  // answered = Delay_Resps matched, invalid = defects.
  void PrepareSubscribers(std::unique_ptr<PtpSubscriberEngine> subscribers,
                          const LanePlan& plan);
  // After Run returned; null unless PrepareSubscribers.
  const PtpSubscriberEngine* subscribers() const { return subs_.get(); }

  // On the lane's lcore: runs the trial and returns when it is done.
  // `abort` (written by: main lcore on SIGINT) stops sending early.
  void Run(const std::atomic<bool>* abort);
  // rte_eal_remote_launch entry: arg is the DpdkLane; the abort flag is the
  // one given to SetAbortFlag.
  static int Entry(void* lane);
  void SetAbortFlag(const std::atomic<bool>* abort) { abort_ = abort; }

  uint32_t index() const { return index_; }
  const core::SeqLock<LaneProgress>& progress() const { return progress_; }
  // After Run returned (or before the first):
  const LaneEngine& engine() const { return *engine_; }
  const LaneFrameStats& frame_stats() const { return stats_; }
  const RateController& pace() const { return *pace_; }

  // Frees whatever sits in this lane's RX queue and inbox rings (between
  // trials, main lcore).
  void Flush();

 private:
  // Sends the pending requests, building a new burst when none are left.
  void Send(uint64_t now_tsc);
  void Build(uint64_t now_tsc);
  void DropPending();
  void Receive();
  void ReceiveHandoffs();
  void Handle(rte_mbuf* m, uint64_t rx_tsc, bool handed_off);
  bool HandleUdp(rte_mbuf* m, const core::FrameInfo& info, uint64_t rx_tsc,
                 bool handed_off);
  void AnswerL2(rte_mbuf* m, const core::FrameInfo& info);
  void FlushL2();
  void Publish(bool done, uint64_t send_end_tsc);
  void RunSubscribers(const std::atomic<bool>* abort);
  void SendSubscribers(uint64_t now_tsc);

  uint32_t index_;
  dataplane::QueuePair queue_;
  rte_mempool* pool_;
  const LaneNetwork* net_;
  core::ClockReader clock_;
  const std::atomic<bool>* abort_ = nullptr;
  uint16_t payload_offset_ = 0;  // of every request frame
  core::UdpFrameSpec spec_;      // patched per request
  std::vector<rte_ring*> inbox_;
  std::vector<rte_ring*> outbox_;

  std::unique_ptr<LaneEngine> engine_;
  std::unique_ptr<PtpSubscriberEngine> subs_;  // --mix=ptp_unicast
  std::array<PtpSubscriberMessage, kMaxBurst> sub_msgs_ = {};
  std::optional<RateController> pace_;
  LanePlan plan_;
  uint64_t publish_ticks_ = 0;
  LaneFrameStats stats_;
  core::SeqLock<LaneProgress> progress_;

  // Per-burst scratch (no allocation in the loop). tx_[0..n_pending_) are
  // built requests tx_burst has not taken yet.
  uint16_t n_pending_ = 0;
  std::array<rte_mbuf*, kMaxBurst> tx_ = {};
  std::array<OutgoingRequest, kMaxBurst> requests_ = {};
  std::array<rte_mbuf*, kRxBurst> rx_ = {};
  uint16_t n_l2_ = 0;
  std::array<rte_mbuf*, kRxBurst> l2_ = {};
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_DPDK_LANE_H_
