// SPDX-License-Identifier: Apache-2.0
// Source selection: which reference the servo follows.
//
// Every poll each source offers a candidate: its latest offset against the
// model and a correctness interval [offset - h, offset + h], h = the sample's
// uncertainty grown by its age (RFC 5905's root distance, in spirit). Then:
//
// 1. Falsetickers (3+ candidates, `min_voters`): the interval intersection of
//    RFC 5905 section 11.2.1 (Marzullo's algorithm): find the smallest number
//    f of falsetickers (f < n/2) for which n - f intervals share a common
//    interval [lo, hi]; candidates whose interval misses [lo, hi] are
//    falsetickers and cannot be selected. With fewer candidates no majority
//    exists and every usable candidate is a truechimer. If no majority exists
//    at all, nobody is a falseticker and `intersection.found` is false.
// 2. Preference among usable truechimers: lowest priority value, then lowest
//    stratum, then narrowest interval.
// 3. Hysteresis: the selected source stays while it is usable and a
//    truechimer; a better one replaces it only after being better in
//    `switch_polls` consecutive polls. An unusable or falseticking selected
//    source is replaced at once, and so is any selected source after
//    Reselect() (an operator changed the sources: the choice follows at
//    once rather than after the hysteresis).
// 4. The model itself as a voter: if the sources' common interval lies
//    entirely outside [-model_bound, +model_bound], the model is wrong
//    (`model_outvoted`), and the caller should re-acquire.
//
//   SourceSelector sel({});
//   SelectionResult r = sel.Select(candidates, model_bound_ns);
//   if (r.selected >= 0) ... candidates' id r.selected ...
#ifndef ZG_SERVO_SELECTION_H_
#define ZG_SERVO_SELECTION_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace zg::servo {

struct SelectionCandidate {
  int id = -1;
  int priority = 0;  // lower is preferred
  uint8_t stratum = 0;
  bool usable = false;  // up, and not suspected (see ClockDiscipline)
  bool votes = false;   // has a fresh interval to vote with
  double offset_ns = 0;
  double half_width_ns = 0;
};

struct Interval {
  double lo = 0;
  double hi = 0;
};

struct IntersectionResult {
  bool found = false;
  double lo = 0;
  double hi = 0;
  int agree = 0;  // intervals containing [lo, hi]
};

// Marzullo / RFC 5905 11.2.1 over `intervals` (n >= 1).
IntersectionResult Intersect(absl::Span<const Interval> intervals);

struct SelectorConfig {
  int min_voters = 3;
  int switch_polls = 5;
};

absl::Status ValidateSelectorConfig(const SelectorConfig& config);

struct SelectionResult {
  int selected = -1;  // candidate id, -1 if none usable
  int previous = -1;
  bool switched = false;
  bool voted = false;  // the intersection was applied
  IntersectionResult intersection;
  std::vector<int> falsetickers;  // candidate ids
  bool model_outvoted = false;
};

class SourceSelector {
 public:
  explicit SourceSelector(const SelectorConfig& config) : config_(config) {}

  SelectionResult Select(absl::Span<const SelectionCandidate> candidates,
                         int64_t model_bound_ns);
  int selected() const { return selected_; }
  void Clear() {
    selected_ = -1;
    challenger_ = -1;
    challenger_polls_ = 0;
  }
  // The next Select picks the best eligible candidate without hysteresis.
  void Reselect() { reselect_ = true; }

 private:
  SelectorConfig config_;
  int selected_ = -1;
  int challenger_ = -1;
  int challenger_polls_ = 0;
  bool reselect_ = false;
  std::vector<Interval> intervals_;
  std::vector<int> voter_ids_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_SELECTION_H_
