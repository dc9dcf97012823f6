// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's NTS credentials from --nts_master_key (the test harness that
// stands in for NTS-KE): the key file read raw or as hex as zeitgeberd
// reads it, and cookies that a server holding the same master key opens to
// exactly the generator's keys (and one with another key does not).
#include "bench/loadgen/nts_credentials.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <span>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/time/clock.h"
#include "core/nts/nts_cookie.h"
#include "gtest/gtest.h"

namespace zg::bench {
namespace nts_credentials_test {
namespace {

std::string TempFile(const std::string& name, const std::string& bytes) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") +
                           "/zg_nts_cred_" + std::to_string(getpid()) + "_" +
                           name;
  std::ofstream(path, std::ios::binary) << bytes;
  chmod(path.c_str(), 0600);
  return path;
}

const std::string kRaw = std::string(
    "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"
    "\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20",
    32);

TEST(NtsCredentialsTest, MasterKeyRawOrHex) {
  const std::string raw = TempFile("raw", kRaw);
  const std::string hex = TempFile("hex", absl::BytesToHexString(kRaw) + "\n");
  EXPECT_EQ(ReadNtsMasterKey(raw).value(), kRaw);
  EXPECT_EQ(ReadNtsMasterKey(hex).value(), kRaw);
  EXPECT_FALSE(ReadNtsMasterKey(TempFile("short", "0123456789")).ok());
  EXPECT_FALSE(ReadNtsMasterKey("/nonexistent/zg.key").ok());
  for (const std::string& p : {raw, hex}) unlink(p.c_str());
}

TEST(NtsCredentialsTest, MintedCookiesOpenOnAServerWithTheSameKey) {
  NtsCredentialOptions o;
  o.master_key_file = TempFile("mk", kRaw);
  o.associations = 5;
  o.verify_every = 3;
  std::string source;
  auto setup = MakeNtsClientSetup(o, &source);
  ASSERT_TRUE(setup.ok()) << setup.status();
  EXPECT_EQ(source, "master_key");
  EXPECT_EQ((*setup)->verify_every, 3u);
  ASSERT_EQ((*setup)->credentials.size(), 5u);
  const int64_t now = absl::ToUnixSeconds(absl::Now());
  auto same = core::NtsCookieKeystore::Derive(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kRaw.data()),
                               kRaw.size()),
      {}, now);
  std::string other_key = kRaw;
  other_key[0] ^= 1;
  auto other = core::NtsCookieKeystore::Derive(
      std::span<const uint8_t>(
          reinterpret_cast<const uint8_t*>(other_key.data()), 32),
      {}, now);
  ASSERT_TRUE(same.ok() && other.ok());
  for (const NtsCredential& c : (*setup)->credentials) {
    ASSERT_EQ(c.cookie.size(), core::kNtsCookieSize);
    core::NtsKeys keys;
    EXPECT_EQ(same->Open(c.cookie.data(), c.cookie.size(), &keys),
              core::NtsCookieError::kOk);
    EXPECT_EQ(keys.c2s, c.keys.c2s);
    EXPECT_EQ(keys.s2c, c.keys.s2c);
    EXPECT_NE(other->Open(c.cookie.data(), c.cookie.size(), &keys),
              core::NtsCookieError::kOk);
  }
  EXPECT_NE((*setup)->credentials[0].keys.c2s,
            (*setup)->credentials[1].keys.c2s);
  unlink(o.master_key_file.c_str());
}

TEST(NtsCredentialsTest, ExactlyOneSource) {
  NtsCredentialOptions o;
  std::string source;
  EXPECT_FALSE(MakeNtsClientSetup(o, &source).ok());
  o.master_key_file = "/x";
  o.ke = "127.0.0.1:4460";
  EXPECT_FALSE(MakeNtsClientSetup(o, &source).ok());
}

}  // namespace
}  // namespace nts_credentials_test
}  // namespace zg::bench
