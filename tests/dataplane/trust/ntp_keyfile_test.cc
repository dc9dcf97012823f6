// SPDX-License-Identifier: Apache-2.0
// Tests of the keyfile loader (dataplane/trust/ntp_keyfile.h): permissions,
// errors naming the file and line, and --ntp_keys in DaemonConfig.
#include "dataplane/trust/ntp_keyfile.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace ntp_keyfile_test {
namespace {

using ::testing::HasSubstr;

class NtpKeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testutil::TempDir::Create("ntp-keys");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
  }
  std::string Write(const std::string& text, mode_t mode) {
    const std::string path = dir_->path() + "/ntp.keys";
    std::ofstream(path) << text;
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }
  std::unique_ptr<testutil::TempDir> dir_;
};

TEST_F(NtpKeyFileTest, OwnerOnlyFileLoads) {
  for (mode_t mode : {0600, 0400}) {
    const std::string path = Write(
        "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n2 SHA1 abc\n", mode);
    absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> t =
        LoadNtpKeyFile(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ((*t)->size(), 2u);
    EXPECT_NE((*t)->Find(2), nullptr);
  }
}

TEST_F(NtpKeyFileTest, GroupOrOtherBitsAreAnError) {
  for (mode_t mode : {0640, 0604, 0644, 0660, 0602, 0610}) {
    const std::string path = Write("1 MD5 abc\n", mode);
    absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> t =
        LoadNtpKeyFile(path);
    ASSERT_FALSE(t.ok()) << std::oct << mode;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr("readable by its owner only (chmod 600 " + path));
  }
}

TEST_F(NtpKeyFileTest, ParseErrorsNameFileAndLine) {
  const std::string path = Write("# keys\n1 MD5 abc\n2 BLAKE3 abc\n", 0600);
  absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> t =
      LoadNtpKeyFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("--ntp_keys: " + path + ": line 3: unknown key type"));
}

TEST_F(NtpKeyFileTest, MissingFileAndDirectory) {
  absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> t =
      LoadNtpKeyFile(dir_->path() + "/none");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("cannot open"));
  t = LoadNtpKeyFile(dir_->path());
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("not a regular file"));
}

}  // namespace
}  // namespace ntp_keyfile_test
}  // namespace zg::dataplane
