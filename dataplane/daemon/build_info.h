// SPDX-License-Identifier: Apache-2.0
// What --version prints for zeitgeber's programs: the version, the commit it
// was built from (`git describe`, made at build time), the compiler, the
// build type and the DPDK it runs with.
//
//   std::cout << VersionText("zeitgeberd");
//   // zeitgeberd 0.1.0
//   // git: v0.1.0-12-g3e4f5a6
//   // compiler: gcc 12.2.0, release build
//   // DPDK: DPDK 22.11.5
//   // abseil: 20220623
#ifndef ZG_DATAPLANE_DAEMON_BUILD_INFO_H_
#define ZG_DATAPLANE_DAEMON_BUILD_INFO_H_

#include <string>

#include "absl/strings/string_view.h"

namespace zg::dataplane {

// `git describe --always --dirty` of the source tree when it was built, or
// the project version where the tree was not a git checkout.
const char* GitDescribe();

// The lines above, each ending in '\n'.
std::string VersionText(absl::string_view program);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_BUILD_INFO_H_
