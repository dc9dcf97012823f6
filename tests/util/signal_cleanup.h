// SPDX-License-Identifier: Apache-2.0
// What a test binary must not leave behind when it is killed: on SIGTERM,
// SIGINT or SIGHUP (meson's timeout sends SIGTERM to the test's process
// group, waits 0.5 s, then SIGKILLs it; destructors never run), a handler
// tears down everything registered here, with async-signal-safe system
// calls only, in a few milliseconds, then _exit(128 + signal):
//
//   1. every registered process group gets SIGKILL (each
//      testutil::Subprocess registers its own: the child, and what it
//      started in its group, e.g. gpsd under gpsfake);
//   2. every process in a registered network namespace gets SIGKILL (found
//      as `ip netns pids` finds them: /proc/<pid>/ns/net), then the
//      namespace is unmounted and unlinked from /run/netns (`ip netns del`);
//   3. every registered link is deleted over rtnetlink (`ip link del`: its
//      addresses and an attached XDP program go with it);
//   4. every registered directory is removed with what is in it.
//
// NetnsRig, NetnsPair (tests/util/netns.h), Subprocess and TempDir register
// and unregister themselves; tests need not call this. The handler is
// installed by the first registration, for each of the three signals whose
// disposition is still the default. A registration is a slot in a fixed
// table (no allocation in the handler); when the table is full the resource
// is simply not covered.
//
//   CleanupRegistration ns = CleanupRegistration::Netns("zgt1234");
//   ...                          // create it; a SIGTERM now removes it
//   ns.Release();                // removed by the normal path
#ifndef ZG_TESTS_UTIL_SIGNAL_CLEANUP_H_
#define ZG_TESTS_UTIL_SIGNAL_CLEANUP_H_

#include <sys/types.h>

#include <string>

#include "absl/strings/string_view.h"

namespace zg::testutil {

class CleanupRegistration {
 public:
  // A process group (its leader's pid), killed with SIGKILL.
  static CleanupRegistration ProcessGroup(pid_t pgid);
  // A named network namespace (/run/netns/<name>): its processes killed,
  // the namespace removed.
  static CleanupRegistration Netns(absl::string_view name);
  // A link in the namespace the test process started in, deleted.
  static CleanupRegistration Link(absl::string_view ifname);
  // A directory, removed with its contents.
  static CleanupRegistration Directory(absl::string_view path);

  CleanupRegistration() = default;
  CleanupRegistration(CleanupRegistration&& o) noexcept : slot_(o.slot_) {
    o.slot_ = -1;
  }
  CleanupRegistration& operator=(CleanupRegistration&& o) noexcept;
  CleanupRegistration(const CleanupRegistration&) = delete;
  CleanupRegistration& operator=(const CleanupRegistration&) = delete;
  ~CleanupRegistration() { Release(); }

  // The resource is gone (or in someone else's hands): forget it.
  void Release();
  bool registered() const { return slot_ >= 0; }

 private:
  explicit CleanupRegistration(int slot) : slot_(slot) {}
  int slot_ = -1;
};

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_SIGNAL_CLEANUP_H_
