// SPDX-License-Identifier: Apache-2.0
// --ntp_client_log (dataplane/ntp/ntp_client_log.h) and the client-record
// flags (dataplane/daemon/flags/ntp.h), without an EAL: summaries as
// JSON Lines with the clients seen since the previous one, the size bound
// (PATH.1), the thread's period and its last summary at Stop, and the
// flags' errors.
#include "dataplane/ntp/ntp_client_log.h"

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/time/clock.h"
#include "core/time/tsc.h"
#include "dataplane/daemon/flags/ntp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace ntp_client_log_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr int64_t kS = core::kNanosPerSecond;
const core::TaiNs kT0{1'800'000'000 * kS};

std::vector<json> Lines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

uint64_t SizeOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

class NtpClientLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("clog");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    for (auto& t : tables_)
      t = std::move(*core::NtpClientRecords::Create({64}));
  }
  std::unique_ptr<NtpClientLog> Log(uint64_t max_bytes = 1 << 20) {
    NtpClientLog::Options o;
    o.config.path = Path();
    o.config.max_bytes = max_bytes;
    o.tables = [this] {
      return std::vector<const core::NtpClientRecords*>{tables_[0].get(),
                                                        tables_[1].get()};
    };
    o.thread = false;
    absl::StatusOr<std::unique_ptr<NtpClientLog>> log =
        NtpClientLog::Start(std::move(o));
    EXPECT_TRUE(log.ok()) << log.status();
    return std::move(*log);
  }
  std::string Path() const { return dir_->File("clients.jsonl"); }
  void Request(int worker, uint8_t host, core::TaiNs t) {
    tables_[worker]->Request(
        core::NtpClientKey::V4(core::Ipv4Addr::FromOctets(10, 0, 0, host)), t,
        core::NtpClientAuth::kNone);
    tables_[worker]->Flush();
  }

  std::unique_ptr<testutil::TempDir> dir_;
  std::unique_ptr<core::NtpClientRecords> tables_[2];
  core::ClockModel clock_;
};

TEST_F(NtpClientLogTest, SummariesListTheClientsSeenSinceThePreviousOne) {
  auto log = Log();
  for (int i = 0; i < 3; ++i) Request(0, 1, kT0 + i * kS);
  Request(1, 2, kT0 + 2 * kS);
  ASSERT_TRUE(log->WriteSummary(clock_, kT0 + 10 * kS).ok());
  std::vector<json> lines = Lines(Path());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["address"], "10.0.0.1");
  EXPECT_EQ(lines[0]["requests"], 3);
  EXPECT_EQ(lines[0]["worker"], 0);
  EXPECT_EQ(lines[0]["summary_tai_ns"], (kT0 + 10 * kS).value);
  EXPECT_EQ(lines[0]["summary_utc"], "2027-01-15T07:59:33.000000000Z");
  EXPECT_EQ(lines[0]["interval_s"], 1.0);
  EXPECT_EQ(lines[1]["address"], "10.0.0.2");
  EXPECT_EQ(lines[1]["worker"], 1);
  // Only 10.0.0.2 asks again: the next summary has it alone, cumulative.
  Request(1, 2, kT0 + 20 * kS);
  ASSERT_TRUE(log->WriteSummary(clock_, kT0 + 30 * kS).ok());
  lines = Lines(Path());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["address"], "10.0.0.2");
  EXPECT_EQ(lines[2]["requests"], 2);
  // Nobody since: an empty summary appends nothing.
  ASSERT_TRUE(log->WriteSummary(clock_, kT0 + 40 * kS).ok());
  EXPECT_EQ(Lines(Path()).size(), 3u);
  EXPECT_EQ(log->summaries(), 3u);
  EXPECT_EQ(log->lines(), 3u);
}

TEST_F(NtpClientLogTest, PastTheSizeBoundTheFileBecomesPathDotOne) {
  for (uint8_t h = 1; h <= 5; ++h) Request(0, h, kT0);
  auto log = Log(/*max_bytes=*/1200);  // about two lines
  for (int s = 1; s <= 3; ++s) {
    ASSERT_TRUE(log->WriteSummary(clock_, kT0 + s * kS).ok());
    for (uint8_t h = 1; h <= 5; ++h) Request(0, h, kT0 + s * kS);
  }
  EXPECT_EQ(log->lines(), 15u);
  EXPECT_GE(log->rotations(), 5u);
  EXPECT_LE(SizeOf(Path()), 1200u);
  EXPECT_LE(SizeOf(Path() + ".1"), 1200u);
  EXPECT_GT(SizeOf(Path() + ".1"), 0u);
  const std::vector<json> last = Lines(Path());
  ASSERT_FALSE(last.empty());
  for (const json& line : last) EXPECT_EQ(line["requests"], 3);
}

TEST_F(NtpClientLogTest, TheThreadWritesEveryPeriodAndOnceMoreAtStop) {
  core::PublishedClock published;
  core::ClockModel m;
  m.raw_anchor = core::ReadTsc();
  m.tai_anchor = kT0;
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(1e9);  // any rate
  published.Write(m);
  Request(0, 1, kT0);
  NtpClientLog::Options o;
  o.config.path = Path();
  o.config.period = absl::Milliseconds(20);
  o.tables = [this] {
    return std::vector<const core::NtpClientRecords*>{tables_[0].get()};
  };
  o.clock = &published;
  absl::StatusOr<std::unique_ptr<NtpClientLog>> log =
      NtpClientLog::Start(std::move(o));
  ASSERT_TRUE(log.ok()) << log.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while ((*log)->summaries() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_GE((*log)->summaries(), 2u);
  const uint64_t before = (*log)->summaries();
  (*log)->Stop();
  EXPECT_EQ((*log)->summaries(), before + 1) << "the last summary";
  (*log)->Stop();  // idempotent
  EXPECT_EQ(Lines(Path()).front()["address"], "10.0.0.1");
}

TEST(NtpClientLogPathTest, AnUnwritablePathIsAnErrorNamingTheFlag) {
  const absl::Status s =
      CheckNtpClientLogPath("/nonexistent-zg-dir/clients.jsonl");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("--ntp_client_log=/nonexistent-zg-dir"));
}

TEST(NtpClientFlagsTest, DefaultsAndErrors) {
  absl::StatusOr<NtpClientFlags> f = ReadNtpClientFlags();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->records) << "on by default";
  EXPECT_TRUE(f->log.path.empty()) << "no log by default";
  EXPECT_EQ(f->log.period, absl::Minutes(10));
  EXPECT_EQ(f->log.max_bytes, uint64_t{1} << 30);

  absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("cflags");
  ASSERT_TRUE(d.ok());
  absl::SetFlag(&FLAGS_ntp_client_log, d->File("c.jsonl"));
  EXPECT_TRUE(ReadNtpClientFlags().ok());
  absl::SetFlag(&FLAGS_ntp_client_log_period, absl::Milliseconds(10));
  EXPECT_THAT(ReadNtpClientFlags().status().message(),
              HasSubstr("--ntp_client_log_period=10ms is out of range"));
  absl::SetFlag(&FLAGS_ntp_client_log_period, absl::Minutes(1));
  absl::SetFlag(&FLAGS_ntp_client_log_max_bytes, 1000);
  EXPECT_THAT(ReadNtpClientFlags().status().message(),
              HasSubstr("--ntp_client_log_max_bytes=1000"));
  absl::SetFlag(&FLAGS_ntp_client_log_max_bytes, uint64_t{1} << 20);
  absl::SetFlag(&FLAGS_ntp_client_records, false);
  EXPECT_THAT(ReadNtpClientFlags().status().message(),
              HasSubstr("needs --ntp_client_records"));
  absl::SetFlag(&FLAGS_ntp_client_log, "/nonexistent-zg-dir/c.jsonl");
  absl::SetFlag(&FLAGS_ntp_client_records, true);
  EXPECT_FALSE(ReadNtpClientFlags().ok());
  absl::SetFlag(&FLAGS_ntp_client_log, "");
}

}  // namespace
}  // namespace ntp_client_log_test
}  // namespace zg::dataplane
