// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/build_info.h"

#include <rte_version.h>

#include "absl/base/config.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {
namespace {

constexpr const char* kCompiler =
#if defined(__clang__)
    "clang " __clang_version__;
#elif defined(__GNUC__)
    "gcc " __VERSION__;
#else
    "unknown compiler";
#endif

}  // namespace

std::string VersionText(absl::string_view program) {
  return absl::StrCat(program, " ", ZG_VERSION, "\n",                //
                      "git: ", GitDescribe(), "\n",                  //
                      "compiler: ", kCompiler, ", ", ZG_BUILD_TYPE,  //
                      " build\n",                                    //
                      "DPDK: ", rte_version(), "\n",                 //
                      "abseil: ", ABSL_LTS_RELEASE_VERSION, "\n");
}

}  // namespace zg::dataplane
