// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/source_health.h"

#include <string>
#include <utility>

#include "absl/strings/str_format.h"

namespace zg::servo {

std::string_view SourceHealthName(SourceHealth h) {
  switch (h) {
    case SourceHealth::kUnknown:
      return "unknown";
    case SourceHealth::kUp:
      return "up";
    case SourceHealth::kDegraded:
      return "degraded";
    case SourceHealth::kDown:
      return "down";
  }
  return "invalid";
}

void HealthTracker::OnSample(int64_t mono_ns, absl::Status degraded_reason) {
  last_sample_ = mono_ns;
  if (degraded_reason.ok()) {
    health_ = SourceHealth::kUp;
    problem_ = absl::OkStatus();
  } else {
    health_ = SourceHealth::kDegraded;
    problem_ = std::move(degraded_reason);
  }
}

void HealthTracker::OnFailure(absl::Status why) {
  health_ = SourceHealth::kDown;
  problem_ = std::move(why);
}

void HealthTracker::OnDegraded(absl::Status why) {
  if (health_ != SourceHealth::kDown) health_ = SourceHealth::kDegraded;
  problem_ = std::move(why);
}

void HealthTracker::Refresh(int64_t mono_ns) {
  if (!last_sample_) return;
  const int64_t age = mono_ns - *last_sample_;
  if (age <= timeout_ns_ || health_ == SourceHealth::kDown) return;
  health_ = SourceHealth::kDown;
  problem_ = absl::UnavailableError(absl::StrFormat(
      "no sample for %.1f s (timeout %.1f s)%s%s", age / 1e9, timeout_ns_ / 1e9,
      problem_.ok() ? "" : "; last problem: ",
      problem_.ok() ? "" : std::string(problem_.message())));
}

}  // namespace zg::servo
