// SPDX-License-Identifier: Apache-2.0
// Tests of the NTS master key loader (dataplane/trust/nts_master_key.h):
// permissions, hex text and raw bytes, sizes, errors naming the file.
#include "dataplane/trust/nts_master_key.h"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace nts_master_key_test {
namespace {

using ::testing::HasSubstr;

class NtsMasterKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto d = testutil::TempDir::Create("nts-master-key");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
  }
  std::string Write(const std::string& content, mode_t mode = 0600) {
    const std::string path = dir_->path() + "/nts.key";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }
  std::unique_ptr<testutil::TempDir> dir_;
};

std::vector<uint8_t> Bytes(std::initializer_list<int> v) {
  return std::vector<uint8_t>(v.begin(), v.end());
}

TEST_F(NtsMasterKeyTest, HexTextWithNewline) {
  std::string hex;
  for (int i = 0; i < 32; ++i) hex += i % 2 ? "aB" : "01";
  for (const char* tail : {"", "\n", " \r\n\t"}) {
    absl::StatusOr<NtsMasterKey> k = LoadNtsMasterKey(Write(hex + tail));
    ASSERT_TRUE(k.ok()) << k.status();
    ASSERT_EQ(k->bytes().size(), 32u);
    EXPECT_EQ(k->bytes()[0], 0x01);
    EXPECT_EQ(k->bytes()[1], 0xab);
  }
}

TEST_F(NtsMasterKeyTest, RawBytes) {
  std::string raw(40, '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 37);
  absl::StatusOr<NtsMasterKey> k = LoadNtsMasterKey(Write(raw, 0400));
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->bytes().size(), 40u);
  EXPECT_EQ(k->bytes()[3], static_cast<uint8_t>(3 * 37));
  // Hex digits followed by something else are raw bytes.
  const std::string mixed = std::string(64, 'a') + "x";
  k = LoadNtsMasterKey(Write(mixed));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->bytes().size(), 65u);
}

TEST_F(NtsMasterKeyTest, TooShortSaysHowToMakeOne) {
  for (const std::string& content :
       {std::string(62, 'f'), std::string(31, 'z'), std::string()}) {
    absl::StatusOr<NtsMasterKey> k = LoadNtsMasterKey(Write(content));
    ASSERT_FALSE(k.ok()) << content.size();
    EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(k.status().message(), HasSubstr("openssl rand -hex 32"));
    EXPECT_THAT(k.status().message(), HasSubstr(dir_->path()));
  }
}

TEST_F(NtsMasterKeyTest, GroupOrOtherBitsAreAnError) {
  for (mode_t mode : {0640, 0604, 0644, 0660, 0602, 0610}) {
    absl::StatusOr<NtsMasterKey> k =
        LoadNtsMasterKey(Write(std::string(64, 'a'), mode));
    ASSERT_FALSE(k.ok()) << std::oct << mode;
    EXPECT_EQ(k.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(k.status().message(), HasSubstr("chmod 600"));
  }
}

TEST_F(NtsMasterKeyTest, MissingDirectoryAndHugeFiles) {
  absl::StatusOr<NtsMasterKey> k =
      LoadNtsMasterKey(dir_->path() + "/absent.key");
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("absent.key"));
  EXPECT_FALSE(LoadNtsMasterKey(dir_->path()).ok());  // a directory
  k = LoadNtsMasterKey(Write(std::string(kMaxNtsMasterKeyFileBytes + 1, 'a')));
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("larger than"));
  k = LoadNtsMasterKey(Write(std::string(kMaxNtsMasterKeyFileBytes, 'a')));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->bytes().size(), kMaxNtsMasterKeyFileBytes / 2);
}

TEST_F(NtsMasterKeyTest, MoveKeepsTheBytes) {
  absl::StatusOr<NtsMasterKey> k =
      LoadNtsMasterKey(Write(std::string(64, '7')));
  ASSERT_TRUE(k.ok());
  NtsMasterKey a = std::move(*k);
  NtsMasterKey b(std::vector<uint8_t>(32, 1));
  b = std::move(a);
  ASSERT_EQ(b.bytes().size(), 32u);
  EXPECT_EQ(b.bytes()[5], 0x77);
  EXPECT_EQ(std::vector<uint8_t>(b.bytes().begin(), b.bytes().begin() + 2),
            Bytes({0x77, 0x77}));
}

}  // namespace
}  // namespace nts_master_key_test
}  // namespace zg::dataplane
