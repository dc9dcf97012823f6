// SPDX-License-Identifier: Apache-2.0
#include "servo/audit/audit_log.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace zg::servo {
namespace audit_log_test {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
using Json = nlohmann::json;

// One audit line parsed; discarded (is_discarded()) if it is not JSON.
Json Parse(const std::string& line) {
  return Json::parse(line, nullptr, /*allow_exceptions=*/false);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(text.substr(start));  // unterminated: a torn line
      break;
    }
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

AuditRecord SampleRecord() {
  AuditRecord r;
  r.tai = core::TaiNs{(1'710'072'000 + 37) * kS + 123'456'789};
  r.utc = core::UtcNs{1'710'072'000 * kS + 123'456'789};
  r.event = AuditEvent::kSourceDown;
  r.source = "gpsd:127.0.0.1:2947";
  r.old_state = "up";
  r.new_state = "down";
  r.values = {{"reason", std::string("no fix (mode 1)")},
              {"satellites_used", int64_t{3}},
              {"ept_s", 0.005},
              {"pps", false}};
  return r;
}

class AuditLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/zg-audit-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/audit.jsonl";
  }
  void TearDown() override {
    for (const char* suffix : {"", ".1", ".2", ".3", ".4", ".old"}) {
      unlink((path_ + suffix).c_str());
    }
    rmdir(dir_.c_str());
  }
  std::string dir_;
  std::string path_;
};

TEST(FormatAuditRecordTest, WritesOneParseableLine) {
  const std::string line = FormatAuditRecord(SampleRecord(), 42);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const Json v = Parse(line);
  ASSERT_FALSE(v.is_discarded()) << line;
  EXPECT_EQ(v["seq"], 42);
  EXPECT_EQ(v["tai_ns"], (1'710'072'000 + 37) * kS + 123'456'789);
  EXPECT_EQ(v["tai"], "2024-03-10T12:00:37.123456789 TAI");
  EXPECT_EQ(v["utc"], "2024-03-10T12:00:00.123456789Z");
  EXPECT_EQ(v["event"], "source_down");
  EXPECT_EQ(v["source"], "gpsd:127.0.0.1:2947");
  EXPECT_EQ(v["old"], "up");
  EXPECT_EQ(v["new"], "down");
  const Json& values = v["values"];
  ASSERT_TRUE(values.is_object());
  EXPECT_EQ(values["reason"], "no fix (mode 1)");
  EXPECT_EQ(values["satellites_used"], 3);
  EXPECT_DOUBLE_EQ(values["ept_s"].get<double>(), 0.005);
  EXPECT_EQ(values["pps"], false);
}

// The on-disk format, byte for byte: members in this order, compact, one
// line. Doubles are written as nlohmann-json writes them (a whole number
// keeps its ".0").
TEST(FormatAuditRecordTest, TheLineByteForByte) {
  EXPECT_EQ(FormatAuditRecord(SampleRecord(), 42),
            R"({"seq":42,"tai_ns":1710072037123456789,)"
            R"("tai":"2024-03-10T12:00:37.123456789 TAI",)"
            R"("utc":"2024-03-10T12:00:00.123456789Z","event":"source_down",)"
            R"("source":"gpsd:127.0.0.1:2947","old":"up","new":"down",)"
            R"j("values":{"reason":"no fix (mode 1)","satellites_used":3,)j"
            R"("ept_s":0.005,"pps":false}})"
            "\n");
  AuditRecord r;
  r.event = AuditEvent::kStart;
  r.values = {{"tsc_hz", 2.9e9}, {"ratio", 1.0}, {"tiny", 1e-7}};
  EXPECT_EQ(FormatAuditRecord(r, 1),
            R"({"seq":1,"tai_ns":0,"tai":"1970-01-01T00:00:00.000000000 TAI",)"
            R"("utc":"1970-01-01T00:00:00.000000000Z","event":"start",)"
            R"("values":{"tsc_hz":2900000000.0,"ratio":1.0,"tiny":1e-07}})"
            "\n");
}

TEST(FormatAuditRecordTest, HostileStringsStayOnOneLine) {
  AuditRecord r;
  r.event = AuditEvent::kConfigChange;
  r.source = "a\"b\nc\\d\x01\xff";
  r.values = {{"k\n", std::string("\r\n\t\x7f")}, {"nan", 0.0 / 0.0}};
  const std::string line = FormatAuditRecord(r, 1);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const Json v = Parse(line);
  ASSERT_FALSE(v.is_discarded()) << line;
  EXPECT_EQ(v["source"], "a\"b\nc\\d\x01\xEF\xBF\xBD");
  EXPECT_FALSE(v.contains("old"));  // empty fields are left out
  EXPECT_TRUE(v["values"]["nan"].is_null());
  EXPECT_EQ(v["values"]["k\n"], "\r\n\t\x7f");
  // Whatever the bytes, the line parses back.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  r.source = all;
  EXPECT_FALSE(Parse(FormatAuditRecord(r, 2)).is_discarded());
}

TEST(AuditEventNameTest, EveryEventHasAStableName) {
  std::set<std::string> names;
  for (int e = 0; e <= static_cast<int>(AuditEvent::kSourceChange); ++e) {
    names.insert(AuditEventName(static_cast<AuditEvent>(e)));
  }
  EXPECT_EQ(names,
            (std::set<std::string>{
                "start", "stop", "source_up", "source_down", "selection_switch",
                "sample_rejected", "step", "lock", "holdover_enter",
                "holdover_exit", "class_change", "leap_scheduled",
                "leap_applied", "config_change", "state_change", "falseticker",
                "model_outvoted", "source_health", "source_change"}));
}

TEST_F(AuditLogTest, AppendsNumberedRecords) {
  auto log = AuditLog::Open(
      {.path = path_, .fsync = AuditLogOptions::Fsync::kEveryRecord});
  ASSERT_TRUE(log.ok()) << log.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  EXPECT_EQ((*log)->stats().records, 3u);
  EXPECT_EQ((*log)->stats().fsyncs, 3u);
  const std::vector<std::string> lines = Lines(ReadFile(path_));
  ASSERT_EQ(lines.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Parse(lines[i])["seq"], i + 1);
  }
  EXPECT_EQ((*log)->stats().bytes, ReadFile(path_).size());
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(AuditLogTest, FsyncPolicies) {
  auto interval = AuditLog::Open({.path = path_,
                                  .fsync = AuditLogOptions::Fsync::kInterval,
                                  .fsync_interval_ns = 0});
  ASSERT_TRUE(interval.ok());
  ASSERT_TRUE((*interval)->MaybeSync().ok());
  EXPECT_EQ((*interval)->stats().fsyncs, 0u);  // nothing written yet
  ASSERT_TRUE((*interval)->Append(SampleRecord()).ok());
  ASSERT_TRUE((*interval)->Append(SampleRecord()).ok());
  EXPECT_EQ((*interval)->stats().fsyncs, 0u);
  ASSERT_TRUE((*interval)->MaybeSync().ok());
  ASSERT_TRUE((*interval)->MaybeSync().ok());
  EXPECT_EQ((*interval)->stats().fsyncs, 1u);
  auto slow = AuditLog::Open({.path = path_ + ".1",
                              .fsync = AuditLogOptions::Fsync::kInterval,
                              .fsync_interval_ns = 3600 * kS});
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE((*slow)->Append(SampleRecord()).ok());
  ASSERT_TRUE((*slow)->MaybeSync().ok());
  EXPECT_EQ((*slow)->stats().fsyncs, 0u);  // interval not reached
  auto none = AuditLog::Open(
      {.path = path_ + ".2", .fsync = AuditLogOptions::Fsync::kNone});
  ASSERT_TRUE(none.ok());
  ASSERT_TRUE((*none)->Append(SampleRecord()).ok());
  ASSERT_TRUE((*none)->MaybeSync().ok());
  EXPECT_EQ((*none)->stats().fsyncs, 0u);
}

TEST_F(AuditLogTest, RotatesBySizeAndKeepsNFiles) {
  const size_t line_size = FormatAuditRecord(SampleRecord(), 10).size();
  auto log = AuditLog::Open({.path = path_,
                             .fsync = AuditLogOptions::Fsync::kNone,
                             .max_bytes = 5 * line_size + 10,
                             .keep_files = 2});
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 40; ++i) ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  EXPECT_TRUE(Exists(path_));
  EXPECT_TRUE(Exists(path_ + ".1"));
  EXPECT_TRUE(Exists(path_ + ".2"));
  EXPECT_FALSE(Exists(path_ + ".3"));
  EXPECT_GE((*log)->stats().rotations, 5u);
  // Oldest to newest, the kept records are consecutive and end at 40.
  std::vector<int64_t> seqs;
  for (const std::string& f : {path_ + ".2", path_ + ".1", path_}) {
    const std::string text = ReadFile(f);
    EXPECT_LE(text.size(), 5 * line_size + 10) << f;
    for (const std::string& l : Lines(text)) {
      const Json v = Parse(l);
      ASSERT_FALSE(v.is_discarded()) << f << ": " << l;
      seqs.push_back(v["seq"].get<int64_t>());
    }
  }
  ASSERT_FALSE(seqs.empty());
  EXPECT_EQ(seqs.back(), 40);
  for (size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1);
}

TEST_F(AuditLogTest, ReopenFollowsExternalRotation) {
  auto log = AuditLog::Open({.path = path_});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  ASSERT_EQ(rename(path_.c_str(), (path_ + ".old").c_str()), 0);  // logrotate
  ASSERT_TRUE((*log)->Append(SampleRecord()).ok());  // still the old file
  EXPECT_FALSE(Exists(path_));
  ASSERT_TRUE((*log)->Reopen().ok());  // SIGHUP
  ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  EXPECT_EQ(Lines(ReadFile(path_ + ".old")).size(), 2u);
  const std::vector<std::string> fresh = Lines(ReadFile(path_));
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(Parse(fresh[0])["seq"], 3);
  EXPECT_EQ((*log)->stats().reopens, 1u);
}

TEST_F(AuditLogTest, OpenCutsATornTail) {
  const std::string whole = FormatAuditRecord(SampleRecord(), 1);
  {
    std::ofstream f(path_);
    f << whole << "{\"seq\":2,\"tai_n";  // a writer died mid-write
  }
  auto log = AuditLog::Open({.path = path_});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->stats().recovered_bytes, 15u);
  EXPECT_EQ(ReadFile(path_), whole);
  ASSERT_TRUE((*log)->Append(SampleRecord()).ok());
  const std::vector<std::string> lines = Lines(ReadFile(path_));
  ASSERT_EQ(lines.size(), 2u);
  for (const std::string& l : lines) {
    EXPECT_FALSE(Parse(l).is_discarded()) << l;
  }
  // A file with no newline at all is one torn record.
  {
    std::ofstream f(path_ + ".1");
    f << "{\"seq\":1";
  }
  auto torn_only = AuditLog::Open({.path = path_ + ".1"});
  ASSERT_TRUE(torn_only.ok());
  EXPECT_EQ(ReadFile(path_ + ".1"), "");
}

TEST_F(AuditLogTest, OpenErrorsSayWhatToCheck) {
  const absl::Status s =
      AuditLog::Open({.path = "/nonexistent-zg-dir/audit.jsonl"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("directory exists"), std::string::npos) << s;
  EXPECT_EQ(AuditLog::Open({}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A child appends as fast as it can and acknowledges each record that Append
// returned OK for through a pipe; the parent SIGKILLs it at a random moment.
// The next child's Open() (and a final one, as a restarted daemon would do)
// cuts any record the kill interrupted. Afterwards every line in every file
// must parse (nothing torn), and every acknowledged record must be there
// (nothing lost).
struct KillRun {
  pid_t pid;
  std::vector<int64_t> acked;
};

// Kills the child once it has acknowledged `kill_after` records plus
// `extra_us` microseconds, so the kill lands at an arbitrary point of a write
// however slow the machine (or the sanitizer build) is.
KillRun AppendUntilKilled(const AuditLogOptions& options, int kill_after,
                          int extra_us, unsigned seed) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto log = AuditLog::Open(options);
    if (!log.ok()) _exit(2);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> len(0, 300);
    for (int64_t i = 1;; ++i) {
      AuditRecord r = SampleRecord();
      r.values = {{"run", int64_t{getpid()}},
                  {"i", i},
                  {"pad", std::string(static_cast<size_t>(len(rng)), 'p')}};
      if (!(*log)->Append(r).ok()) _exit(3);
      if (write(fds[1], &i, sizeof(i)) != sizeof(i)) _exit(4);
    }
  }
  close(fds[1]);
  KillRun run{pid, {}};
  int64_t i;
  while (static_cast<int>(run.acked.size()) < kill_after &&
         read(fds[0], &i, sizeof(i)) == sizeof(i)) {
    run.acked.push_back(i);
  }
  std::this_thread::sleep_for(std::chrono::microseconds(extra_us));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  while (read(fds[0], &i, sizeof(i)) == sizeof(i)) run.acked.push_back(i);
  close(fds[0]);
  return run;
}

// (run pid, i) of every parseable line in `files`; fails on a torn line.
std::set<std::pair<int64_t, int64_t>> ReadAll(
    const std::vector<std::string>& files) {
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const std::string& f : files) {
    const std::string text = ReadFile(f);
    if (!text.empty()) {
      EXPECT_EQ(text.back(), '\n') << f;
    }
    for (const std::string& l : Lines(text)) {
      const Json v = Parse(l);
      EXPECT_FALSE(v.is_discarded()) << f << ": torn line: " << l.substr(0, 80);
      if (v.is_discarded() || !v.contains("values")) continue;
      const Json& values = v["values"];
      seen.insert(
          {values.value("run", int64_t{-1}), values.value("i", int64_t{-1})});
    }
  }
  return seen;
}

TEST_F(AuditLogTest, SigkillNeverTearsOrLosesRecords) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> records(1, 200);
  std::uniform_int_distribution<int> delay(0, 2'000);
  std::vector<KillRun> runs;
  for (int k = 0; k < 25; ++k) {
    runs.push_back(AppendUntilKilled(
        {.path = path_, .fsync = AuditLogOptions::Fsync::kNone}, records(rng),
        delay(rng), static_cast<unsigned>(k)));
  }
  ASSERT_TRUE(AuditLog::Open({.path = path_}).ok());  // the restart
  const auto seen = ReadAll({path_});
  size_t acked = 0;
  for (const KillRun& run : runs) {
    for (int64_t i : run.acked) {
      ++acked;
      EXPECT_TRUE(seen.count({run.pid, i}))
          << "lost record " << i << " of run " << run.pid;
    }
  }
  EXPECT_GE(acked, 25u);  // every child got to write
}

TEST_F(AuditLogTest, SigkillDuringRotationLeavesOnlyWholeLines) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> records(1, 200);
  std::uniform_int_distribution<int> delay(0, 2'000);
  for (int k = 0; k < 25; ++k) {
    AppendUntilKilled({.path = path_,
                       .fsync = AuditLogOptions::Fsync::kNone,
                       .max_bytes = 8 * 1024,
                       .keep_files = 3},
                      records(rng), delay(rng), static_cast<unsigned>(k));
  }
  ASSERT_TRUE(AuditLog::Open({.path = path_}).ok());  // the restart
  const auto seen = ReadAll({path_, path_ + ".1", path_ + ".2", path_ + ".3"});
  EXPECT_FALSE(seen.empty());
  EXPECT_FALSE(Exists(path_ + ".4"));
}

}  // namespace
}  // namespace audit_log_test
}  // namespace zg::servo
