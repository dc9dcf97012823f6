// SPDX-License-Identifier: Apache-2.0
// SnapshotCell<T>: one writer publishes immutable snapshots (the control
// plane's status, the alarm table, the service and data-plane status) that
// any number of reader threads (the control socket, SNMP, the status page)
// take, without the writer ever waiting for a reader or taking a lock a
// reader holds. The one hand-over of operator snapshots in zeitgeberd.
//
// Three slots, each a shared_ptr<const T> with a count of the readers
// inside it. The writer fills a slot that is neither current nor entered
// and then makes it current; a reader enters the current slot, checks it is
// still current (else leaves and retries), copies the shared_ptr (an atomic
// reference-count increment) and leaves. All steps are seq_cst atomics, so a
// reader that saw its slot current after entering it holds a slot the
// writer will not refill until it leaves (Dekker's argument). If both other
// slots are entered at the moment of a Publish (readers that lost a race and
// are leaving), the writer keeps the new snapshot pending and returns false:
// it never spins. The next Publish (a newer snapshot) or Flush installs it,
// so the latest snapshot is always installed by the writer's next call.
// Readers retry a bounded number of times. (SeqLock, as for the ClockModel,
// needs trivially copyable payloads; these hold strings and vectors. A
// mutex, even one the writer only try-locks, lets a preempted reader hold
// back every other reader; std::atomic<std::shared_ptr> in libstdc++ 12
// spins on a lock bit a preempted reader may hold.)
//
//   SnapshotCell<AlarmTable> cell;
//   // The writer, each tick: publishes, or installs one kept pending.
//   cell.Publish(std::make_shared<const AlarmTable>(alarms.Table()));
//   cell.Flush();
//   // Any thread; null before the first Publish.
//   std::shared_ptr<const AlarmTable> t = cell.Load();
//
// The old snapshot is freed by whichever thread drops it last.
#ifndef ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_
#define ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace zg::servo {

template <typename T>
class SnapshotCell {
 public:
  // Writer only. Installs `value`, or keeps it pending if no slot is free
  // (returns false; a newer Publish replaces it, Flush retries it).
  bool Publish(std::shared_ptr<const T> value) {
    pending_ = std::move(value);
    return Flush();
  }
  // Writer only: installs a pending snapshot if a slot is free now. True
  // when nothing is pending any more.
  bool Flush() {
    if (pending_ == nullptr) return true;
    const int cur = current_.load();
    for (int i = 1; i < kSlots; ++i) {
      Slot& s = slots_[(cur + i) % kSlots];
      if (s.readers.load() != 0) continue;
      s.value = std::move(pending_);  // frees that slot's old snapshot here
      pending_ = nullptr;
      current_.store((cur + i) % kSlots);
      ++published_;
      return true;
    }
    ++deferred_;
    return false;
  }
  // Writer only: snapshots installed, and publications that found no free
  // slot (installed later, or replaced by a newer one).
  uint64_t published() const { return published_; }
  uint64_t deferred() const { return deferred_; }

  // Any thread. Null before the first Publish (or if 64 tries all lost a
  // race against the writer, which needs 64 publishes meanwhile).
  std::shared_ptr<const T> Load() const {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int i = current_.load();
      Slot& s = slots_[i];
      s.readers.fetch_add(1);
      if (current_.load() == i) {
        std::shared_ptr<const T> v = s.value;
        s.readers.fetch_sub(1);
        return v;
      }
      s.readers.fetch_sub(1);
    }
    return nullptr;
  }

 private:
  static constexpr int kSlots = 3;
  struct Slot {
    // Written by: the writer, only while not current and not entered.
    // Read by: readers that entered it while it was current.
    std::shared_ptr<const T> value;
    std::atomic<int> readers{0};
  };
  mutable std::array<Slot, kSlots> slots_;
  std::atomic<int> current_{0};
  // Writer only.
  std::shared_ptr<const T> pending_;
  uint64_t published_ = 0;
  uint64_t deferred_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_
