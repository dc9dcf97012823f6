// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/selection.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_format.h"

namespace zg::servo {
namespace {

struct Endpoint {
  double value;
  int type;  // -1: low end, +1: high end
};

// Preference order: lower priority value, lower stratum, narrower interval.
bool Better(const SelectionCandidate& a, const SelectionCandidate& b) {
  return std::make_tuple(a.priority, a.stratum, a.half_width_ns) <
         std::make_tuple(b.priority, b.stratum, b.half_width_ns);
}

const SelectionCandidate* FindId(absl::Span<const SelectionCandidate> cands,
                                 int id) {
  for (const SelectionCandidate& c : cands) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

}  // namespace

IntersectionResult Intersect(absl::Span<const Interval> intervals) {
  IntersectionResult r;
  const int n = static_cast<int>(intervals.size());
  if (n == 0) return r;
  std::vector<Endpoint> ends;
  ends.reserve(2 * n);
  for (const Interval& iv : intervals) {
    ends.push_back({iv.lo, -1});
    ends.push_back({iv.hi, +1});
  }
  // Low ends sort before high ends at equal values: touching intervals meet.
  std::sort(ends.begin(), ends.end(), [](const Endpoint& a, const Endpoint& b) {
    return a.value < b.value || (a.value == b.value && a.type < b.type);
  });
  for (int f = 0; 2 * f < n; ++f) {
    const int need = n - f;
    double lo = 0, hi = 0;
    bool have_lo = false, have_hi = false;
    int count = 0;
    for (const Endpoint& e : ends) {
      count -= e.type;
      if (count >= need) {
        lo = e.value;
        have_lo = true;
        break;
      }
    }
    count = 0;
    for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
      count += it->type;
      if (count >= need) {
        hi = it->value;
        have_hi = true;
        break;
      }
    }
    if (have_lo && have_hi && lo <= hi) {
      r.found = true;
      r.lo = lo;
      r.hi = hi;
      for (const Interval& iv : intervals) {
        if (iv.lo <= hi && iv.hi >= lo) ++r.agree;
      }
      return r;
    }
  }
  return r;
}

absl::Status ValidateSelectorConfig(const SelectorConfig& c) {
  if (c.min_voters < 3 || c.switch_polls < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "selection: min_voters must be >= 3 (a majority needs three) and "
        "switch_polls >= 1 (got %d, %d)",
        c.min_voters, c.switch_polls));
  }
  return absl::OkStatus();
}

SelectionResult SourceSelector::Select(
    absl::Span<const SelectionCandidate> candidates, int64_t model_bound_ns) {
  SelectionResult r;
  r.previous = selected_;
  intervals_.clear();
  voter_ids_.clear();
  for (const SelectionCandidate& c : candidates) {
    if (!c.votes) continue;
    intervals_.push_back(
        {c.offset_ns - c.half_width_ns, c.offset_ns + c.half_width_ns});
    voter_ids_.push_back(c.id);
  }
  if (static_cast<int>(intervals_.size()) >= config_.min_voters) {
    r.voted = true;
    r.intersection = Intersect(intervals_);
    if (r.intersection.found) {
      for (size_t i = 0; i < intervals_.size(); ++i) {
        if (intervals_[i].hi < r.intersection.lo ||
            intervals_[i].lo > r.intersection.hi) {
          r.falsetickers.push_back(voter_ids_[i]);
        }
      }
      const double b = static_cast<double>(model_bound_ns);
      r.model_outvoted = model_bound_ns >= 0 &&
                         (r.intersection.hi < -b || r.intersection.lo > b);
    }
  }
  auto eligible = [&](const SelectionCandidate& c) {
    return c.usable && std::find(r.falsetickers.begin(), r.falsetickers.end(),
                                 c.id) == r.falsetickers.end();
  };
  const SelectionCandidate* best = nullptr;
  for (const SelectionCandidate& c : candidates) {
    if (eligible(c) && (best == nullptr || Better(c, *best))) best = &c;
  }
  const SelectionCandidate* current = FindId(candidates, selected_);
  const bool reselect = std::exchange(reselect_, false);
  if (current == nullptr || !eligible(*current) ||
      (reselect && best != nullptr && Better(*best, *current))) {
    selected_ = best ? best->id : -1;
    challenger_ = -1;
    challenger_polls_ = 0;
  } else if (best != nullptr && best->id != selected_ &&
             Better(*best, *current)) {
    challenger_polls_ = best->id == challenger_ ? challenger_polls_ + 1 : 1;
    challenger_ = best->id;
    if (challenger_polls_ >= config_.switch_polls) {
      selected_ = best->id;
      challenger_ = -1;
      challenger_polls_ = 0;
    }
  } else {
    challenger_ = -1;
    challenger_polls_ = 0;
  }
  r.selected = selected_;
  r.switched = selected_ != r.previous;
  return r;
}

}  // namespace zg::servo
