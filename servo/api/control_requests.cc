// SPDX-License-Identifier: Apache-2.0
// The operator -> control thread request queue (control_requests.h).
#include "servo/api/control_requests.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {

ControlRequestQueue::~ControlRequestQueue() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Item& item : queue_) {
    item.reply->Complete(
        Reply::Error(ErrorCode::kShuttingDown,
                     "zeitgeberd is stopping: the request was not run"));
  }
}

std::shared_ptr<DeferredReply> ControlRequestQueue::Post(
    std::function<Reply()> work, std::function<void()> wake) {
  return PostAsync(
      [work = std::move(work)](const Complete& complete) { complete(work()); },
      std::move(wake));
}

std::shared_ptr<DeferredReply> ControlRequestQueue::PostAsync(
    std::function<void(Complete)> work, std::function<void()> wake) {
  auto reply = std::make_shared<DeferredReply>(std::move(wake));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() < capacity_) {
      queue_.push_back({std::move(work), reply});
      return reply;
    }
  }
  reply->Complete(
      Reply::Error(ErrorCode::kUnavailable,
                   absl::StrCat("the control thread has ", capacity_,
                                " requests waiting already; try again")));
  return reply;
}

size_t ControlRequestQueue::RunPending() {
  {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock() || queue_.empty()) return 0;
    running_.swap(queue_);
  }
  const size_t n = running_.size();
  for (Item& item : running_) {
    item.work([reply = item.reply](Reply r) { reply->Complete(std::move(r)); });
  }
  running_.clear();
  ran_ += n;
  return n;
}

}  // namespace zg::servo
