// SPDX-License-Identifier: Apache-2.0
// Changes go the other way: an operator thread (the control socket, later
// the status page) asks the control thread to do something — reload,
// drain, set the log level, change a source — and gets the reply when the
// control thread has done it, between two ticks.
//
// ControlRequestQueue: operator threads Post() work; the control thread
// runs it with RunPending() once per loop pass. The control thread never
// waits: it only try-locks the queue (if a poster holds it, the work runs
// at the next pass, 100 ms later). Posting takes the same mutex briefly and
// is bounded (a full queue answers at once: unavailable). Each post returns
// a DeferredReply that the control thread completes; its `wake` callback
// (e.g. an eventfd write) tells the waiting thread, which never blocks on
// it either.
//
//   ControlRequestQueue queue;
//   auto reply = queue.Post([&] { return DoReload(); },        // operator
//                           [fd] { uint64_t one = 1; write(fd, &one, 8); });
//   queue.RunPending();                                       // control
//   if (reply->done()) Send(reply->reply());                   // operator
#ifndef ZG_SERVO_API_CONTROL_REQUESTS_H_
#define ZG_SERVO_API_CONTROL_REQUESTS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "servo/api/control_protocol.h"

namespace zg::servo {

// A reply another thread completes. Written by: the completing thread (once).
// Read by: the waiting thread, after done().
class DeferredReply {
 public:
  explicit DeferredReply(std::function<void()> wake = {})
      : wake_(std::move(wake)) {}
  // Completer: stores the reply, marks it done, then wakes the waiter.
  void Complete(Reply reply) {
    reply_ = std::move(reply);
    done_.store(true, std::memory_order_release);
    if (wake_) wake_();
  }
  bool done() const { return done_.load(std::memory_order_acquire); }
  // After done() returned true.
  const Reply& reply() const { return reply_; }

 private:
  std::function<void()> wake_;
  Reply reply_;
  std::atomic<bool> done_{false};
};

class ControlRequestQueue {
 public:
  explicit ControlRequestQueue(size_t capacity = 64) : capacity_(capacity) {}
  // Completes what is still queued with shutting_down.
  ~ControlRequestQueue();
  ControlRequestQueue(const ControlRequestQueue&) = delete;
  ControlRequestQueue& operator=(const ControlRequestQueue&) = delete;

  // Any thread: queues `work` for the control thread. `wake` runs on the
  // control thread once the reply is complete (keep it short, never
  // blocking).
  std::shared_ptr<DeferredReply> Post(std::function<Reply()> work,
                                      std::function<void()> wake = {});
  // The same for work that answers later (a query the workers take a few
  // polls to gather): `work` gets a `complete` it must call exactly once,
  // on the control thread, now or at a later tick.
  using Complete = std::function<void(Reply)>;
  std::shared_ptr<DeferredReply> PostAsync(
      std::function<void(Complete complete)> work,
      std::function<void()> wake = {});

  // Control thread: runs what was posted, in order. Returns how many ran (0
  // also when a poster held the queue).
  size_t RunPending();

  // Control thread: requests run since start.
  uint64_t ran() const { return ran_; }

 private:
  struct Item {
    std::function<void(Complete)> work;
    std::shared_ptr<DeferredReply> reply;
  };
  const size_t capacity_;
  std::mutex mu_;
  std::deque<Item> queue_;    // guarded by mu_
  std::deque<Item> running_;  // control thread only
  uint64_t ran_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_CONTROL_REQUESTS_H_
