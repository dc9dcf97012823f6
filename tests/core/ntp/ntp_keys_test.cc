// SPDX-License-Identifier: Apache-2.0
// Tests of the chrony-format keyfile parser (core/ntp/ntp_keys.h).
#include "core/ntp/ntp_keys.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ntp_keys_test {
namespace {

using ::testing::HasSubstr;

TEST(NtpKeysTest, ParsesEveryTypeAndEncoding) {
  absl::StatusOr<NtpKeyTable> t = ParseNtpKeys(
      "# chrony keyfile\n"
      "\n"
      "  ! another comment\n"
      "; and another\n"
      "% and the last kind\n"
      "10 AES128 HEX:2B7E151628AED2A6ABF7158809CF4F3C\n"
      "2\tSHA1\tASCII:correct-horse  \r\n"
      "3 MD5 battery-staple\n"
      "1 staple-battery\n"
      "4294967295 AES256 "
      "HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 5u);
  // Sorted by id.
  EXPECT_EQ(t->keys()[0].id, 1u);
  EXPECT_EQ(t->keys()[4].id, 4294967295u);
  const NtpKey* k = t->Find(10);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->type, NtpKeyType::kAes128);
  EXPECT_EQ(k->secret, std::string("\x2b\x7e\x15\x16\x28\xae\xd2\xa6\xab\xf7"
                                   "\x15\x88\x09\xcf\x4f\x3c",
                                   16));
  ASSERT_NE(t->Find(2), nullptr);
  EXPECT_EQ(t->Find(2)->type, NtpKeyType::kSha1);
  EXPECT_EQ(t->Find(2)->secret, "correct-horse");
  EXPECT_EQ(t->Find(3)->type, NtpKeyType::kMd5);
  EXPECT_EQ(t->Find(3)->secret, "battery-staple");
  // Two words: MD5, as chrony's CPS_ParseKey.
  EXPECT_EQ(t->Find(1)->type, NtpKeyType::kMd5);
  EXPECT_EQ(t->Find(1)->secret, "staple-battery");
  EXPECT_EQ(t->Find(4294967295u)->type, NtpKeyType::kAes256);
  EXPECT_EQ(t->Find(4294967295u)->secret.size(), 32u);
  EXPECT_EQ(t->Find(5), nullptr);
}

TEST(NtpKeysTest, EmptyTextIsAnEmptyTable) {
  absl::StatusOr<NtpKeyTable> t = ParseNtpKeys("# nothing\n\n");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->empty());
}

TEST(NtpKeysTest, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"1 MD5 a\n2 SHA256 HEX:00112233",
       "line 2: key type SHA256 is valid "
       "for chrony but not supported"},
      {"1 RC4 abc", "line 1: unknown key type 'RC4'"},
      {"1", "line 1: expected 'ID TYPE KEY' or 'ID KEY', got 1 words"},
      {"1 MD5 a b", "got 4 words"},
      {"x MD5 abc", "key id 'x' is not a number"},
      {"-1 MD5 abc", "key id '-1' is not a number"},
      {"4294967296 MD5 abc", "is not a number"},
      {"0 MD5 abc", "key id 0 is reserved"},
      {"1 MD5 HEX:abc", "odd number of hex digits"},
      {"1 MD5 HEX:zz", "non-hex character"},
      {"1 MD5 HEX:", "key 1 is empty"},
      {"1 MD5 ASCII:", "key 1 is empty"},
      {"1 AES128 HEX:00112233445566778899aabbccddee",
       "key 1 of type AES128 has 120 bits, expected 128"},
      {"1 AES256 HEX:2B7E151628AED2A6ABF7158809CF4F3C",
       "has 128 bits, expected 256"},
      {"# c\n7 MD5 a\n\n7 SHA1 b\n",
       "line 4: duplicate key id 7 (first on line 2)"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<NtpKeyTable> t = ParseNtpKeys(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(c.message))
        << c.text;
  }
}

TEST(NtpKeysTest, ErrorsNeverQuoteTheKey) {
  absl::StatusOr<NtpKeyTable> t =
      ParseNtpKeys("1 AES128 HEX:SECRETSECRETSECRETSECRETSECRETSE");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              ::testing::Not(HasSubstr("SECRET")));
}

TEST(NtpKeysTest, TypeNamesAndSizes) {
  EXPECT_STREQ(NtpKeyTypeName(NtpKeyType::kAes128), "AES128");
  EXPECT_STREQ(NtpKeyTypeName(NtpKeyType::kAes256), "AES256");
  EXPECT_STREQ(NtpKeyTypeName(NtpKeyType::kSha1), "SHA1");
  EXPECT_STREQ(NtpKeyTypeName(NtpKeyType::kMd5), "MD5");
  EXPECT_EQ(NtpKeyMacSize(NtpKeyType::kAes128), 20u);  // RFC 8573
  EXPECT_EQ(NtpKeyMacSize(NtpKeyType::kAes256), 20u);
  EXPECT_EQ(NtpKeyMacSize(NtpKeyType::kMd5), 20u);
  EXPECT_EQ(NtpKeyMacSize(NtpKeyType::kSha1), 24u);
}

}  // namespace
}  // namespace ntp_keys_test
}  // namespace zg::core
