// SPDX-License-Identifier: Apache-2.0
// A private temporary directory for a test helper, removed (recursively) when
// the object goes out of scope, or when the test is killed by SIGTERM or
// SIGINT (tests/util/signal_cleanup.h). Created under $TEST_TMPDIR, else
// $TMPDIR, else /tmp.
//
//   ZG_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("tshark"));
//   std::string pcap = dir.File("frames.pcap");
#ifndef ZG_TESTS_UTIL_TEMP_DIR_H_
#define ZG_TESTS_UTIL_TEMP_DIR_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tests/util/signal_cleanup.h"

namespace zg::testutil {

class TempDir {
 public:
  // Creates <tmp>/zg-<prefix>-XXXXXX (mode 0700).
  static absl::StatusOr<TempDir> Create(absl::string_view prefix);

  TempDir(TempDir&& other) noexcept
      : path_(std::move(other.path_)), cleanup_(std::move(other.cleanup_)) {
    other.path_.clear();
  }
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  // path()/name
  std::string File(absl::string_view name) const;

 private:
  explicit TempDir(std::string path)
      : path_(std::move(path)),
        cleanup_(CleanupRegistration::Directory(path_)) {}
  void Remove();
  std::string path_;
  CleanupRegistration cleanup_;
};

// Reads a whole (text or binary) file; NotFound with the path if absent.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_TEMP_DIR_H_
