// SPDX-License-Identifier: Apache-2.0
// Double-buffered configuration for the workers: the control thread publishes
// a new immutable T (built and validated first), each worker picks up the
// current one with one atomic load between two burst boundaries, and the old
// T is freed only after every worker has passed a burst boundary since it
// was replaced (a grace period, as in quiescent-state-based RCU; DPDK's
// rte_rcu_qsbr is the same idea). This is how ACLs, rate limits, keys and
// PTP admission limits change on SIGHUP without a restart and without a lock
// on the hot path (dataplane/trust/reload.h).
//
// Written here rather than on DPDK's rte_rcu_qsbr (the same idea, a reader no
// cheaper) so
// that it is plain C++ that builds and runs under TSan without DPDK, and not
// on std::atomic<std::shared_ptr> or a mutex, whose readers write shared
// memory or wait; bench/dataplane/trust/config_swap_benchmark.cc measures the
// per-burst read against all three in the same run.
//
// Two pieces:
//   ReaderEpochs        one padded slot per worker. The worker marks its
//                       burst boundary (Quiescent: one load + one release
//                       store per loop pass, dataplane/worker/worker.cc);
//                       a worker that is not polling (not started yet,
//                       stopped, or idle in a blocking wait) is Offline and
//                       never holds up reclamation.
//   SwappableConfig<T>  the published pointer. Publish() swaps it and
//                       retires the old T to the ReaderEpochs, which frees
//                       it once every online worker has been quiescent
//                       since (Reclaim(), called by Publish and by the
//                       daemon's control loop every tick).
//
// Rule for readers: a `const T*` from Current() is valid until this worker's
// next Quiescent(); never keep it across a loop pass. Load it once per burst
// (or per packet: one load of a line that changes only on reload).
//
//   // control thread, at start-up:
//   SwappableConfig<AccessList> acl(std::move(initial));  // DataplaneEpochs()
//   // worker i, in the poll loop (Worker does this itself):
//   epochs.Online(i);  ... each pass: epochs.Quiescent(i); ...  Offline(i);
//   // worker, in a handler:   const AccessList* a = acl.Current();
//   // control thread, on SIGHUP, after validating `next`:
//   acl.Publish(std::move(next));   // the old one is freed later
//
// Threads: Publish, Reclaim and the destructors run on the control thread
// only (one writer); Current, Online, Quiescent and Offline on workers (each
// slot written by its own worker only).
#ifndef ZG_DATAPLANE_TRUST_CONFIG_SWAP_H_
#define ZG_DATAPLANE_TRUST_CONFIG_SWAP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

// Grace-period bookkeeping for up to kMaxReaders workers (indexed by
// WorkerSetup::worker_index). Reader side is wait-free; the control side
// frees retired objects whose grace period has passed.
class ReaderEpochs {
 public:
  static constexpr size_t kMaxReaders = 128;  // RTE_MAX_LCORE on Debian

  ReaderEpochs() = default;
  ReaderEpochs(const ReaderEpochs&) = delete;
  ReaderEpochs& operator=(const ReaderEpochs&) = delete;
  // Frees everything still retired: every reader must be stopped.
  ~ReaderEpochs() = default;

  // --- Reader side (worker `reader` only) ---
  // Before the first Current() of a run. seq_cst: a Publish racing with
  // Online either sees this reader online or is seen by its next load.
  void Online(size_t reader) {
    slots_[reader].seen.store(epoch_.load(std::memory_order_seq_cst),
                              std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // store, then load
  }
  // At a burst boundary: no pointer from Current() is held any more. One
  // acquire load and one release store (two plain moves on x86).
  void Quiescent(size_t reader) {
    slots_[reader].seen.store(epoch_.load(std::memory_order_acquire),
                              std::memory_order_release);
  }
  // When the reader stops (or blocks for a long time): it holds nothing.
  void Offline(size_t reader) {
    slots_[reader].seen.store(kOffline, std::memory_order_release);
  }

  // --- Control side (control thread only) ---
  // Takes ownership of `old`, to be freed once every online reader has been
  // quiescent since this call.
  template <typename T>
  void Retire(std::unique_ptr<const T> old) {
    if (old == nullptr) return;
    // seq_cst: orders the caller's pointer swap before the epoch bump, and
    // the bump before the reads of the slots in Reclaim.
    const uint64_t e = epoch_.fetch_add(1, std::memory_order_seq_cst) + 1;
    retired_.push_back({e, std::make_unique<Holder<T>>(std::move(old))});
    ++retired_total_;
  }
  // Frees every retired object whose grace period has passed; returns how
  // many it freed.
  size_t Reclaim() {
    if (retired_.empty()) return 0;
    const uint64_t passed = OldestSeen();
    size_t freed = 0;
    std::vector<Retired> keep;
    for (Retired& r : retired_) {
      if (r.epoch <= passed) {
        ++freed;
      } else {
        keep.push_back(std::move(r));
      }
    }
    retired_ = std::move(keep);  // the freed holders die here
    freed_total_ += freed;
    return freed;
  }
  size_t pending() const { return retired_.size(); }
  uint64_t retired_total() const { return retired_total_; }
  uint64_t freed_total() const { return freed_total_; }
  uint64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }

 private:
  static constexpr uint64_t kOffline = ~uint64_t{0};
  // Written by: its worker. Read by: the control thread (Reclaim).
  // kOffline, or the epoch the worker read at its last boundary.
  struct alignas(64) Slot {
    std::atomic<uint64_t> seen{kOffline};
  };
  struct Erased {
    virtual ~Erased() = default;
  };
  template <typename T>
  struct Holder final : Erased {
    explicit Holder(std::unique_ptr<const T> p) : ptr(std::move(p)) {}
    std::unique_ptr<const T> ptr;
  };
  struct Retired {
    uint64_t epoch;  // the epoch Retire() moved to
    std::unique_ptr<Erased> object;
  };

  // The smallest epoch every online reader has reached (offline readers do
  // not count). acquire: what a reader did with an object before marking
  // happens before the free.
  uint64_t OldestSeen() const {
    uint64_t oldest = epoch_.load(std::memory_order_seq_cst);
    for (const Slot& s : slots_) {
      const uint64_t seen = s.seen.load(std::memory_order_seq_cst);
      if (seen < oldest) oldest = seen;
    }
    return oldest;
  }

  // Written by: control thread (Retire). Read by: workers (Quiescent).
  alignas(64) std::atomic<uint64_t> epoch_{1};
  Slot slots_[kMaxReaders];
  // Control thread only.
  std::vector<Retired> retired_;
  uint64_t retired_total_ = 0;
  uint64_t freed_total_ = 0;
};

// The data plane's one set of reader epochs: zeitgeberd's workers mark it
// (worker index = slot) and every SwappableConfig uses it unless given
// another. Never destroyed (retired objects are reclaimed by the daemon
// before the EAL goes away).
inline ReaderEpochs& DataplaneEpochs() {
  static ReaderEpochs* epochs = new ReaderEpochs;
  return *epochs;
}

template <typename T>
class SwappableConfig {
 public:
  // `initial` must not be null. `epochs` must outlive this object.
  explicit SwappableConfig(std::unique_ptr<const T> initial,
                           ReaderEpochs* epochs = &DataplaneEpochs())
      : epochs_(epochs), current_(initial.release()) {}
  SwappableConfig(const SwappableConfig&) = delete;
  SwappableConfig& operator=(const SwappableConfig&) = delete;
  // Control thread, once no worker reads it (workers stopped).
  ~SwappableConfig() { delete current_.load(std::memory_order_relaxed); }

  // Worker: the current config; valid until the worker's next Quiescent().
  const T* Current() const { return current_.load(std::memory_order_acquire); }

  // Control thread: `next` (already validated) replaces the current config
  // for every load from now on; the old one is freed after the grace period.
  absl::Status Publish(std::unique_ptr<const T> next) {
    if (next == nullptr) {
      return absl::InvalidArgumentError(
          "SwappableConfig::Publish: a null config (build and validate it "
          "first)");
    }
    const T* old = current_.exchange(next.release(), std::memory_order_seq_cst);
    epochs_->Retire(std::unique_ptr<const T>(old));
    epochs_->Reclaim();
    ++publishes_;
    return absl::OkStatus();
  }
  uint64_t publishes() const { return publishes_; }  // control thread

 private:
  ReaderEpochs* epochs_;
  // Written by: control thread (Publish). Read by: workers (Current).
  alignas(64) std::atomic<const T*> current_;
  uint64_t publishes_ = 0;  // control thread only
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_TRUST_CONFIG_SWAP_H_
