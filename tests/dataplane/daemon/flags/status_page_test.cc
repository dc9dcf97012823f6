// SPDX-License-Identifier: Apache-2.0
// --status_* (dataplane/daemon/flags/status_page.h), without an EAL: on at
// 127.0.0.1:9124 by default, off when the address is empty; plain HTTP away
// from loopback, half a certificate, bad addresses and out-of-range values
// refused while the flags are read (before anything starts), with messages
// that name the flag.
#include "dataplane/daemon/flags/status_page.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace status_page_test {
namespace {

using ::testing::HasSubstr;

TEST(StatusPageFlagsTest, LoopbackByDefaultOffWhenEmpty) {
  absl::FlagSaver saver;
  absl::StatusOr<StatusPageFlags> f = ReadStatusPageFlags();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->enabled);
  EXPECT_EQ(f->options.address, "127.0.0.1:9124");
  EXPECT_EQ(f->options.threads, 8);
  EXPECT_EQ(f->options.request_timeout_ms, 10000);
  EXPECT_EQ(f->options.poll_interval_ms, 2000);
  absl::SetFlag(&FLAGS_status_address, "");
  f = ReadStatusPageFlags();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_FALSE(f->enabled);
}

TEST(StatusPageFlagsTest, PlainHttpAwayFromLoopbackIsRefused) {
  absl::FlagSaver saver;
  absl::SetFlag(&FLAGS_status_address, "192.0.2.10:8080");
  absl::StatusOr<StatusPageFlags> f = ReadStatusPageFlags();
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("--status_address=192.0.2.10"));
  EXPECT_THAT(f.status().message(), HasSubstr("HTTPS only"));
  // With a certificate and key it is read (the files are loaded at start).
  absl::SetFlag(&FLAGS_status_cert, "/etc/zeitgeber/page.pem");
  absl::SetFlag(&FLAGS_status_key, "/etc/zeitgeber/page.key");
  f = ReadStatusPageFlags();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->options.cert_path, "/etc/zeitgeber/page.pem");
}

TEST(StatusPageFlagsTest, BadValuesNameTheFlag) {
  struct Case {
    void (*set)();
    const char* says;
  };
  const Case cases[] = {
      {[] { absl::SetFlag(&FLAGS_status_address, "9124"); }, "HOST:PORT"},
      {[] { absl::SetFlag(&FLAGS_status_address, "[::1]:9124"); }, "IPv4"},
      {[] { absl::SetFlag(&FLAGS_status_address, "web.example:1"); },
       "IPv4 address"},
      {[] { absl::SetFlag(&FLAGS_status_cert, "/c.pem"); },
       "--status_cert and --status_key go together"},
      {[] { absl::SetFlag(&FLAGS_status_threads, 1); }, "--status_threads=1"},
      {[] { absl::SetFlag(&FLAGS_status_request_timeout, absl::Hours(1)); },
       "--status_request_timeout"},
      {[] {
         absl::SetFlag(&FLAGS_status_poll_interval, absl::Milliseconds(10));
       },
       "--status_poll_interval"},
      {[] {
         absl::SetFlag(&FLAGS_status_address, "");
         absl::SetFlag(&FLAGS_status_users, "/etc/zeitgeber/users");
       },
       "the page is off"},
  };
  for (const Case& c : cases) {
    absl::FlagSaver saver;
    c.set();
    absl::StatusOr<StatusPageFlags> f = ReadStatusPageFlags();
    ASSERT_FALSE(f.ok()) << c.says;
    EXPECT_THAT(f.status().message(), HasSubstr(c.says));
  }
}

}  // namespace
}  // namespace status_page_test
}  // namespace zg::dataplane
