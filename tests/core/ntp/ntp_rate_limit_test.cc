// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_rate_limit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ntp_rate_limit_test {
namespace {

using ::testing::HasSubstr;

TEST(NtpRateLimitTest, DefaultsAreChronys) {
  const absl::StatusOr<NtpRateLimitConfig> c = ParseNtpRateLimit("");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->interval_log2, 3);
  EXPECT_EQ(c->burst, 8);
  EXPECT_EQ(c->leak_log2, 2);
}

TEST(NtpRateLimitTest, OmittedKeysKeepDefaults) {
  absl::StatusOr<NtpRateLimitConfig> c = ParseNtpRateLimit("burst=16");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, (NtpRateLimitConfig{3, 16, 2}));
  c = ParseNtpRateLimit("leak=4,interval=-2");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, (NtpRateLimitConfig{-2, 8, 4}));
  c = ParseNtpRateLimit("interval=-19,burst=255,leak=1");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c, (NtpRateLimitConfig{-19, 255, 1}));
}

TEST(NtpRateLimitTest, FormatParsesBack) {
  const NtpRateLimitConfig c{-5, 3, 1};
  EXPECT_EQ(FormatNtpRateLimit(c), "interval=-5,burst=3,leak=1");
  EXPECT_EQ(*ParseNtpRateLimit(FormatNtpRateLimit(c)), c);
}

TEST(NtpRateLimitTest, ErrorsNameTheKeyAndRange) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"interval=13", "interval=13 is out of range [-19, 12]"},
      {"interval=-20", "out of range [-19, 12]"},
      {"burst=0", "burst=0 is out of range [1, 255]"},
      {"burst=256", "[1, 255]"},
      {"leak=0", "leak=0 is out of range [1, 4]"},
      {"leak=5", "[1, 4]"},
      {"interval", "is not KEY=VALUE"},
      {"interval=", "is not an integer"},
      {"interval=3s", "is not an integer"},
      {"interval=+3", "is not an integer"},
      {"burst=99999999999", "is not an integer"},
      {"kod=1", "unknown key 'kod'"},
      {"interval=1,interval=2", "'interval' given twice"},
      {"interval=1,", "'' is not KEY=VALUE"},
      {",", "is not KEY=VALUE"},
      {"Interval=1", "unknown key"},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<NtpRateLimitConfig> r = ParseNtpRateLimit(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr(c.says)) << c.text;
    EXPECT_THAT(r.status().message(), HasSubstr("--ntp_ratelimit")) << c.text;
  }
  EXPECT_FALSE(ParseNtpRateLimit(std::string(300, 'a')).ok());
}

TEST(NtpRateLimitTest, BucketMatchesChronysArithmetic) {
  // interval 3, burst 8: 2^(4+3) tokens per reply (one per 1/16 s), 8 of
  // them in the bucket, no shift.
  NtpTokenBucket b = NtpTokenBucket::For({3, 8, 2});
  EXPECT_EQ(b.tokens_per_hit, 128);
  EXPECT_EQ(b.max_tokens, 1024);
  EXPECT_EQ(b.token_shift, 0);
  // interval 12, burst 255: shifted until it fits 16 bits.
  b = NtpTokenBucket::For({12, 255, 2});
  EXPECT_EQ(b.token_shift, 8);
  EXPECT_EQ(b.tokens_per_hit, 256);
  EXPECT_EQ(b.max_tokens, 65280);
  // interval -4: one token per 1/16 s unit and per reply.
  b = NtpTokenBucket::For({-4, 8, 2});
  EXPECT_EQ(b.token_shift, 0);
  EXPECT_EQ(b.tokens_per_hit, 1);
  EXPECT_EQ(b.max_tokens, 8);
  // interval -6: coarse, each 1/16 s unit buys 4 tokens; burst >= 4.
  b = NtpTokenBucket::For({-6, 1, 2});
  EXPECT_EQ(b.token_shift, -2);
  EXPECT_EQ(b.tokens_per_hit, 1);
  EXPECT_EQ(b.max_tokens, 4);
  b = NtpTokenBucket::For({-19, 1, 2});
  EXPECT_EQ(b.token_shift, -15);
  EXPECT_EQ(b.max_tokens, 32768);
}

}  // namespace
}  // namespace ntp_rate_limit_test
}  // namespace zg::core
