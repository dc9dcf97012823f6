// SPDX-License-Identifier: Apache-2.0
// A foreign NTS-KE client against the NTS-KE server
// (dataplane/nts/nts_ke_server.h): chronyd 4.3 (GnuTLS) in client mode
// (-Q: measure, never set the clock) over IPv4 and IPv6 loopback, trusting
// the test CA, completes the TLS 1.3 handshake with ALPN ntske/1, sends its
// request, takes the 8 cookies with no Error record, and moves to the NTP
// port our NTPv4 Port record names. The NTP exchange that follows is not
// answered here (the workers answer it: tests/e2e); chronyd is stopped at
// its timeout.
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/nts/nts_cookie.h"
#include "dataplane/nts/nts_ke_server.h"
#include "gtest/gtest.h"
#include "tests/dataplane/nts/nts_ke_testing.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace nts_ke_chrony_test {
namespace {

class NtsKeChronyTest : public ::testing::TestWithParam<const char*> {};

TEST_P(NtsKeChronyTest, ChronydGetsEightCookies) {
  const std::string ip = GetParam();
  if (geteuid() != 0) GTEST_SKIP() << "chronyd needs root";
  if (!testutil::ProgramAvailable("chronyd")) GTEST_SKIP() << "no chronyd";
  auto dir = testutil::TempDir::Create("ntske-chrony");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto pki = testing_nts::MakeTestPki(dir->path(), "ec");
  ASSERT_TRUE(pki.ok()) << pki.status();
  const std::vector<uint8_t> master(32, 7);
  auto ks = core::NtsCookieKeystore::Derive(master, {},
                                            absl::ToUnixSeconds(absl::Now()));
  ASSERT_TRUE(ks.ok()) << ks.status();
  auto keystore = std::make_shared<const core::NtsCookieKeystore>(*ks);
  NtsKeConfig config;
  config.addresses = {{ip, 0}};
  config.cert_path = pki->cert;
  config.key_path = pki->key;
  config.ntp_port = 9;  // discard: nothing answers the NTP that follows
  auto server = NtsKeServer::Start(config, [&] { return keystore; });
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string conf = dir->File("chrony.conf");
  std::ofstream(conf) << "server " << ip << " iburst nts ntsport "
                      << (*server)->ports()[0] << "\n"
                      << "ntstrustedcerts " << pki->ca_cert << "\n"
                      << "pidfile " << dir->File("chronyd.pid") << "\n"
                      << "cmdport 0\n";
  auto r = testutil::RunCommand(
      {"chronyd", "-Q", "-d", "-u", "root", "-f", conf, "-t", "4"},
      absl::Seconds(15));
  ASSERT_TRUE(r.ok()) << r.status();
  const NtsKeStats& st = (*server)->stats();
  EXPECT_EQ(st.handshakes_ok.load(), 1u) << r->stderr_text;
  EXPECT_EQ(st.handshakes_failed.load(), 0u) << r->stderr_text;
  EXPECT_EQ(st.cookies_issued.load(), 8u) << r->stderr_text;
  for (const auto& e : st.record_errors) EXPECT_EQ(e.load(), 0u);
  // chronyd took our NTPv4 Port record.
  EXPECT_NE(r->stderr_text.find("changed port to 9"), std::string::npos)
      << r->stderr_text;
}

INSTANTIATE_TEST_SUITE_P(Ipv4AndIpv6, NtsKeChronyTest,
                         ::testing::Values("127.0.0.1", "::1"));

}  // namespace
}  // namespace nts_ke_chrony_test
}  // namespace zg::dataplane
