// SPDX-License-Identifier: Apache-2.0
// Live source changes: names, JSON, spec keys and the ticket a caller waits
// on (servo/control/source_change.h).
#include "servo/control/source_change.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace zg::servo {

const char* SourceActionName(SourceAction action) {
  switch (action) {
    case SourceAction::kAdd:
      return "add";
    case SourceAction::kDelete:
      return "delete";
    case SourceAction::kPriority:
      return "priority";
    case SourceAction::kEnable:
      return "enable";
    case SourceAction::kDisable:
      return "disable";
    case SourceAction::kReplaceAll:
      return "replace_all";
  }
  return "?";
}

nlohmann::json SourceChangeResultJson(const SourceChangeResult& r) {
  nlohmann::json j = nlohmann::json::object();
  j["ok"] = r.ok;
  j["action"] = SourceActionName(r.action);
  j["persistent"] = r.persistent;
  if (!r.ok) j["error"] = r.error;
  if (r.selected) j["selected"] = *r.selected;
  nlohmann::json changes = nlohmann::json::array();
  for (const SourceChangeEntry& e : r.changes) {
    changes.push_back({{"source", e.source},
                       {"change", e.change},
                       {"spec", e.spec},
                       {"priority", e.priority},
                       {"enabled", e.enabled}});
  }
  j["changes"] = std::move(changes);
  return j;
}

std::string SourceSpecKey(const SourceSpec& spec) {
  std::vector<std::string> kept;
  for (absl::string_view piece : absl::StrSplit(spec.text, ',')) {
    if (kept.empty()) {  // KIND[:TARGET] or KIND:KEY=VALUE
      const size_t colon = piece.find(':');
      if (colon != absl::string_view::npos &&
          absl::StartsWith(piece.substr(colon + 1), "priority=")) {
        piece = piece.substr(0, colon);
      }
    } else if (absl::StartsWith(piece, "priority=")) {
      continue;
    }
    kept.emplace_back(piece);
  }
  return absl::StrJoin(kept, ",");
}

SourceChangeResult SourceChangeTicket::Wait(absl::Duration timeout) {
  // Clamped: wait_for(duration::max()) overflows the clock's time_point.
  timeout = std::clamp(timeout, absl::ZeroDuration(), absl::Hours(1));
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
               [this] { return state_ == State::kDone; });
  if (state_ == State::kQueued) {
    state_ = State::kWithdrawn;
    SourceChangeResult r;
    r.action = action_;
    r.error = absl::StrCat(
        "not applied: the control thread did not take the change within ",
        absl::FormatDuration(timeout), " (the request was withdrawn)");
    return r;
  }
  cv_.wait(lock, [this] { return state_ == State::kDone; });
  return result_;
}

bool SourceChangeTicket::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ != State::kQueued) return false;
  state_ = State::kTaken;
  return true;
}

void SourceChangeTicket::OnDone(
    std::function<void(const SourceChangeResult&)> done) {
  std::unique_lock<std::mutex> lock(mu_);
  if (state_ != State::kDone) {
    done_ = std::move(done);
    return;
  }
  const SourceChangeResult result = result_;
  lock.unlock();
  done(result);
}

void SourceChangeTicket::Complete(SourceChangeResult result) {
  std::function<void(const SourceChangeResult&)> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(result);
    state_ = State::kDone;
    done = std::move(done_);
    done_ = nullptr;
  }
  cv_.notify_all();
  if (done) done(result_);
}

}  // namespace zg::servo
