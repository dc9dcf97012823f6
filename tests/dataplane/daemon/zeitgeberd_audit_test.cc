// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's audit log, as the daemon writes it: every control-plane event
// arrives as a JSON line; SIGHUP after an external rotation (rename) makes a
// new file; SIGKILL at any moment leaves only complete, parseable lines, and
// the next zeitgeberd appends to the same file. Runs zeitgeberd on an
// in-process net_ring port with a simulated reference (no root, no NIC).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg {
namespace zeitgeberd_audit_test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

struct Record {
  uint64_t seq = 0;
  std::string event;
  std::string source;
  std::string new_state;
};

// Every line of `path` parsed; a line that does not parse fails the test.
std::vector<Record> ReadAudit(const std::string& path, bool* torn = nullptr) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (torn != nullptr) *torn = !text.empty() && text.back() != '\n';
  std::vector<Record> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // an unterminated tail is checked
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const nlohmann::json v = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(v.is_discarded()) << "unparseable audit line: " << line;
    if (v.is_discarded()) continue;
    Record r;
    r.seq = v.value("seq", uint64_t{0});
    r.event = v.value("event", "");
    r.source = v.value("source", "");
    r.new_state = v.value("new", "");
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> Events(const std::vector<Record>& rs) {
  std::vector<std::string> e;
  for (const Record& r : rs) e.push_back(r.event);
  return e;
}

class ZeitgeberdAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    zeitgeberd_ =
        std::getenv("ZG_ZEITGEBERD") ? std::getenv("ZG_ZEITGEBERD") : "";
    ASSERT_FALSE(zeitgeberd_.empty()) << "run through meson test";
    auto dir = testutil::TempDir::Create("audit");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<testutil::TempDir>(*std::move(dir));
    audit_ = dir_->File("audit.jsonl");
  }

  std::unique_ptr<testutil::Subprocess> Start(int run) {
    std::vector<std::string> argv = {
        zeitgeberd_,
        "--no-huge",
        "-m",
        "256",
        "--no-shconf",
        "--no-pci",
        "--no-telemetry",
        "--file-prefix",
        absl::StrCat("zgaudit", getpid(), "_", run),
        "--log-level=lib.eal:error",
        "-l",
        "0-1",
        "--vdev=net_ring0",
        "--",
        "--metrics_address=",
        "--status_address=",
        "--control_socket=",
        "--source=sim:lab,interval=200ms,uncertainty=1us",
        "--audit_log=" + audit_,
        "--audit_fsync=every_record",
        "--leap_file=/usr/share/zoneinfo/leap-seconds.list"};
    auto p = testutil::Subprocess::Start(argv);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : nullptr;
  }

  // Waits until `path` holds a record of `event` (up to 60 s).
  // Waits until `path` holds `count` records of `event` (an appended log
  // already holds those of earlier runs).
  bool WaitFor(const std::string& path, const std::string& event,
               testutil::Subprocess* p, int count = 1) {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      int seen = 0;
      for (const Record& r : ReadAudit(path)) {
        if (r.event == event && ++seen >= count) return true;
      }
      if (!p->Running()) return false;
      absl::SleepFor(absl::Milliseconds(100));
    }
    return false;
  }

  std::string zeitgeberd_;
  std::unique_ptr<testutil::TempDir> dir_;
  std::string audit_;
};

TEST_F(ZeitgeberdAuditTest, EventsFlowAndSighupReopens) {
  auto zg = Start(1);
  ASSERT_NE(zg, nullptr);
  ASSERT_TRUE(WaitFor(audit_, "lock", zg.get())) << zg->Stderr();
  std::vector<Record> first = ReadAudit(audit_);
  const std::vector<std::string> events = Events(first);
  ASSERT_GE(events.size(), 5u);
  EXPECT_EQ(events[0], "start");
  EXPECT_EQ(events[1], "config_change");
  for (const char* e :
       {"source_health", "source_up", "selection_switch", "step", "lock"}) {
    EXPECT_THAT(events, Contains(e)) << zg->Stderr();
  }
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].seq, i + 1) << "seq counts every record";
  }

  // logrotate's way: move the file, then SIGHUP.
  const std::string rotated = audit_ + ".1";
  ASSERT_EQ(std::rename(audit_.c_str(), rotated.c_str()), 0);
  ASSERT_EQ(kill(zg->pid(), SIGHUP), 0);
  ASSERT_TRUE(WaitFor(audit_, "config_change", zg.get()))
      << "no new file after SIGHUP\n"
      << zg->Stderr();
  const testutil::CommandResult done = zg->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;
  EXPECT_THAT(done.stderr_text, HasSubstr("SIGHUP"));
  EXPECT_THAT(done.stderr_text, HasSubstr("final clock: LOCKED"));
  const std::vector<std::string> fresh = Events(ReadAudit(audit_));
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(fresh.front(), "config_change");
  EXPECT_EQ(fresh.back(), "stop");
  const std::vector<std::string> old = Events(ReadAudit(rotated));
  ASSERT_FALSE(old.empty()) << "the rotated audit log is empty";
  EXPECT_EQ(old.front(), "start");
  EXPECT_THAT(old, ::testing::Not(Contains("stop")));
}

TEST_F(ZeitgeberdAuditTest, SigkillLeavesAnIntactLogThatTheNextRunExtends) {
  auto zg = Start(2);
  ASSERT_NE(zg, nullptr);
  ASSERT_TRUE(WaitFor(audit_, "lock", zg.get())) << zg->Stderr();
  ASSERT_EQ(kill(zg->pid(), SIGKILL), 0);
  const testutil::CommandResult killed = zg->Wait(absl::Seconds(20));
  EXPECT_EQ(killed.term_signal, SIGKILL);
  bool torn = true;
  const std::vector<Record> before = ReadAudit(audit_, &torn);
  EXPECT_FALSE(torn) << "every record is one write of a whole line";
  ASSERT_GE(before.size(), 5u);
  EXPECT_THAT(Events(before), ::testing::Not(Contains("stop")));

  // The next run appends: what the killed run wrote stays as it was.
  auto again = Start(3);
  ASSERT_NE(again, nullptr);
  ASSERT_TRUE(WaitFor(audit_, "lock", again.get(), /*count=*/2))
      << again->Stderr();
  const testutil::CommandResult done = again->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;
  const std::vector<Record> after = ReadAudit(audit_, &torn);
  EXPECT_FALSE(torn);
  ASSERT_GT(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].event, before[i].event);
    EXPECT_EQ(after[i].seq, before[i].seq);
  }
  EXPECT_EQ(after[before.size()].event, "start");
  EXPECT_EQ(after[before.size()].seq, 1u) << "seq counts per process";
  EXPECT_EQ(after.back().event, "stop");
}

}  // namespace
}  // namespace zeitgeberd_audit_test
}  // namespace zg
