// SPDX-License-Identifier: Apache-2.0
#include "tests/util/deadline.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"

namespace zg::testutil {
namespace {

// Static initialisation: as close to the start of the process as we get.
const absl::Time kProcessStart = absl::Now();

absl::Time ComputeDeadline() {
  const char* v = std::getenv("ZG_TEST_TIMEOUT_S");
  double s = 0;
  if (v == nullptr || !absl::SimpleAtod(v, &s) || s <= 0) {
    return absl::InfiniteFuture();
  }
  const double margin = std::max(3.0, s / 10);
  return kProcessStart + absl::Seconds(std::max(1.0, s - margin));
}

}  // namespace

absl::Time TestDeadline() {
  static const absl::Time deadline = ComputeDeadline();
  return deadline;
}

absl::Time DeadlineIn(absl::Duration d) {
  return std::min(absl::Now() + d, TestDeadline());
}

absl::Duration TimeLeft(absl::Time deadline, absl::Duration cap,
                        absl::Duration floor) {
  return std::clamp(deadline - absl::Now(), floor, std::max(floor, cap));
}

}  // namespace zg::testutil
