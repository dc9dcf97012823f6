// SPDX-License-Identifier: Apache-2.0
// The per-lcore poll loop of zeitgeberd (docs: doc/architecture.md, "Life of
// a packet"). Each worker owns its queue pairs, its Pipeline and its
// WorkerStats; it shares only the published clocks (read once per burst) and
// the stop flag (read once per loop iteration). For each queue:
//
//   rte_eth_rx_burst
//   -> Timestamper::BeginBurst (TSC read, ClockReader::Refresh)
//   -> per frame: stamp, classify
//   -> per frame whose handler has one: Prefetch (the whole burst's
//      per-client lookups start before the first is used)
//   -> per kind whose handler has burst steps: BeginBurst with that kind's
//      frames (NTP: the burst's per-client lookups start before the first
//      is used; its MAC and NTS crypto runs interleaved)
//   -> per frame: dispatch to the kind's handler, which rewrites the mbuf
//      in place
//   -> late TX hook: one fresh TSC stamp, FinaliseTx for frames that asked,
//      EndFinalise after each group of them (the group's seals together)
//   -> rte_eth_tx_burst; frames it did not take are freed and counted (a
//      batch whose hooks are costly, NTS seals, goes in chunks, each with
//      its own stamp: kFinaliseBudgetNs)
//   -> a TSC stamp when tx_burst returned, for handlers that HasAfterTx()
//      (NTP interleaved mode keeps it as the reply's transmit time)
//   -> the pipeline's FrameSource, if any and due: frames it originates
//      (PTP Announce/Sync/Follow_Up), stamped just before their own
//      tx_burst
//
// The loop does no locking, allocation, syscalls or exceptions of its own
// (a PMD may make syscalls inside rx/tx_burst, as net_af_xdp does to kick TX).
// The one exception is opt-in and off the packet path: with SetIdleSleep
// (--idle_sleep), after kIdlePassesBeforeSleep passes in a row that neither
// received nor originated a frame, the worker sleeps that long before each
// further pass until one does, giving its core back on a shared host (the
// demo's veth rig, CI). Busy polling (0) is the default and what the
// benchmarks measure.
//
//   std::atomic<bool> stop{false};
//   auto w = std::make_unique<Worker>(queues, std::move(pipeline), &stats,
//                                     &stop);
//   WorkerGroup group;
//   ZG_RETURN_IF_ERROR(group.Launch(std::move(workers)));  // one per lcore
//   ...
//   stop.store(true);   // control thread
//   group.Join();
#ifndef ZG_DATAPLANE_WORKER_WORKER_H_
#define ZG_DATAPLANE_WORKER_WORKER_H_

#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/time/tx_kick_estimate.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/clock/tx_scheduler.h"
#include "dataplane/port/port.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// A TX batch is sent in chunks once its FinaliseTx hooks (checked every
// kFinaliseCheckEvery hooks, after the handlers' EndFinalise) have run this
// long since the chunk's stamp: a reply's late-written T3 is then early by
// at most about this much plus kFinaliseCheckEvery hooks and their
// EndFinalise (Worker::Flush). Eight: the seals EndFinalise runs together
// fill the AES pipeline (core/crypto/aesni_lanes_inl.h).
inline constexpr double kFinaliseBudgetNs = 1000;
inline constexpr uint32_t kFinaliseCheckEvery = 8;
// A tx_burst bracket (stamp to return) longer than this is not learnt from
// (the worker was preempted): core/time/tx_kick_estimate.h.
inline constexpr double kKickOutlierNs = 200'000;

// One queue pair a worker polls, with how to stamp its frames.
struct WorkerQueue {
  QueuePair queue;
  Timestamper::Config stamping;
  TxOffloads offloads;
  StampPlan stamps;  // where each stamp comes from (clock/stamp_plan.h)
  // Send-on-timestamp launch times (field valid where stamps.ntp_tx is
  // kScheduled): every frame with a FinaliseTx hook gets one and its
  // exact stamp (clock/tx_scheduler.h).
  TxScheduler::Config scheduling;
  // Where this queue's frames are counted (one WorkerStats per worker and
  // port, so the metrics say which port); null: the worker's own stats.
  // Written by: this worker. Read by: the control thread.
  WorkerStats* stats = nullptr;
};

class Worker {
 public:
  // `stats` and `stop` must outlive the worker. Written by: this worker
  // (stats). Written by: control thread, read by: this worker (stop).
  Worker(std::vector<WorkerQueue> queues, Pipeline pipeline, WorkerStats* stats,
         const std::atomic<bool>* stop);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Marks slot `reader` of `epochs` (dataplane/trust/config_swap.h): online
  // while Run() runs, quiescent after every PollOnce pass, so reloaded
  // configs can be freed. Before Run; `epochs` must outlive the worker.
  absl::Status AttachEpochs(ReaderEpochs* epochs, size_t reader);

  // The loop: polls until *stop is set, then drains. Runs on its lcore.
  void Run();
  // One pass over every queue; returns the frames received.
  uint32_t PollOnce();
  // Bounded passes until every queue comes back empty, so frames already
  // received are answered before the ports stop.
  void Drain(int max_passes = 16);
  // Before Run: 0 (the default) busy-polls; otherwise Run sleeps `ns` before
  // each pass once kIdlePassesBeforeSleep passes in a row were idle (see
  // the file comment). A frame arriving meanwhile waits up to `ns` (plus the
  // kernel's wake-up): its RX stamp is the XDP hook's with zg_xdp.o, else
  // the TSC at burst.
  void SetIdleSleep(uint64_t ns) { idle_sleep_ns_ = ns; }
  static constexpr uint32_t kIdlePassesBeforeSleep = 256;
  // TEST ONLY (dataplane/daemon/test_stall_hook.h), before Run: while
  // *stall is true the loop stops passing (no polling, no heartbeat) until
  // it clears or stop is set. Read once per pass, and only by a worker
  // given one; `stall` must outlive the worker.
  void SetTestStall(const std::atomic<bool>* stall) { test_stall_ = stall; }

 private:
  struct QueueState {
    WorkerQueue config;
    WorkerStats* stats;  // config.stats, or the worker's own
    Timestamper stamper;
    TxScheduler scheduler;
    // --ntp_tx_stamp: this queue's tx_burst brackets (stamps.ntp_tx_placement).
    core::TxKickEstimate kick;
  };
  uint32_t PollQueue(QueueState& q);
  // Returns the frames the source originated.
  uint16_t PollSource(QueueState& q);
  // Run's idle back-off: sleeps idle_sleep_ns_ once the pass that just
  // ended (`worked`: it received or originated frames) was the
  // kIdlePassesBeforeSleep-th idle one in a row.
  void IdleBackoff(bool worked);
  // The loop with --idle_sleep or a test stall hook (Run).
  void RunWithOptions();
  // Waits while *test_stall_ is set and stop is not.
  void HoldForTest();
  // Classifies pkt: its kind (with a handler), or false when it was dropped.
  bool Classify(Packet& pkt, uint8_t& kind);
  void Dispatch(Packet& pkt, uint8_t kind, const BurstContext& burst);
  // BeginBurst of each handler with burst steps, with its kind's frames.
  void BeginBursts(uint16_t n_classified, const BurstContext& burst);
  void EndFinalise();
  void Flush(QueueState& q);
  // tx_burst of tx_[from, to); frames it did not take are freed, counted.
  // `stamp_tsc`: the chunk's TxStamp (0: none), for q.kick's bracket.
  void Transmit(QueueState& q, uint16_t from, uint16_t to,
                uint64_t stamp_tsc = 0);
  void CountLaunches(QueueState& q);
  void Drop(rte_mbuf* m, uint8_t reason);

  std::vector<QueueState> queues_;
  Pipeline pipeline_;
  FrameClassifier* classifier_;  // owned by pipeline_
  FrameSource* source_;          // owned by pipeline_; may be null
  std::array<FrameHandler*, kMaxFrameKinds> handlers_ =
      {};                                           // owned by pipeline_
  std::array<bool, kMaxFrameKinds> prefetch_ = {};  // handler HasPrefetch()
  bool any_prefetch_ = false;
  std::array<bool, kMaxFrameKinds> after_tx_ = {};  // handler HasAfterTx()
  // The kinds whose handler HasBurstSteps(), and how many.
  std::array<uint8_t, kMaxFrameKinds> burst_kinds_ = {};
  size_t n_burst_kinds_ = 0;
  // The handlers whose HasEndBurst(), each once.
  std::array<FrameHandler*, kMaxFrameKinds> end_burst_ = {};
  size_t n_end_burst_ = 0;
  // The stats of the queue being polled (PollOnce sets it per queue).
  WorkerStats* stats_;
  const std::atomic<bool>* stop_;
  ReaderEpochs* epochs_ = nullptr;  // null: no reloadable configs to mark
  size_t reader_ = 0;
  uint64_t finalise_budget_ticks_;  // kFinaliseBudgetNs in TSC ticks
  uint64_t kick_outlier_ticks_;     // kKickOutlierNs in TSC ticks
  uint64_t idle_sleep_ns_ = 0;      // SetIdleSleep; 0: busy-poll
  const std::atomic<bool>* test_stall_ = nullptr;  // SetTestStall
  uint32_t idle_passes_ = 0;                       // idle passes in a row (Run)
  uint32_t originated_ = 0;  // frames PollSource sent this pass

  // Per-burst scratch (reused; no allocation in the loop).
  std::array<rte_mbuf*, kBurstSize> rx_ = {};
  std::array<Packet, kBurstSize> packets_ = {};
  std::array<Packet*, kBurstSize> classified_ = {};  // frames to handle
  std::array<uint8_t, kBurstSize> kinds_ = {};       // their frame kinds
  std::array<Packet*, kBurstSize> group_ = {};  // one kind's, for BeginBurst
  uint16_t n_tx_ = 0;
  std::array<Packet*, kBurstSize> tx_ = {};
  std::array<FrameHandler*, kBurstSize> finalise_ = {};  // null: no hook
  std::array<FrameHandler*, kBurstSize> after_ = {};     // null: no AfterTx
  std::array<rte_mbuf*, kBurstSize> tx_mbufs_ = {};
  uint16_t n_free_ = 0;
  std::array<rte_mbuf*, kBurstSize> free_ = {};
  std::array<rte_mbuf*, kBurstSize> src_ = {};  // frames of the source
};

// The EAL's worker lcores (every lcore but the main one), in launch order.
std::vector<unsigned> WorkerLcores();

// Runs workers on the EAL's worker lcores, one each, pinned by the EAL.
class WorkerGroup {
 public:
  ~WorkerGroup();  // joins (the caller must have set the stop flag)
  // workers.size() must equal WorkerLcores().size().
  absl::Status Launch(std::vector<std::unique_ptr<Worker>> workers);
  // Waits for every launched worker to return.
  void Join();
  size_t size() const { return workers_.size(); }

 private:
  static int Entry(void* worker);
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<unsigned> lcores_;
  bool joined_ = true;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_WORKER_H_
