// SPDX-License-Identifier: Apache-2.0
#include "tests/util/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::testutil {

absl::StatusOr<TempDir> TempDir::Create(absl::string_view prefix) {
  const char* base = std::getenv("TEST_TMPDIR");
  if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
  if (base == nullptr || *base == '\0') base = "/tmp";
  std::string templ = absl::StrCat(base, "/zg-", prefix, "-XXXXXX");
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("mkdtemp(", templ, "): ", std::strerror(errno)));
  }
  return TempDir(std::string(buf.data()));
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::move(other.path_);
    cleanup_ = std::move(other.cleanup_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() { Remove(); }

void TempDir::Remove() {
  if (path_.empty()) return;
  std::error_code ec;  // best effort: a failed removal leaves a dir in /tmp
  std::filesystem::remove_all(path_, ec);
  cleanup_.Release();
  path_.clear();
}

std::string TempDir::File(absl::string_view name) const {
  return absl::StrCat(path_, "/", name);
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string out((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat("reading ", path));
  return out;
}

}  // namespace zg::testutil
