// SPDX-License-Identifier: Apache-2.0
// The --status_users file: hashes made by the real tools (htpasswd -B from
// apache2-utils, the argon2 CLI) verify; other schemes are refused at load.
#include "dataplane/web/web_users.h"

#include <sys/stat.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace web_users_test {
namespace {

using ::testing::HasSubstr;

// htpasswd -nbB -C 5 ops 'correct horse'
constexpr char kBcrypt[] =
    "ops:$2y$05$MNLGfhqf87huJsBVN2JNk.4amtl8vaCEAZbUNrjrYYnPf09LkHqrS";
// echo -n 'correct horse' | argon2 saltsalt16bytes -id -t 2 -m 12 -p 1 -e
constexpr char kArgon2[] =
    "audit:$argon2id$v=19$m=4096,t=2,p=1$c2FsdHNhbHQxNmJ5dGVz$"
    "hEI3Ia3KsJ34JKA6FCLyL1QqW2l0eXO7b/0JXOK3364";

TEST(WebUsers, BcryptAndArgon2FromTheRealToolsVerify) {
  absl::StatusOr<WebUsers> users = WebUsers::Parse(
      absl::StrCat("# operators\n", kBcrypt, "\n\n", kArgon2, "\n"), "test");
  ASSERT_TRUE(users.ok()) << users.status();
  EXPECT_EQ(users->size(), 2u);
  EXPECT_TRUE(users->Verify("ops", "correct horse"));
  EXPECT_TRUE(users->Verify("audit", "correct horse"));
  EXPECT_FALSE(users->Verify("ops", "correct horse "));
  EXPECT_FALSE(users->Verify("ops", ""));
  EXPECT_FALSE(users->Verify("audit", "Correct horse"));
  EXPECT_FALSE(users->Verify("nobody", "correct horse"));
}

TEST(WebUsers, OtherSchemesAreRefusedWithTheirLine) {
  // htpasswd -nbm / -nbs / -nbp
  const struct {
    const char* line;
    const char* says;
  } cases[] = {
      {"md5user:$apr1$XShKsuP7$hrE8HdrrGHADFechA0WX00", "MD5-crypt"},
      {"shauser:{SHA}GpHWL3ymc5liWkNopqtdSjuqYHM=", "SHA-1"},
      {"plain:secret", "plain text"},
      {"sha512:$6$salt$abc", "SHA-512-crypt"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<WebUsers> users =
        WebUsers::Parse(absl::StrCat(kBcrypt, "\n", c.line, "\n"), "f");
    ASSERT_FALSE(users.ok()) << c.line;
    EXPECT_THAT(users.status().message(), HasSubstr("f line 2"));
    EXPECT_THAT(users.status().message(), HasSubstr(c.says));
    EXPECT_THAT(users.status().message(), HasSubstr("htpasswd -B"));
  }
}

TEST(WebUsers, MalformedFilesAreRefused) {
  EXPECT_THAT(WebUsers::Parse("", "f").status().message(),
              HasSubstr("no users"));
  EXPECT_THAT(WebUsers::Parse("nocolon\n", "f").status().message(),
              HasSubstr("USER:HASH"));
  EXPECT_THAT(WebUsers::Parse(absl::StrCat(kBcrypt, "\n", kBcrypt), "f")
                  .status()
                  .message(),
              HasSubstr("twice"));
  // An argon2 hash asking for more memory than the server allows.
  EXPECT_THAT(WebUsers::Parse("big:$argon2id$v=19$m=4194304,t=1,p=1$"
                              "c2FsdHNhbHQxNmJ5dGVz$AAAA",
                              "f")
                  .status()
                  .message(),
              HasSubstr("KiB"));
}

// Logins are checked one at a time: a hash that would take minutes is
// refused at load, naming the parameter and the limit; those at the limit
// load.
TEST(WebUsers, HashesCostlierThanTheLimitsAreRefused) {
  const std::string salt_hash = "$c2FsdHNhbHQxNmJ5dGVz$AAAA";
  auto refusal = [](const std::string& line) {
    const absl::StatusOr<WebUsers> u = WebUsers::Parse(line, "f");
    return u.ok() ? std::string("accepted") : std::string(u.status().message());
  };
  const std::string bcrypt = std::string(kBcrypt).substr(4);  // "$2y$05$..."
  EXPECT_THAT(refusal("a:" + bcrypt.substr(0, 4) + "15" + bcrypt.substr(6)),
              HasSubstr("bcrypt cost 15 is over the 14"));
  EXPECT_EQ(refusal("a:" + bcrypt.substr(0, 4) + "14" + bcrypt.substr(6)),
            "accepted");
  EXPECT_THAT(refusal("a:" + bcrypt.substr(0, 4) + "x5" + bcrypt.substr(6)),
              HasSubstr("without its cost"));
  EXPECT_THAT(refusal("a:$argon2id$v=19$m=4096,t=11,p=1" + salt_hash),
              HasSubstr("passes t=11"));
  EXPECT_THAT(refusal("a:$argon2id$v=19$m=4096,t=0,p=1" + salt_hash),
              HasSubstr("passes t=0"));
  EXPECT_THAT(refusal("a:$argon2i$v=19$m=4096,t=1,p=17" + salt_hash),
              HasSubstr("lanes p=17"));
  EXPECT_THAT(refusal("a:$argon2d$v=19$m=4096,t=1" + salt_hash),
              HasSubstr("without m=,t=,p="));
  EXPECT_THAT(refusal("a:$argon2id$v=19$m=4096,t=1,p=1,x=2" + salt_hash),
              HasSubstr("other than m, t, p"));
  EXPECT_EQ(refusal("a:$argon2id$v=19$m=65536,t=10,p=16" + salt_hash),
            "accepted");
  EXPECT_EQ(refusal("a:$argon2id$m=4096,t=2,p=1" + salt_hash), "accepted");
}

TEST(WebUsers, TheFileMustBeOwnerOnly) {
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("users");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("users");
  std::ofstream(path) << kBcrypt << "\n";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  EXPECT_THAT(WebUsers::Load(path).status().message(),
              HasSubstr("--status_users"));
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  absl::StatusOr<WebUsers> users = WebUsers::Load(path);
  ASSERT_TRUE(users.ok()) << users.status();
  EXPECT_TRUE(users->Verify("ops", "correct horse"));
}

}  // namespace
}  // namespace web_users_test
}  // namespace zg::dataplane
