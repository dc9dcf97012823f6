// SPDX-License-Identifier: Apache-2.0
#include "tests/util/paths.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

#ifndef ZG_SOURCE_ROOT
#error "ZG_SOURCE_ROOT must be defined by the build (tests/util/meson.build)"
#endif

namespace zg::testutil {

std::string SourceRoot() {
  const char* env = std::getenv("ZG_SOURCE_ROOT");
  if (env != nullptr && *env != '\0') return env;
  return ZG_SOURCE_ROOT;
}

std::string TestDataPath(absl::string_view name) {
  return absl::StrCat(SourceRoot(), "/tests/data/", name);
}

std::string ScriptPath(absl::string_view name) {
  return absl::StrCat(SourceRoot(), "/scripts/", name);
}

}  // namespace zg::testutil
