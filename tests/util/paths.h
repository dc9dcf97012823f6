// SPDX-License-Identifier: Apache-2.0
// Where tests find the source tree: fixtures in tests/data/ and scripts such
// as scripts/netns.sh. The build bakes in the source root; the environment
// variable ZG_SOURCE_ROOT overrides it (e.g. tests run from an installed or
// copied tree).
//
//   ZG_ASSIGN_OR_RETURN(PcapFile f,
//   ReadPcapFile(TestDataPath("ntp_ntpdig_v4.pcap")));
#ifndef ZG_TESTS_UTIL_PATHS_H_
#define ZG_TESTS_UTIL_PATHS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace zg::testutil {

// The zeitgeber source root (no trailing slash).
std::string SourceRoot();

// SourceRoot()/tests/data/<name>.
std::string TestDataPath(absl::string_view name);

// SourceRoot()/scripts/<name>.
std::string ScriptPath(absl::string_view name);

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_PATHS_H_
