// SPDX-License-Identifier: Apache-2.0
// A fixed-capacity single-producer single-consumer ring of trivially
// copyable values: how a worker hands rare events (a received PTP Announce)
// to the control thread without locks or allocation. The producer never
// waits: when the ring is full, TryPush fails and the caller counts a drop.
//
//   SpscRing<AnnounceEvent, 64> ring;           // shared
//   if (!ring.TryPush(event)) ++dropped;        // producer (one worker)
//   AnnounceEvent e;
//   while (ring.TryPop(&e)) Handle(e);          // consumer (control thread)
#ifndef ZG_CORE_BASE_SPSC_RING_H_
#define ZG_CORE_BASE_SPSC_RING_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace zg::core {

template <typename T, size_t kCapacity>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>);
  static_assert(kCapacity >= 2 && (kCapacity & (kCapacity - 1)) == 0,
                "capacity must be a power of two");

 public:
  // Producer only.
  bool TryPush(const T& value) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) == kCapacity) {
      return false;
    }
    slots_[head & (kCapacity - 1)] = value;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer only.
  bool TryPop(T* out) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    *out = slots_[tail & (kCapacity - 1)];
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  // Any thread; a snapshot.
  size_t size() const {
    return static_cast<size_t>(head_.load(std::memory_order_acquire) -
                               tail_.load(std::memory_order_acquire));
  }
  static constexpr size_t capacity() { return kCapacity; }

 private:
  // Written by: the producer. Read by: both.
  alignas(64) std::atomic<uint64_t> head_{0};
  // Written by: the consumer. Read by: both.
  alignas(64) std::atomic<uint64_t> tail_{0};
  // Slot i is written by the producer before head_ passes it and read by
  // the consumer before tail_ passes it.
  alignas(64) std::array<T, kCapacity> slots_{};
};

}  // namespace zg::core

#endif  // ZG_CORE_BASE_SPSC_RING_H_
