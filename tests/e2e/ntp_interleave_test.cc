// SPDX-License-Identifier: Apache-2.0
// NTP interleaved mode end to end (RFC 9769; dataplane/ntp/ntp_interleave.h)
// on the veth rig (tests/e2e/zeitgeberd_rig.h), zeitgeberd in AF_XDP mode:
//
//  - two chronyd -x (never touching the clock) run at once in the client
//    namespace against the same server address: one with `xleave`, one
//    without (basic mode). `chronyc ntpdata` of the first says
//    "Interleaved : Yes", of the second "No";
//  - their offset and delay ("Offset", "Peer delay" of ntpdata, sampled
//    while they poll every 2^-4 s) are printed side by side in the test
//    log, medians of each; the test asserts only that the interleaved
//    offset is within a sane bound (client and server read this host's
//    clock), not which mode measures better, which the shared machine
//    does not decide reliably;
//  - zeitgeber_ntp_interleave_requests_total{result="interleaved"} counts
//    the interleaved replies.
//
// ZG_XLEAVE_PCAP=FILE captures the exchanges (tcpdump in the namespace).
// Needs root (namespaces, XDP) and chrony; skipped otherwise. About 5-12 s.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace ntp_interleave_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

// The value after "LABEL: " in chronyc's ntpdata output (NaN if absent).
double Field(const std::string& ntpdata, const std::string& label) {
  const size_t at = ntpdata.find(label);
  if (at == std::string::npos) return std::nan("");
  const size_t colon = ntpdata.find(':', at);
  return std::strtod(ntpdata.c_str() + colon + 1, nullptr);
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class NtpInterleaveE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    for (const char* tool : {"chronyd", "chronyc", "curl"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("xleave");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    config_.name = testutil::UniqueRigName("zgx");
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config_);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = std::move(*rig);
    ZeitgeberdOptions options;  // AF_XDP, XDP steering
    options.nice = -20;
    // The interleave families are read at scrape time: with nothing
    // refreshed on a timer for an hour, the counts below must still show.
    options.extra_flags = {"--stats_interval=1h"};
    absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
        Zeitgeberd::Start(*rig_, config_, options);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = std::move(*zg);
  }

  // A running chronyd -x in the namespace polling the server every 2^-4 s.
  std::unique_ptr<testutil::Subprocess> Chronyd(const std::string& name,
                                                bool xleave) {
    const std::vector<std::string> argv = {
        "chronyd",
        "-d",
        "-x",
        "-u",
        "root",
        "-f",
        "/dev/null",
        absl::StrCat("pidfile ", dir_->File(name + ".pid")),
        absl::StrCat("bindcmdaddress ", Socket(name)),
        "cmdport 0",
        "port 0",
        absl::StrCat("server ", rig_->server_ip(),
                     " iburst minpoll -4 maxpoll -4", xleave ? " xleave" : "")};
    absl::StatusOr<std::unique_ptr<testutil::Subprocess>> p = rig_->Start(argv);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? std::move(*p) : nullptr;
  }
  std::string Socket(const std::string& name) const {
    return dir_->File(name + ".sock");
  }
  std::string NtpData(const std::string& name) const {
    absl::StatusOr<CommandResult> c =
        rig_->Run({"chronyc", "-h", Socket(name), "ntpdata"}, absl::Seconds(5));
    return c.ok() ? c->stdout_text : "";
  }

  RigConfig config_;
  std::unique_ptr<testutil::TempDir> dir_;
  std::unique_ptr<NetnsRig> rig_;  // destroyed after zg_
  std::unique_ptr<Zeitgeberd> zg_;
};

TEST_F(NtpInterleaveE2eTest, ChronydXleaveIsAnsweredInInterleavedMode) {
  std::unique_ptr<testutil::Subprocess> pcap;
  if (const char* f = std::getenv("ZG_XLEAVE_PCAP")) {
    pcap = *rig_->Start(
        {"tcpdump", "-i", rig_->client_if(), "-w", f, "-U", "udp port 123"});
    absl::SleepFor(absl::Milliseconds(500));
  }
  std::unique_ptr<testutil::Subprocess> xleave = Chronyd("xleave", true);
  std::unique_ptr<testutil::Subprocess> basic = Chronyd("basic", false);
  ASSERT_NE(xleave, nullptr);
  ASSERT_NE(basic, nullptr);
  // Until both have valid samples and the interleaved one has said so
  // (under load a reply can be late or lost, and chronyd falls back to
  // basic for one sample); then samples of each mode for two more seconds,
  // the interleaved one's only while it says "Yes".
  std::string x, b;
  bool seen_interleaved = false;
  std::vector<double> x_offset, x_delay, b_offset, b_delay;
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(15));
  absl::Time sample_until = absl::InfiniteFuture();
  while (absl::Now() < std::min(deadline, sample_until)) {
    absl::SleepFor(absl::Milliseconds(250));
    x = NtpData("xleave");
    b = NtpData("basic");
    const bool x_yes = absl::StrContains(x, "Interleaved     : Yes");
    seen_interleaved |= x_yes;
    const bool ready = seen_interleaved && Field(x, "Total valid RX") >= 4 &&
                       Field(b, "Total valid RX") >= 4;
    if (!ready) continue;
    if (sample_until == absl::InfiniteFuture()) {
      sample_until = absl::Now() + absl::Seconds(2);
    }
    if (x_yes) {
      x_offset.push_back(Field(x, "Offset"));
      x_delay.push_back(Field(x, "Peer delay"));
    }
    b_offset.push_back(Field(b, "Offset"));
    b_delay.push_back(Field(b, "Peer delay"));
  }
  xleave->Stop();
  basic->Stop();
  if (pcap) pcap->Stop();
  ASSERT_TRUE(seen_interleaved)
      << x << "\n"
      << zg_->ScrapeMetrics().value_or("") << zg_->Log();
  EXPECT_TRUE(absl::StrContains(b, "Interleaved     : No")) << b;
  EXPECT_TRUE(absl::StrContains(x, "Mode            : Server")) << x;
  ASSERT_FALSE(x_offset.empty());
  std::printf(
      "chronyd against zeitgeberd (AF_XDP), medians of %zu/%zu ntpdata "
      "samples:\n"
      "  interleaved: offset %+.9f s  delay %.9f s\n"
      "  basic:       offset %+.9f s  delay %.9f s\n",
      x_offset.size(), b_offset.size(), Median(x_offset), Median(x_delay),
      Median(b_offset), Median(b_delay));
  std::printf("last ntpdata (interleaved):\n%s\nlast ntpdata (basic):\n%s\n",
              x.c_str(), b.c_str());
  // Both ends read this host's clock: a sane offset is well under 1 ms.
  EXPECT_LT(std::abs(Median(x_offset)), 1e-3) << x;
  EXPECT_GT(Median(x_delay), 0) << x;

  absl::StatusOr<std::string> m =
      zg_->WaitForMetrics({{"zeitgeber_ntp_interleave_requests_total",
                            {{"result", "interleaved"}},
                            4}});
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << zg_->Log();
  for (absl::string_view line : absl::StrSplit(*m, '\n')) {
    if (absl::StartsWith(line, "zeitgeber_ntp_interleave")) {
      std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
    }
  }
}

}  // namespace
}  // namespace ntp_interleave_test
}  // namespace zg::e2e
