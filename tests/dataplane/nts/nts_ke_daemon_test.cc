// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's body (RunDaemon, dataplane/daemon/daemon.h) with an NTS-KE
// server: started by --nts_ke_address with a keystore source (the test's,
// as zeitgeberd passes the NTS factory's), its certificate swapped by a
// SIGHUP after the flagfile names another one, a bad pair rejected with the
// old certificate kept, and a clean stop on SIGTERM. In-process: the EAL on
// a net_ring port, two lcores, no hugepages.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_ke_records.h"
#include "dataplane/daemon/daemon.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/dataplane/nts/nts_ke_testing.h"
#include "tests/util/ports.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace nts_ke_daemon_test {
namespace {

using ::testing::HasSubstr;

void WriteFlags(const std::string& path, const std::string& cert,
                const std::string& key) {
  std::ofstream(path) << "--nts_cert=" << cert << "\n--nts_key=" << key << "\n";
}

// The subject a fresh client sees, polled until it contains `want` (or 10 s).
std::string WaitForSubject(uint16_t port, const std::string& ca,
                           const std::string& want) {
  testing_nts::KeClientOptions o;
  o.ca_file = ca;
  std::string got;
  const absl::Time end = absl::Now() + absl::Seconds(10);
  while (absl::Now() < end) {
    const testing_nts::KeClientResult r = testing_nts::RunKeClient(port, o);
    got = r.peer_subject;
    core::NtsKeResponse resp;
    if (got.find(want) != std::string::npos &&
        core::ParseNtsKeResponse(r.response, &resp) ==
            core::NtsKeResponseParse::kComplete &&
        resp.cookies.size() == 8) {
      return got;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return got;
}

TEST(NtsKeDaemonTest, StartsReloadsTheCertificateAndStops) {
  auto dir = testutil::TempDir::Create("ntske-daemon");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto pki = testing_nts::MakeTestPki(dir->path(), "ec");
  ASSERT_TRUE(pki.ok()) << pki.status();
  const std::string flags = dir->File("zeitgeberd.flags");
  WriteFlags(flags, pki->cert, pki->key);
  const std::vector<uint8_t> master(32, 9);
  auto ks = core::NtsCookieKeystore::Derive(master, {},
                                            absl::ToUnixSeconds(absl::Now()));
  ASSERT_TRUE(ks.ok()) << ks.status();
  auto keystore = std::make_shared<const core::NtsCookieKeystore>(*ks);
  const uint16_t port = testutil::FreeLoopbackPort();

  std::vector<std::string> args = {
      "zeitgeberd",
      "--no-huge",
      "-m",
      "256",
      "--no-shconf",
      "--no-pci",
      "--no-telemetry",
      "--file-prefix",
      absl::StrCat("zgke", getpid()),
      "--log-level=lib.eal:error",
      "-l",
      "0-1",
      "--vdev=net_ring0",
      "--",
      absl::StrCat("--flagfile=", flags),
      absl::StrCat("--nts_ke_address=127.0.0.1:", port),
      "--require_system_clock_sync=false",
      "--metrics_address=",
      "--status_address=",
      "--control_socket=",
      "--run_for=60s"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Until RunDaemon installs its handlers, a SIGHUP must not kill us.
  signal(SIGHUP, SIG_IGN);
  ProtocolPipelineFactory factory;
  int rc = -1;
  std::thread daemon([&] {
    rc = RunDaemon(static_cast<int>(args.size()), argv.data(), factory,
                   [&] { return keystore; });
  });

  EXPECT_THAT(WaitForSubject(port, pki->ca_cert, "CN=ke-a"),
              HasSubstr("CN=ke-a"));
  absl::SleepFor(absl::Milliseconds(300));  // the handlers follow KE's start
  WriteFlags(flags, pki->cert_b, pki->key_b);
  kill(getpid(), SIGHUP);
  EXPECT_THAT(WaitForSubject(port, pki->ca_cert, "CN=ke-b"),
              HasSubstr("CN=ke-b"));
  WriteFlags(flags, pki->cert, pki->key_b);  // mismatched: rejected
  kill(getpid(), SIGHUP);
  absl::SleepFor(absl::Milliseconds(500));
  EXPECT_THAT(WaitForSubject(port, pki->ca_cert, "CN=ke-b"),
              HasSubstr("CN=ke-b"));

  kill(getpid(), SIGTERM);
  daemon.join();
  EXPECT_EQ(rc, 0);
  testing_nts::KeClient late;
  EXPECT_FALSE(late.Connect(port));  // the listener is gone
}

}  // namespace
}  // namespace nts_ke_daemon_test
}  // namespace zg::dataplane
