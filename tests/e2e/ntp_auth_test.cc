// SPDX-License-Identifier: Apache-2.0
// Symmetric-key NTP authentication end to end (--ntp_keys,
// dataplane/ntp/ntp_auth.h) on the veth rig (tests/e2e/zeitgeberd_rig.h):
//
//  - chronyd -Q configured with `server ... key N` and the matching keyfile
//    measures our clock with AES128 (IPv4), AES256 (IPv6) and SHA1 (IPv4),
//    one short run each; a running chronyd -x (never touching the clock)
//    shows "Authenticated : Yes" and valid samples in `chronyc ntpdata`.
//    chronyd discards any reply that is not MACed with the key it asked for
//    (ntp_auth.c NAU_CheckResponseAuth), so a measurement is an authenticated
//    one; our counters zeitgeber_ntp_auth_replies_total{algorithm} show each
//    algorithm used.
//  - ntpsec's `ntpdig -a 1 -k FILE` (its keyfile format: "1 AES <hex>")
//    gets an answer it authenticates.
//  - chronyd with a wrong secret for key 1 (IPv4) and a key id we do not
//    hold (IPv6) measures nothing, and ntp_auth_bad_mac and
//    ntp_auth_unknown_key say why; after the server's keyfile is changed
//    to that secret and zeitgeberd gets SIGHUP, the same client is served,
//    and ntpdig on the old secret is refused (ntp_auth_bad_mac).
//
// Needs root (namespaces, XDP); skipped otherwise. About 8-16 s.
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace ntp_auth_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

constexpr char kAes128[] = "2b7e151628aed2a6abf7158809cf4f3c";
constexpr char kAes256[] =
    "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";

class NtpAuthE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    for (const char* tool : {"ntpdig", "chronyd", "curl"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("ntpauth");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    server_keys_ = WriteKeys(
        "server.keys", absl::StrCat("1 AES128 HEX:", kAes128, "\n2 AES256 HEX:",
                                    kAes256, "\n3 SHA1 ASCII:correct-horse\n"));
    config_.name = testutil::UniqueRigName("zga");
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config_);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = std::move(*rig);
    ZeitgeberdOptions options;
    options.nice = -20;
    // The auth families are read at scrape time: with nothing refreshed on
    // a timer for an hour, the reply counts below must still show.
    options.extra_flags = {"--ntp_keys=" + server_keys_, "--stats_interval=1h"};
    absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
        Zeitgeberd::Start(*rig_, config_, options);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = std::move(*zg);
  }

  std::string WriteKeys(const std::string& name, const std::string& text) {
    const std::string path = dir_->File(name);
    std::ofstream(path) << text;
    EXPECT_EQ(chmod(path.c_str(), 0600), 0);
    return path;
  }

  // chronyd -Q from the namespace with `lines` of configuration; its own
  // timeout `own_s`.
  CommandResult Chronyd(const std::vector<std::string>& lines, int own_s) {
    std::vector<std::string> argv = {
        "chronyd",
        "-Q",
        "-P",
        "10",
        "-u",
        "root",
        "-t",
        absl::StrCat(own_s),
        "-f",
        "/dev/null",
        absl::StrCat("pidfile ", dir_->File("chronyd.pid")),
        absl::StrCat("bindcmdaddress ", dir_->File("chronyd.sock")),
        "cmdport 0"};
    argv.insert(argv.end(), lines.begin(), lines.end());
    absl::StatusOr<CommandResult> r = rig_->Run(argv, absl::Seconds(own_s + 3));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : CommandResult{};
  }
  static bool Measured(const CommandResult& r) {
    return absl::StrContains(r.stdout_text + r.stderr_text,
                             "System clock wrong by");
  }
  std::string Server(const std::string& ip, int key) const {
    return absl::StrCat("server ", ip,
                        " iburst minpoll -4 maxpoll -4 maxsamples 4 key ", key);
  }

  RigConfig config_;
  std::unique_ptr<testutil::TempDir> dir_;
  std::string server_keys_;
  std::unique_ptr<NetnsRig> rig_;  // destroyed after zg_
  std::unique_ptr<Zeitgeberd> zg_;
};

TEST_F(NtpAuthE2eTest, ChronydAndNtpdigAuthenticateAndAWrongKeyIsRefused) {
  // AES128 over IPv4 and AES256 over IPv6 in one chronyd run.
  const std::string client_keys =
      WriteKeys("client.keys", absl::StrCat("1 AES128 HEX:", kAes128,
                                            "\n2 AES256 HEX:", kAes256,
                                            "\n3 SHA1 ASCII:correct-horse\n"));
  for (auto [ip, key] :
       {std::pair{rig_->server_ip(), 1}, std::pair{rig_->server_ip6(), 2},
        std::pair{rig_->server_ip(), 3}}) {
    CommandResult r = Chronyd({"keyfile " + client_keys, Server(ip, key)}, 8);
    EXPECT_TRUE(Measured(r))
        << ip << " key " << key << ": " << r.Describe() << "\n"
        << r.stdout_text << zg_->ScrapeMetrics().value_or("");
  }

  // chronyd as a running client (-x: it never touches the clock, which the
  // namespace shares with the host) shows the source as authenticated.
  {
    std::vector<std::string> argv = {
        "chronyd",
        "-d",
        "-x",
        "-u",
        "root",
        "-f",
        "/dev/null",
        absl::StrCat("pidfile ", dir_->File("chronyd-x.pid")),
        absl::StrCat("bindcmdaddress ", dir_->File("chronyd-x.sock")),
        "cmdport 0",
        "keyfile " + client_keys,
        Server(rig_->server_ip(), 1)};
    absl::StatusOr<std::unique_ptr<testutil::Subprocess>> chronyd =
        rig_->Start(argv);
    ASSERT_TRUE(chronyd.ok()) << chronyd.status();
    std::string ntpdata;
    const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(10));
    while (absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(500));
      absl::StatusOr<CommandResult> c =
          rig_->Run({"chronyc", "-h", dir_->File("chronyd-x.sock"), "ntpdata"},
                    absl::Seconds(5));
      if (!c.ok()) continue;
      ntpdata = c->stdout_text;
      if (absl::StrContains(ntpdata, "Authenticated   : Yes") &&
          !absl::StrContains(ntpdata, "Total valid RX  : 0")) {
        break;
      }
    }
    (*chronyd)->Stop();
    EXPECT_TRUE(absl::StrContains(ntpdata, "Authenticated   : Yes")) << ntpdata;
    EXPECT_FALSE(absl::StrContains(ntpdata, "Total valid RX  : 0")) << ntpdata;
  }

  // ntpdig's keyfile is ntpd's: "ID TYPE KEY", AES = AES-128-CMAC, a key
  // longer than 20 characters in hex.
  const std::string ntpdig_keys =
      WriteKeys("ntpdig.keys", absl::StrCat("1 AES ", kAes128, "\n"));
  absl::StatusOr<CommandResult> d = rig_->Run(
      {"ntpdig", "-t", "2", "-a", "1", "-k", ntpdig_keys, rig_->server_ip()},
      absl::Seconds(15));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->ok()) << d->Describe() << "\n" << d->stdout_text;
  // ntpdig drops a reply whose MAC fails ("MAC verification on reply from
  // ... failed", "... server is untrusted") and then exits non-zero.
  for (const char* bad : {"MAC verification", "untrusted"}) {
    EXPECT_FALSE(absl::StrContains(d->stdout_text + d->stderr_text, bad))
        << d->stdout_text << d->stderr_text;
  }

  absl::StatusOr<std::string> m = zg_->WaitForMetrics({
      {"zeitgeber_ntp_auth_replies_total", {{"algorithm", "AES128"}}, 2},
      {"zeitgeber_ntp_auth_replies_total", {{"algorithm", "AES256"}}, 1},
      {"zeitgeber_ntp_auth_replies_total", {{"algorithm", "SHA1"}}, 1},
  });
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << zg_->Log();
  EXPECT_EQ(MetricSum(*m, "zeitgeber_frames_dropped_total",
                      {{"reason", "ntp_auth_bad_mac"}}),
            0);
  EXPECT_EQ(MetricSum(*m, "zeitgeber_ntp_auth_keys"), 3);

  // A wrong secret for key 1 and a key id the server does not hold.
  const std::string wrong_keys = WriteKeys(
      "wrong.keys",
      "1 AES128 HEX:000102030405060708090a0b0c0d0e0f\n9 SHA1 ASCII:other\n");
  CommandResult r =
      Chronyd({"keyfile " + wrong_keys, Server(rig_->server_ip(), 1),
               Server(rig_->server_ip6(), 9)},
              3);
  EXPECT_FALSE(Measured(r)) << r.stdout_text << r.stderr_text;
  m = zg_->WaitForMetrics({
      {"zeitgeber_frames_dropped_total", {{"reason", "ntp_auth_bad_mac"}}, 1},
      {"zeitgeber_frames_dropped_total",
       {{"reason", "ntp_auth_unknown_key"}},
       1},
  });
  ASSERT_TRUE(m.ok()) << m.status();

  // Reload (SIGHUP) with key 1's secret changed to the client's "wrong"
  // one: without a restart, that client is now served.
  WriteKeys("server.keys",
            "1 AES128 HEX:000102030405060708090a0b0c0d0e0f\n"
            "3 SHA1 ASCII:correct-horse\n");
  ASSERT_TRUE(zg_->Hangup().ok());
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(10));
  while (absl::Now() < deadline &&
         !absl::StrContains(zg_->Log(), "ntp keys: 2 from")) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(absl::StrContains(zg_->Log(), "ntp keys: 2 from")) << zg_->Log();
  EXPECT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(5)), [&] {
    return MetricSum(zg_->ScrapeMetrics().value_or(""),
                     "zeitgeber_ntp_auth_keys") == 2;
  })) << zg_->ScrapeMetrics().value_or("");
  r = Chronyd({"keyfile " + wrong_keys, Server(rig_->server_ip(), 1)}, 8);
  EXPECT_TRUE(Measured(r)) << r.stdout_text << r.stderr_text;
  // And ntpdig, still on the old secret, is refused now: its request's MAC
  // fails here (one more ntp_auth_bad_mac), so it gets no reply at all.
  const double bad_before = MetricSum(zg_->ScrapeMetrics().value_or(""),
                                      "zeitgeber_frames_dropped_total",
                                      {{"reason", "ntp_auth_bad_mac"}});
  d = rig_->Run(
      {"ntpdig", "-t", "2", "-a", "1", "-k", ntpdig_keys, rig_->server_ip()},
      absl::Seconds(15));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_FALSE(d->ok()) << d->stdout_text;
  m = zg_->WaitForMetrics({{"zeitgeber_frames_dropped_total",
                            {{"reason", "ntp_auth_bad_mac"}},
                            bad_before + 1}});
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(zg_->Stop().ok()) << zg_->Log();
  EXPECT_TRUE(absl::StrContains(zg_->Log(), "NTP keys: 3 loaded from"))
      << zg_->Log();
}

}  // namespace
}  // namespace ntp_auth_test
}  // namespace zg::e2e
