// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/sample_filter.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace zg::servo {

const ReferenceSample* PickBest(absl::Span<const ReferenceSample> samples) {
  const ReferenceSample* best = nullptr;
  for (const ReferenceSample& s : samples) {
    if (best == nullptr || s.uncertainty_ns < best->uncertainty_ns) best = &s;
  }
  return best;
}

absl::Status ValidateOutlierFilterConfig(const OutlierFilterConfig& c) {
  if (c.window < 3 || c.window > 255) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "outlier filter: window must be in [3, 255] (got %d)", c.window));
  }
  if (!(c.mad_multiplier > 0) || c.min_gate_ns < 0 || c.max_consecutive < 1) {
    return absl::InvalidArgumentError(
        "outlier filter: mad_multiplier must be > 0, min_gate_ns >= 0, "
        "max_consecutive >= 1");
  }
  return absl::OkStatus();
}

OutlierFilter::OutlierFilter(const OutlierFilterConfig& config)
    : config_(config) {
  window_.reserve(config_.window);
  scratch_.reserve(config_.window);
}

void OutlierFilter::Reset() {
  window_.clear();
  next_ = 0;
  consecutive_ = 0;
}

double OutlierFilter::Median(std::vector<double>* v) const {
  const size_t mid = v->size() / 2;
  std::nth_element(v->begin(), v->begin() + mid, v->end());
  double m = (*v)[mid];
  if (v->size() % 2 == 0) {
    m = (m + *std::max_element(v->begin(), v->begin() + mid)) / 2;
  }
  return m;
}

double OutlierFilter::GateNs() const {
  if (window_.size() < 3) return 0.0;
  scratch_.assign(window_.begin(), window_.end());
  const double median = Median(&scratch_);
  for (double& x : scratch_) x = std::fabs(x - median);
  const double mad = Median(&scratch_);
  return std::max(config_.mad_multiplier * 1.4826 * mad,
                  static_cast<double>(config_.min_gate_ns));
}

FilterVerdict OutlierFilter::Check(double offset_ns, int64_t uncertainty_ns,
                                   bool gate) {
  if (gate && window_.size() >= 3) {
    scratch_.assign(window_.begin(), window_.end());
    const double median = Median(&scratch_);
    const double limit = GateNs() + static_cast<double>(uncertainty_ns);
    if (std::fabs(offset_ns - median) > limit) {
      ++outliers_;
      if (++consecutive_ < config_.max_consecutive) {
        return FilterVerdict::kOutlier;
      }
      // A level shift, not a spike: start over from this sample.
      ++restarts_;
      Reset();
    }
  }
  consecutive_ = 0;
  if (window_.size() < static_cast<size_t>(config_.window)) {
    window_.push_back(offset_ns);
  } else {
    window_[next_] = offset_ns;
  }
  next_ = (next_ + 1) % static_cast<size_t>(config_.window);
  return FilterVerdict::kAccept;
}

GateResult CheckJump(double offset_ns, int64_t uncertainty_ns, int64_t bound_ns,
                     const JumpGateConfig& config) {
  if (bound_ns < 0) {
    return GateResult{true, std::numeric_limits<int64_t>::max()};
  }
  // Saturating sum: bounds in long holdover can be large.
  const double limit = static_cast<double>(bound_ns) +
                       static_cast<double>(uncertainty_ns) +
                       static_cast<double>(config.margin_ns);
  const int64_t limit_ns = limit >= 9.2e18 ? std::numeric_limits<int64_t>::max()
                                           : static_cast<int64_t>(limit);
  return GateResult{std::fabs(offset_ns) <= limit, limit_ns};
}

}  // namespace zg::servo
