// SPDX-License-Identifier: Apache-2.0
// Health bookkeeping shared by the reference sources.
//
// kUnknown until the first sample; then kUp or kDegraded as the source judges
// each sample; kDown when the source reports a failure or when no sample
// arrives within the timeout. The last problem is kept as an absl::Status
// whose message tells an operator what to check; it is cleared by the next
// good sample.
//
//   HealthTracker health(/*timeout_ns=*/3'000'000'000);
//   health.OnSample(now_mono_ns, /*degraded=*/false);
//   health.OnFailure(absl::UnavailableError("gpsd: connection refused ..."));
//   health.Refresh(now_mono_ns);      // applies the timeout
//
// Times are CLOCK_MONOTONIC ns (local elapsed time, immune to steps).
// Control thread only.
#ifndef ZG_SERVO_SOURCE_HEALTH_H_
#define ZG_SERVO_SOURCE_HEALTH_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

// Operator-facing name of a health value ("up", "down", ...).
std::string_view SourceHealthName(SourceHealth h);

class HealthTracker {
 public:
  explicit HealthTracker(int64_t timeout_ns) : timeout_ns_(timeout_ns) {}

  // A usable sample was produced. `degraded_reason` non-OK marks it degraded
  // (and becomes the problem); OK clears the problem.
  void OnSample(int64_t mono_ns, absl::Status degraded_reason = {});
  // The source cannot produce samples now: kDown until the next sample.
  void OnFailure(absl::Status why);
  // Samples still arrive but the source says its quality is reduced.
  void OnDegraded(absl::Status why);
  // Applies the timeout: kDown if the last sample is older than timeout_ns.
  void Refresh(int64_t mono_ns);

  SourceHealth health() const { return health_; }
  const absl::Status& problem() const { return problem_; }
  std::optional<int64_t> last_sample_mono_ns() const { return last_sample_; }
  int64_t timeout_ns() const { return timeout_ns_; }

 private:
  int64_t timeout_ns_;
  SourceHealth health_ = SourceHealth::kUnknown;
  absl::Status problem_;
  std::optional<int64_t> last_sample_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_SOURCE_HEALTH_H_
