// SPDX-License-Identifier: Apache-2.0
// WebGuard: the per-address connection cap and the wrong-password throttle.
#include "dataplane/web/web_guard.h"

#include "gtest/gtest.h"

namespace zg::dataplane {
namespace web_guard_test {
namespace {

constexpr int64_t kS = 1'000'000'000;

TEST(WebGuard, CountsConnectionsPerAddress) {
  WebGuard g({.max_connections_per_client = 2});
  EXPECT_EQ(g.Connected("a"), 1);
  EXPECT_EQ(g.Connected("a"), 2);
  EXPECT_EQ(g.Connected("b"), 1);
  const int third = g.Connected("a");
  EXPECT_TRUE(g.OverConnectionLimit(third));
  g.Disconnected("a");
  g.Disconnected("a");
  EXPECT_FALSE(g.OverConnectionLimit(g.Connected("a")));
  g.Disconnected("never");  // harmless
}

TEST(WebGuard, LocksOutAfterRepeatedFailuresAndDoubles) {
  WebGuard g({.max_failures = 3,
              .failure_window_ns = 60 * kS,
              .lockout_ns = 10 * kS,
              .max_lockout_ns = 25 * kS});
  int64_t t = 1000 * kS;
  EXPECT_EQ(g.Failed("a", t).locked_s, 0);
  EXPECT_EQ(g.Failed("a", t + kS).failures, 2);
  EXPECT_EQ(g.LockedFor("a", t + kS), 0);
  EXPECT_EQ(g.Failed("a", t + 2 * kS).locked_s, 10);
  EXPECT_EQ(g.LockedFor("a", t + 3 * kS), 9);
  EXPECT_EQ(g.LockedFor("b", t + 3 * kS), 0);  // others are not affected
  t += 20 * kS;
  EXPECT_EQ(g.LockedFor("a", t), 0);
  g.Failed("a", t);
  g.Failed("a", t);
  EXPECT_EQ(g.Failed("a", t).locked_s, 20);  // doubled
  t += 30 * kS;
  g.Failed("a", t);
  g.Failed("a", t);
  EXPECT_EQ(g.Failed("a", t).locked_s, 25);  // capped
  g.Succeeded("a");
  EXPECT_EQ(g.LockedFor("a", t), 0);
}

TEST(WebGuard, FailuresOutsideTheWindowStartOver) {
  WebGuard g({.max_failures = 2, .failure_window_ns = 10 * kS});
  g.Failed("a", 0);
  EXPECT_EQ(g.Failed("a", 11 * kS).locked_s, 0);
  EXPECT_GT(g.Failed("a", 12 * kS).locked_s, 0);
}

TEST(WebGuard, RemembersABoundedNumberOfAddresses) {
  WebGuard g({.max_clients = 16});
  for (int i = 0; i < 1000; ++i) g.Failed("10.0.0." + std::to_string(i), i);
  EXPECT_EQ(g.remembered(), 16u);
}

}  // namespace
}  // namespace web_guard_test
}  // namespace zg::dataplane
