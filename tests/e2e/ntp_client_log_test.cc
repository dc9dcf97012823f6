// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's per-client NTP records (--ntp_client_records, on by default)
// and their log (--ntp_client_log) on the veth rig against real clients:
// ntpdig, run three times from the client namespace's address, is counted
// with exactly the requests zeitgeberd answered it (its NTP reply counter),
// as an unauthenticated basic-mode client, in the summaries the log's thread
// writes every second and in the last one written at SIGTERM; chronyd -Q
// from the same address adds its requests to the same record.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace ntp_client_log_test {
namespace {

using json = nlohmann::json;

// The log's lines for `address`, oldest first.
std::vector<json> LinesFor(const std::string& path,
                           const std::string& address) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << line;
    if (!j.is_discarded() && j["address"] == address) {
      out.push_back(std::move(j));
    }
  }
  return out;
}

double NtpReplies(const Zeitgeberd& zg) {
  absl::StatusOr<std::string> m = zg.ScrapeMetrics();
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? MetricSum(*m, "zeitgeber_frames_replied_total",
                            {{"kind", "ntp"}})
                : -1;
}

TEST(NtpClientLogTest, RealClientsAreRecordedAndLogged) {
  if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
  for (const char* tool : {"ntpdig", "chronyd", "curl"}) {
    if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
  }
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("zgcl");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string log = dir->File("clients.jsonl");
  testutil::RigConfig config;
  config.name = testutil::UniqueRigName("zgcl");
  absl::StatusOr<std::unique_ptr<testutil::NetnsRig>> rig =
      testutil::NetnsRig::Create(config);
  ASSERT_TRUE(rig.ok()) << rig.status();
  ZeitgeberdOptions o;
  o.extra_flags = {"--ntp_client_log=" + log, "--ntp_client_log_period=1s"};
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
      Zeitgeberd::Start(**rig, config, o);
  ASSERT_TRUE(zg.ok()) << zg.status();
  const std::string client = (*rig)->client_ip();

  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<NtpdigSample> s = Ntpdig(**rig, (*rig)->server_ip());
    ASSERT_TRUE(s.ok()) << s.status();
  }
  // Every NTP request on the rig comes from the client's address, so its
  // record must count what the reply counter counts: wait until the log's
  // latest summary and the published counter agree (each is periodic).
  json last;
  double replies = 0;
  auto logged_as_replied = [&](double at_least) {
    return testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(15)), [&] {
      replies = NtpReplies(**zg);
      const std::vector<json> lines = LinesFor(log, client);
      if (lines.empty() || replies < at_least) return false;
      last = lines.back();
      return last["requests"] == replies;
    });
  };
  ASSERT_TRUE(logged_as_replied(3)) << replies << " NTP replies; last line for "
                                    << client << ": " << last.dump();
  const double ntpdig_requests = replies;
  EXPECT_EQ(last["auth"], "none");
  EXPECT_TRUE(last["key_id"].is_null());
  EXPECT_EQ(last["mode"], "basic");
  EXPECT_EQ(last["drops"], (json{{"rate_limit", 0}, {"acl", 0}, {"auth", 0}}));
  EXPECT_EQ(last["kod"], 0);
  EXPECT_EQ(last["worker"], 0);
  EXPECT_GT(last["interval_s"].get<double>(), 0.0);
  EXPECT_LE(last["first_seen_tai_ns"], last["last_seen_tai_ns"]);
  EXPECT_LE(last["last_seen_tai_ns"], last["summary_tai_ns"]);

  // chronyd -Q from the same address: the same record, its requests added.
  absl::StatusOr<double> offset = ChronydOffset(**rig, (*rig)->server_ip());
  ASSERT_TRUE(offset.ok()) << offset.status();
  const json first = last;
  ASSERT_TRUE(logged_as_replied(ntpdig_requests + 1))
      << replies << " NTP replies; last line: " << last.dump();
  EXPECT_EQ(last["first_seen_tai_ns"], first["first_seen_tai_ns"])
      << "one record from the first ntpdig to chronyd";
  // SIGTERM: one more summary at exit, with the same counts.
  const size_t before = LinesFor(log, client).size();
  ASSERT_TRUE((*zg)->Stop().ok()) << (*zg)->Log();
  const std::vector<json> lines = LinesFor(log, client);
  ASSERT_GE(lines.size(), before);
  EXPECT_EQ(lines.back()["requests"], replies) << lines.back().dump();
  EXPECT_TRUE(absl::StrContains((*zg)->Log(), "ntp client log: " + log))
      << (*zg)->Log();
}

}  // namespace
}  // namespace ntp_client_log_test
}  // namespace zg::e2e
