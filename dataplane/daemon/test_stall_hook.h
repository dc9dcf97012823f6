// SPDX-License-Identifier: Apache-2.0
// TEST ONLY: a way for a test, from outside a running zeitgeberd, to stall
// one of its workers, so that what a real stall sets off can be tested end
// to end (the systemd watchdog withheld, and whatever else watches worker
// progress). Never configure it in production.
//
// With --test_stall_file=PATH the control thread reads PATH on every tick.
// While it holds a worker index ("0\n"), that worker stops passing its poll
// loop: it neither receives nor answers, and its heartbeat stops, exactly
// as a stuck worker's would. An empty or absent file releases it. The
// worker learns it through one atomic flag per worker, read once per loop
// pass only in the workers of a zeitgeberd started with the flag
// (Worker::SetTestStall); without the flag the poll loop has no extra load.
//
//   echo 0 >/tmp/stall    # worker 0 stalls within one control tick
//   rm /tmp/stall         # and resumes
//
//   TestStallHook hook("/tmp/stall", workers);
//   worker[i]->SetTestStall(hook.flag(i));
//   hook.Poll();  // control thread, each tick
#ifndef ZG_DATAPLANE_DAEMON_TEST_STALL_HOOK_H_
#define ZG_DATAPLANE_DAEMON_TEST_STALL_HOOK_H_

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace zg::dataplane {

class TestStallHook {
 public:
  TestStallHook(std::string path, size_t workers);

  // Worker i's flag. Written by: the control thread (Poll). Read by: worker
  // i, once per loop pass.
  const std::atomic<bool>* flag(size_t i) const { return &flags_[i]; }
  // Control thread: re-reads the file and sets the flag of the worker it
  // names (clearing the others); logs each change as a warning.
  void Poll();

 private:
  std::string path_;
  size_t workers_;
  std::unique_ptr<std::atomic<bool>[]> flags_;
  std::optional<size_t> held_;  // the worker stalled now
  std::string rejected_;        // content already warned about
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_TEST_STALL_HOOK_H_
