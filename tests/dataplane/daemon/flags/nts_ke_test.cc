// SPDX-License-Identifier: Apache-2.0
// The NTS-KE flags (dataplane/daemon/flags/nts.h): address forms, the
// default port, the per-source rate limit and the timeouts' defaults, and
// the errors that name the flag.
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "dataplane/daemon/flags/nts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, nts_ke_ratelimit);

namespace zg::dataplane {
namespace nts_ke_test {
namespace {

using ::testing::HasSubstr;

TEST(NtsKeFlagsTest, AddressForms) {
  auto a = ParseNtsKeAddress("192.0.2.1");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->ip, "192.0.2.1");
  EXPECT_EQ(a->port, 4460);
  a = ParseNtsKeAddress("192.0.2.1:4461");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port, 4461);
  a = ParseNtsKeAddress("[2001:db8::1]:123");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->ip, "2001:db8::1");
  EXPECT_EQ(a->port, 123);
  EXPECT_EQ(a->ToString(), "[2001:db8::1]:123");
  a = ParseNtsKeAddress("[::]");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->port, 4460);
  a = ParseNtsKeAddress("2001:db8::2");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->ip, "2001:db8::2");
  EXPECT_EQ(a->port, 4460);
}

TEST(NtsKeFlagsTest, BadAddresses) {
  for (const char* v :
       {"", "ke.example:4460", "192.0.2.1:70000", "192.0.2.1:x", "[2001:db8::1",
        "[192.0.2.1]:1", "[::1]x", "300.1.1.1"}) {
    auto a = ParseNtsKeAddress(v);
    ASSERT_FALSE(a.ok()) << v;
    EXPECT_THAT(a.status().message(), HasSubstr("--nts_ke_address")) << v;
  }
}

TEST(NtsKeFlagsTest, AddressesNeedCertAndKey) {
  // Repeated and comma lists; --nts_cert unset: an error naming it.
  auto c = ParseNtsKeFlags(
      {"--nts_ke_address=127.0.0.1,[::1]:4461", "--nts_ke_address=10.0.0.1"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--nts_cert"));
  c = ParseNtsKeFlags({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->enabled());
  EXPECT_EQ(c->max_connections, 256u);
}

TEST(NtsKeFlagsTest, RateLimitIsChronysNtsRateLimitByDefault) {
  auto c = ParseNtsKeFlags({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->rate_limit);
  EXPECT_EQ(c->rate, (core::NtpRateLimitConfig{6, 8, 2}));
  EXPECT_EQ(c->handshake_timeout, absl::Seconds(2));
  EXPECT_EQ(c->request_timeout, absl::Seconds(2));
  absl::SetFlag(&FLAGS_nts_ke_ratelimit, "burst=2");
  c = ParseNtsKeFlags({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rate, (core::NtpRateLimitConfig{6, 2, 2}));  // interval 6 kept
  absl::SetFlag(&FLAGS_nts_ke_ratelimit, "off");
  c = ParseNtsKeFlags({});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->rate_limit);
  absl::SetFlag(&FLAGS_nts_ke_ratelimit, "burst=0");
  c = ParseNtsKeFlags({});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("--nts_ke_ratelimit"));
  absl::SetFlag(&FLAGS_nts_ke_ratelimit, "on");
}

}  // namespace
}  // namespace nts_ke_test
}  // namespace zg::dataplane
