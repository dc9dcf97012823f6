// SPDX-License-Identifier: Apache-2.0
// Single-writer sequence lock for publishing a small trivially-copyable value
// (the ClockModel) from the control thread to every data-plane worker.
//
// The writer never waits; readers never write shared memory and never block:
// they retry a bounded number of times and, if every try was torn by a
// concurrent write, report failure so the caller keeps its last good copy.
//
// The payload is stored as an array of relaxed std::atomic<uint64_t> words, so
// concurrent reads and writes are not a data race in the C++ memory model (and
// TSan agrees); the sequence counter with release/acquire fences orders them.
//
// Written here, not taken from a library: a reader-writer lock
// (std::shared_mutex) writes its lock word on every read and makes readers
// wait behind the writer, which the hot path forbids;
// bench/core/base/seqlock_benchmark.cc measures a read against
// std::shared_mutex and a mutex-protected copy in the same run.
//
//   SeqLock<ClockModel> published;            // shared
//   published.Write(model);                   // control thread only
//   ClockModel copy;
//   if (!published.TryRead(&copy)) { /* keep the previous copy */ }
#ifndef ZG_CORE_BASE_SEQLOCK_H_
#define ZG_CORE_BASE_SEQLOCK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace zg::core {

template <typename T>
class SeqLock {
  static_assert(std::is_trivially_copyable_v<T>,
                "SeqLock payloads are copied word by word");

 public:
  static constexpr int kDefaultMaxRetries = 16;

  SeqLock() = default;
  explicit SeqLock(const T& initial) { Write(initial); }
  SeqLock(const SeqLock&) = delete;
  SeqLock& operator=(const SeqLock&) = delete;

  // Publishes `value`. Single writer: must only be called from one thread.
  void Write(const T& value) {
    uint64_t buf[kWords] = {};
    std::memcpy(buf, &value, sizeof(T));
    const uint64_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);  // odd: write in progress
    std::atomic_thread_fence(std::memory_order_release);
    for (size_t i = 0; i < kWords; ++i) {
      words_[i].store(buf[i], std::memory_order_relaxed);
    }
    seq_.store(s + 2, std::memory_order_release);  // even: stable
  }

  // Copies the latest complete value into `*out`. Returns false (and leaves
  // `*out` untouched) if no untorn copy was obtained within `max_retries`
  // attempts, or if nothing has been written yet.
  bool TryRead(T* out, int max_retries = kDefaultMaxRetries) const {
    uint64_t buf[kWords];
    for (int attempt = 0; attempt < max_retries; ++attempt) {
      const uint64_t s1 = seq_.load(std::memory_order_acquire);
      if (s1 == 0) return false;  // never written
      if (s1 & 1) continue;       // writer active
      for (size_t i = 0; i < kWords; ++i) {
        buf[i] = words_[i].load(std::memory_order_relaxed);
      }
      std::atomic_thread_fence(std::memory_order_acquire);
      if (seq_.load(std::memory_order_relaxed) == s1) {
        std::memcpy(out, buf, sizeof(T));
        return true;
      }
    }
    return false;
  }

  // Number of completed writes (even sequence / 2). For tests and metrics.
  uint64_t Generation() const {
    return seq_.load(std::memory_order_acquire) / 2;
  }

 private:
  static constexpr size_t kWords = (sizeof(T) + 7) / 8;

  // Written by the single writer, read by every reader.
  alignas(64) std::atomic<uint64_t> seq_{0};
  // Written by the single writer, read by every reader.
  alignas(64) std::atomic<uint64_t> words_[kWords] = {};
};

}  // namespace zg::core

#endif  // ZG_CORE_BASE_SEQLOCK_H_
