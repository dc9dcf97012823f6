// SPDX-License-Identifier: Apache-2.0
// Time budgets for tests that wait on real peers: every wait, retry and poll
// loop ends at a deadline in wall time (never after a count of tries that a
// loaded machine stretches), and no deadline runs past the test binary's own
// budget, so a test that runs out of time fails with its own message before
// the harness kills it.
//
// The budget: ZG_TEST_TIMEOUT_S (meson passes each e2e test its timeout),
// counted from the start of the process, less a margin for teardown and
// reporting (a tenth, at least 3 s). Without it, no budget.
//
//   const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(30));
//   while (!Done()) {
//     if (absl::Now() >= deadline) return absl::DeadlineExceededError(...);
//     absl::SleepFor(absl::Milliseconds(50));
//   }
//   // What is left for one more bounded step (a command's own timeout):
//   RunCommand(argv, testutil::TimeLeft(deadline, absl::Seconds(20)));
#ifndef ZG_TESTS_UTIL_DEADLINE_H_
#define ZG_TESTS_UTIL_DEADLINE_H_

#include <algorithm>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace zg::testutil {

// When this test binary's budget ends (InfiniteFuture without one).
absl::Time TestDeadline();

// Now() + d, or the end of the budget if that comes first.
absl::Time DeadlineIn(absl::Duration d);

// The time from now to `deadline`, at most `cap` and at least `floor` (so
// that a last step still gets a chance to report what it found).
absl::Duration TimeLeft(absl::Time deadline, absl::Duration cap,
                        absl::Duration floor = absl::Seconds(1));

// Polls `done` every `interval` until it returns true (then true) or
// `deadline` passes (then false).
template <typename Fn>
bool PollUntil(absl::Time deadline, Fn done,
               absl::Duration interval = absl::Milliseconds(50)) {
  while (!done()) {
    const absl::Time now = absl::Now();
    if (now >= deadline) return false;
    absl::SleepFor(std::min(interval, deadline - now));
  }
  return true;
}

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_DEADLINE_H_
