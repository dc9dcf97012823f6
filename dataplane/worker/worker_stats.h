// SPDX-License-Identifier: Apache-2.0
// Per-worker packet counters and the name tables that label them.
//
// Each worker owns one WorkerStats and is its only writer; the control thread
// (metrics exporter, final report) reads every worker's copy and sums them.
//
// Memory order: every counter is a std::atomic<uint64_t> updated with a
// relaxed load + relaxed store (not fetch_add). With a single writer there is
// no lost update, and on x86-64 both compile to plain moves, so the hot path
// pays nothing for the atomics. Readers use relaxed loads: they see each
// counter's value at some recent point, never a torn value, and each counter
// is monotonic for them (coherence), but no order between different counters
// is promised (a reader may see tx_packets updated before rx_packets). That is
// all a metrics scrape needs. The struct is cache-line aligned so two workers'
// counters never share a line.
//
// Frame kinds and drop reasons are small integer indices so the counters are
// fixed arrays; the modules that define the enums (core/net/frame.h,
// core/ntp/ntp_reply.h, ...) register their names in a CounterNames table at
// start-up, and the exporter labels by those names.
//
//   CounterNames names;
//   ZG_ASSIGN_OR_RETURN(uint8_t base,
//                       names.AddDropReasons("ntp", {"bad_mode", "kod"}));
//   WorkerStats stats;                        // one per worker
//   stats.dropped[base + 1].Add(1);           // worker thread only
//   uint64_t n = stats.dropped[base + 1].Load();  // control thread
#ifndef ZG_DATAPLANE_WORKER_WORKER_STATS_H_
#define ZG_DATAPLANE_WORKER_WORKER_STATS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace zg::dataplane {

// Capacity of the per-kind and per-reason counter arrays. Kind and reason
// indices are uint8_t values below these.
inline constexpr size_t kMaxFrameKinds = 16;
inline constexpr size_t kMaxDropReasons = 128;

// A counter with a single writer and any number of readers (see the file
// comment for the memory-order argument).
class SingleWriterCounter {
 public:
  // Writer only.
  void Add(uint64_t n) {
    value_.store(value_.load(std::memory_order_relaxed) + n,
                 std::memory_order_relaxed);
  }
  void Set(uint64_t v) { value_.store(v, std::memory_order_relaxed); }
  // Any thread.
  uint64_t Load() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Counters of one worker. Written by: that worker. Read by: the control
// thread (exporter, final report).
struct alignas(64) WorkerStats {
  SingleWriterCounter rx_packets;
  SingleWriterCounter rx_bytes;    // frame bytes (pkt_len), no FCS
  SingleWriterCounter tx_packets;  // accepted by tx_burst
  SingleWriterCounter tx_bytes;
  SingleWriterCounter tx_dropped;  // replies tx_burst did not accept (freed)
  // TX batches split because their FinaliseTx hooks ran past
  // kFinaliseBudgetNs (worker.h): extra tx_burst calls made for exact T3s.
  SingleWriterCounter tx_finalise_splits;
  // Send-on-timestamp (--tx_schedule, dataplane/clock/tx_scheduler.h):
  // frames given a launch time, and those whose launch time had already
  // passed when they were handed to tx_burst (they leave at once).
  SingleWriterCounter tx_scheduled;
  SingleWriterCounter tx_schedule_late;
  SingleWriterCounter bursts;       // rx_burst calls that returned frames
  SingleWriterCounter empty_polls;  // rx_burst calls that returned none
  SingleWriterCounter model_refresh_failures;  // torn/unpublished ClockModel
  SingleWriterCounter hw_stamped;  // frames stamped from the NIC clock
  SingleWriterCounter sw_stamped;  // frames stamped from the TSC at burst
  // TSC at the worker's latest loop iteration: a liveness heartbeat.
  SingleWriterCounter heartbeat_tsc;
  std::array<SingleWriterCounter, kMaxFrameKinds> handled;  // by frame kind
  // Replies queued for tx_burst, by the kind of frame answered (tx_dropped
  // counts the ones tx_burst then refused).
  std::array<SingleWriterCounter, kMaxFrameKinds> replied;
  std::array<SingleWriterCounter, kMaxDropReasons> dropped;  // by reason
};

// Plain-value snapshot of WorkerStats (for sums and reports).
struct WorkerStatsSnapshot {
  uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0,
           tx_dropped = 0, tx_finalise_splits = 0, tx_scheduled = 0,
           tx_schedule_late = 0, bursts = 0, empty_polls = 0,
           model_refresh_failures = 0, hw_stamped = 0, sw_stamped = 0;
  std::array<uint64_t, kMaxFrameKinds> handled = {};
  std::array<uint64_t, kMaxFrameKinds> replied = {};
  std::array<uint64_t, kMaxDropReasons> dropped = {};

  static WorkerStatsSnapshot Of(const WorkerStats& s);
  WorkerStatsSnapshot& operator+=(const WorkerStatsSnapshot& o);
  uint64_t TotalDropped() const;
};

// Names for frame-kind and drop-reason indices. Filled on the control thread
// before workers start; read-only afterwards (workers never read it).
class CounterNames {
 public:
  // Drop reasons the worker loop itself records, registered by the
  // constructor at indices 0.. in this order.
  enum WorkerDropReason : uint8_t {
    kDropUnclassified = 0,  // no classifier installed
    kDropNoHandler = 1,     // classified kind has no handler
    kDropMultiSegment = 2,  // chained mbuf: handlers need one flat frame
    kNumWorkerDropReasons = 3,
  };

  CounterNames();

  // Names frame kind `kind` (e.g. "ntp"). Names are Prometheus label values:
  // [a-z0-9_]+.
  absl::Status SetKindName(uint8_t kind, absl::string_view name);

  // Registers a block of drop reasons for one module, in enum order, and
  // returns the index of the first; reason i of the module is base + i. The
  // exported name is "<prefix>_<name>".
  absl::StatusOr<uint8_t> AddDropReasons(
      absl::string_view prefix, std::initializer_list<absl::string_view> names);
  // The same for a list built at run time (e.g. from an enum's name function).
  absl::StatusOr<uint8_t> AddDropReasonList(
      absl::string_view prefix, absl::Span<const absl::string_view> names);

  // "kind_<n>" / "reason_<n>" for indices that were never named.
  std::string KindName(size_t kind) const;
  std::string DropReasonName(size_t reason) const;
  bool KindNamed(size_t kind) const { return !kinds_[kind].empty(); }
  size_t num_drop_reasons() const { return num_reasons_; }

 private:
  std::array<std::string, kMaxFrameKinds> kinds_;
  std::array<std::string, kMaxDropReasons> reasons_;
  size_t num_reasons_ = 0;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_WORKER_STATS_H_
