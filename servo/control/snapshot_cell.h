// SPDX-License-Identifier: Apache-2.0
// SnapshotCell<T>: one writer publishes immutable snapshots (a status, the
// alarm table) that any number of reader threads (SNMP, the control socket,
// the status page) take, without the writer ever waiting for a reader or
// taking a lock a reader holds.
//
// Three slots, each a shared_ptr<const T> with a count of the readers
// inside it. The writer fills a slot that is neither current nor entered
// and then makes it current; a reader enters the current slot, checks it is
// still current (else leaves and retries), copies the shared_ptr (an atomic
// reference-count increment) and leaves. All steps are seq_cst atomics, so a
// reader that saw its slot current after entering it holds a slot the
// writer will not refill until it leaves (Dekker's argument). If both other
// slots are entered at the moment of a Publish (readers that lost a race and
// are leaving), the writer keeps the previous snapshot current and returns
// false: it never spins. Readers retry a bounded number of times.
//
//   SnapshotCell<AlarmTable> cell;
//   cell.Publish(std::make_shared<const AlarmTable>(alarms.Table()));  //
//   writer std::shared_ptr<const AlarmTable> t = cell.Load();  // any thread;
//   may be null
//
// The old snapshot is freed by whichever thread drops it last.
#ifndef ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_
#define ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_

#include <array>
#include <atomic>
#include <memory>

namespace zg::servo {

template <typename T>
class SnapshotCell {
 public:
  // Writer only. False if no slot was free (the previous snapshot stays).
  bool Publish(std::shared_ptr<const T> value) {
    const int cur = current_.load();
    for (int i = 1; i < kSlots; ++i) {
      Slot& s = slots_[(cur + i) % kSlots];
      if (s.readers.load() != 0) continue;
      s.value = std::move(value);
      current_.store((cur + i) % kSlots);
      return true;
    }
    return false;
  }

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
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_SNAPSHOT_CELL_H_
