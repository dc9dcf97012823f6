// SPDX-License-Identifier: Apache-2.0
#include "tests/util/test_file_filter.h"

#include <fnmatch.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace zg::testutil {
namespace {

constexpr std::string_view kTestFileFlag = "--test_file=";

// Written once by SelectTestFile, before any test runs; read by tests.
std::string& SelectedPath() {
  static std::string* path = new std::string;
  return *path;
}

bool MatchesAny(std::string_view patterns, const std::string& name) {
  for (absl::string_view p : absl::StrSplit(std::string(patterns), ':')) {
    if (fnmatch(std::string(p).c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

// Takes --test_file=PATH out of argv; empty when absent.
std::string TakeTestFileFlag(int* argc, char** argv) {
  std::string path;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::string_view(argv[i]).starts_with(kTestFileFlag)) {
      path = argv[i] + kTestFileFlag.size();
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
  return path;
}

bool DefinedIn(const ::testing::TestInfo& info, std::string_view path) {
  const std::string_view file = info.file();
  return file == path ||
         (file.ends_with(path) && file[file.size() - path.size() - 1] == '/');
}

}  // namespace

bool PassesGtestFilter(std::string_view filter, std::string_view name) {
  const std::string n(name);
  const size_t dash = filter.find('-');
  const std::string_view positive = filter.substr(0, dash);
  const bool in = positive.empty() || MatchesAny(positive, n);
  if (dash == std::string_view::npos) return in;
  return in && !MatchesAny(filter.substr(dash + 1), n);
}

std::string_view SelectedTestFile() { return SelectedPath(); }

bool SelectTestFile(int* argc, char** argv) {
  const std::string path = TakeTestFileFlag(argc, argv);
  SelectedPath() = path;
  if (path.empty()) return true;
  const std::string given = GTEST_FLAG_GET(filter);
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  std::vector<std::string> names;
  bool defined = false;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(t);
      if (!DefinedIn(info, path)) continue;
      defined = true;
      std::string name =
          std::string(info.test_suite_name()) + "." + info.name();
      if (PassesGtestFilter(given, name)) names.push_back(std::move(name));
    }
  }
  if (!defined) {
    std::fprintf(stderr,
                 "--test_file=%s: no test of this binary is defined in it\n",
                 path.c_str());
    return false;
  }
  // "-*" runs nothing: the file's tests all fall outside --gtest_filter.
  GTEST_FLAG_SET(filter,
                 names.empty() ? std::string("-*") : absl::StrJoin(names, ":"));
  return true;
}

}  // namespace zg::testutil
