// SPDX-License-Identifier: Apache-2.0
// NTS-KE under a connection flood from one address (the shape of ntpd-rs
// CVE-2024-38528), on the veth rig (tests/e2e/zeitgeberd_rig.h):
// nts_ke_flood.py holds 3000 KE connections from a second address of the
// client namespace (10.99.0.3), re-opening every one the server closes, one
// in 15 stopped mid-ClientHello; while it does, chronyd 4.3 from the
// namespace's first address does NTS-KE with zeitgeberd and measures its
// offset over NTS (chronyd -Q, < 100 us). zeitgeberd's counters show the
// flood refused at accept by its source's rate limit, its log names the
// flooding address, and the nts_ke_refusing alarm is raised.
//
// Needs root. 18-21 s measured here (the machine shared, load about 20).
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/e2e/nts_test_util.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace nts_ke_flood_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

constexpr char kFloodSource[] = "10.99.0.3";
constexpr int kFloodConnections = 3000;

TEST(NtsKeFloodTest, ChronydGetsKeysWhileOneAddressFloods) {
  if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
  for (const char* tool : {"chronyd", "openssl", "python3"}) {
    if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
  }
  ASSERT_TRUE(ZeitgeberdHasNts())
      << "$ZG_ZEITGEBERD unset, or that zeitgeberd has no NTS flags";
  absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("ntsflood");
  ASSERT_TRUE(d.ok()) << d.status();
  absl::StatusOr<TestPki> pki = MakeTestPki(*d, {kNtsName4});
  ASSERT_TRUE(pki.ok()) << pki.status();
  absl::StatusOr<std::string> key = WriteMasterKey(*d, "master.key");
  ASSERT_TRUE(key.ok()) << key.status();
  RigConfig config;
  config.name = testutil::UniqueRigName("zgf");
  absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config);
  ASSERT_TRUE(rig.ok()) << rig.status();
  absl::StatusOr<std::unique_ptr<NamespaceHosts>> hosts =
      NamespaceHosts::Create((*rig)->ns(), {{(*rig)->server_ip(), kNtsName4}});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // The flood's address, next to chronyd's (10.99.0.2) on the same link.
  absl::StatusOr<CommandResult> addr =
      (*rig)->Run({"ip", "addr", "add", absl::StrCat(kFloodSource, "/24"),
                   "dev", (*rig)->client_if()},
                  absl::Seconds(5));
  ASSERT_TRUE(addr.ok() && addr->exit_code == 0)
      << (addr.ok() ? addr->Describe() : addr.status().ToString());
  ZeitgeberdOptions options;
  options.nice = -20;
  // The daemon's defaults: --nts_ke_ratelimit=on (one connection per 64 s
  // per source, bursts of 8, 1 in 4 past that), --nts_ke_max_connections=
  // 256, 2 s handshake deadline.
  options.extra_flags =
      NtsServerFlags(*pki, *key, {(*rig)->server_ip() + ":4460"});
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
      Zeitgeberd::Start(**rig, config, options);
  ASSERT_TRUE(zg.ok()) << zg.status();

  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> flood = (*rig)->Start(
      {"python3", testutil::SourceRoot() + "/tests/e2e/nts_ke_flood.py",
       kFloodSource, (*rig)->server_ip(), "4460",
       absl::StrCat(kFloodConnections), "40"});
  ASSERT_TRUE(flood.ok()) << flood.status();
  ASSERT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    return absl::StrContains((*flood)->Stderr(), "holding");
  })) << (*flood)->Stderr();
  // The flood holds: the server refuses it, and the slots it leaks into
  // fill (or time out) before chronyd comes.
  ASSERT_TRUE((*zg)
                  ->WaitForMetrics({{"zeitgeber_nts_ke_connections_rejected_"
                                     "total",
                                     {{"reason", "rate_limited"}},
                                     2000}},
                                   absl::Seconds(10))
                  .ok());

  const CommandResult q = ChronydQueryNts(**rig, *d, pki->ca_pem, kNtsName4, 8);
  double offset = 1;
  ASSERT_TRUE(ChronydOffset(q, &offset))
      << q.Describe() << q.stdout_text << q.stderr_text << (*zg)->Log();
  EXPECT_LT(std::abs(offset), 100e-6);
  std::cout << "chronyd -Q over NTS during the flood: offset " << offset
            << " s\n";
  absl::StatusOr<std::string> during = (*zg)->ScrapeMetrics();
  ASSERT_TRUE(during.ok()) << during.status();
  EXPECT_EQ(MetricSum(*during, "zeitgeber_alarm_active",
                      {{"alarm", "nts_ke_refusing"}}),
            1)
      << *during;

  // Still flooding when chronyd was done: it held throughout.
  EXPECT_TRUE((*flood)->Running()) << (*flood)->Stderr();
  (*flood)->Stop(absl::Seconds(5));
  std::cout << "flood: " << (*flood)->Stdout();
  // chronyd's KE was served (responses with cookies), the flood refused by
  // its source's rate limit, counted and named in the log.
  absl::StatusOr<std::string> m = (*zg)->WaitForMetrics(
      {{"zeitgeber_nts_ke_responses_total", {{"result", "cookies"}}, 1},
       {"zeitgeber_ntp_nts_replies_total", {}, 1}});
  ASSERT_TRUE(m.ok()) << m.status();
  const double rate_limited =
      MetricSum(*m, "zeitgeber_nts_ke_connections_rejected_total",
                {{"reason", "rate_limited"}});
  std::cout << "refused at accept: rate_limited " << rate_limited << ", full "
            << MetricSum(*m, "zeitgeber_nts_ke_connections_rejected_total",
                         {{"reason", "full"}})
            << ", cut "
            << MetricSum(*m, "zeitgeber_nts_ke_connections_cut_total", {})
            << ", handshake timeouts "
            << MetricSum(*m, "zeitgeber_nts_ke_timeouts_total",
                         {{"phase", "handshake"}})
            << "\n";
  EXPECT_GE(rate_limited, 2000) << *m;
  EXPECT_TRUE(
      absl::StrContains((*zg)->Log(), absl::StrCat("most from ", kFloodSource)))
      << (*zg)->Log();
  EXPECT_TRUE((*zg)->Stop().ok()) << (*zg)->Log();
}

}  // namespace
}  // namespace nts_ke_flood_test
}  // namespace zg::e2e
