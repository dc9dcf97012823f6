// SPDX-License-Identifier: Apache-2.0
// SnapshotSlot<T>: how the control thread hands a read-only snapshot (a
// ControlPlaneStatus, the daemon's ServiceStatus, the data plane's sampled
// counters) to the operator threads (control socket, status page, SNMP)
// without ever waiting for them.
//
// A snapshot is immutable once published and shared by pointer: readers
// keep the one they got for as long as they need it (a reply's lifetime);
// the last owner frees it, on its own thread.
//
// Why this never blocks the writer: the slot is a std::shared_ptr behind a
// mutex that readers hold only to copy the pointer (a reference-count
// increment), and that the writer only try-locks. If a reader holds it at
// that instant, Publish() keeps the snapshot pending and returns; the next
// Publish() or Flush() (the next tick) installs it, or a newer one. A
// reader can delay a snapshot by a tick; it can never delay the tick.
// (SeqLock, as for the ClockModel, needs trivially copyable payloads; these
// hold strings and vectors. std::atomic<std::shared_ptr> in libstdc++ 12
// spins on a lock bit that a preempted reader could hold.)
//
//   SnapshotSlot<ControlPlaneStatus> slot;
//   slot.Publish(std::make_shared<const ControlPlaneStatus>(
//       control->Snapshot()));                      // control thread
//   std::shared_ptr<const ControlPlaneStatus> s = slot.Read();  // any thread
//   if (s != nullptr) ... s->discipline.state
#ifndef ZG_SERVO_API_SNAPSHOT_SLOT_H_
#define ZG_SERVO_API_SNAPSHOT_SLOT_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

namespace zg::servo {

template <typename T>
class SnapshotSlot {
 public:
  SnapshotSlot() = default;
  SnapshotSlot(const SnapshotSlot&) = delete;
  SnapshotSlot& operator=(const SnapshotSlot&) = delete;

  // Writer (one thread). Installs `next`, or keeps it pending if a reader
  // holds the slot right now (returns false; a newer Publish replaces it).
  bool Publish(std::shared_ptr<const T> next) {
    pending_ = std::move(next);
    return Flush();
  }
  // Writer: installs a pending snapshot if the slot is free. True when
  // nothing is pending any more.
  bool Flush() {
    if (pending_ == nullptr) return true;
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      ++deferred_;
      return false;
    }
    current_.swap(pending_);
    ++published_;
    lock.unlock();
    pending_.reset();  // the previous snapshot, freed here if unshared
    return true;
  }
  // Writer: how many publications were installed, and how many times a
  // reader made one wait for a later Flush.
  uint64_t published() const { return published_; }
  uint64_t deferred() const { return deferred_; }

  // Any thread: the latest installed snapshot (null before the first).
  std::shared_ptr<const T> Read() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const T> current_;  // guarded by mu_
  // Writer only.
  std::shared_ptr<const T> pending_;
  uint64_t published_ = 0;
  uint64_t deferred_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_SNAPSHOT_SLOT_H_
