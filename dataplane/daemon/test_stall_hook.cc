// SPDX-License-Identifier: Apache-2.0
// TEST ONLY: the worker-stall hook (test_stall_hook.h).
#include "dataplane/daemon/test_stall_hook.h"

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

TestStallHook::TestStallHook(std::string path, size_t workers)
    : path_(std::move(path)),
      workers_(workers),
      flags_(std::make_unique<std::atomic<bool>[]>(workers)) {
  for (size_t i = 0; i < workers_; ++i) flags_[i].store(false);
  LogWarning(absl::StrCat("--test_stall_file=", path_,
                          ": TEST ONLY: a worker index written there stalls "
                          "that worker"));
}

void TestStallHook::Poll() {
  std::optional<size_t> want;
  std::string content;
  if (std::ifstream in(path_); in) {
    std::stringstream text;
    text << in.rdbuf();
    content = std::string(absl::StripAsciiWhitespace(text.str()));
  }
  size_t index = 0;
  if (absl::SimpleAtoi(content, &index) && index < workers_) {
    want = index;
  } else if (!content.empty() && content != rejected_) {
    LogWarning(absl::StrCat("--test_stall_file: '", content,
                            "' is not a worker index below ", workers_));
  }
  rejected_ = want.has_value() ? "" : content;
  if (want == held_) return;
  if (held_.has_value()) {
    flags_[*held_].store(false, std::memory_order_relaxed);
    LogWarning(absl::StrCat("TEST HOOK: worker ", *held_, " released"));
  }
  if (want.has_value()) {
    flags_[*want].store(true, std::memory_order_relaxed);
    LogWarning(absl::StrCat("TEST HOOK: worker ", *want, " stalled"));
  }
  held_ = want;
}

}  // namespace zg::dataplane
