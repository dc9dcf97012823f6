// SPDX-License-Identifier: Apache-2.0
// Reading the audit log back: filters, the last N, following with a cursor,
// across a rotation, and a torn last line.
#include "servo/api/audit_query.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "servo/audit/audit_log.h"
#include "tests/util/temp_dir.h"

namespace zg::servo {
namespace audit_query_test {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kT0 = 1'700'000'000 * kS;  // UTC

AuditRecord Record(int i, AuditEvent e) {
  AuditRecord r;
  r.utc = core::UtcNs{kT0 + i * kS};
  r.tai = core::TaiNs{r.utc.value + 37 * kS};
  r.event = e;
  r.source = absl::StrCat("sim:", i);
  r.values.push_back({"i", int64_t{i}});
  return r;
}

class AuditQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("aq");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<testutil::TempDir>(std::move(*dir));
    path_ = dir_->File("audit.jsonl");
    absl::StatusOr<std::unique_ptr<AuditLog>> log =
        AuditLog::Open({.path = path_,
                        .fsync = AuditLogOptions::Fsync::kNone,
                        .max_bytes = max_bytes_});
    ASSERT_TRUE(log.ok());
    log_ = std::move(*log);
  }
  void Append(int i, AuditEvent e) {
    ASSERT_TRUE(log_->Append(Record(i, e)).ok());
  }

  uint64_t max_bytes_ = 0;
  std::unique_ptr<testutil::TempDir> dir_;
  std::string path_;
  std::unique_ptr<AuditLog> log_;
};

TEST_F(AuditQueryTest, KindSinceAndTheLastN) {
  for (int i = 0; i < 10; ++i) {
    Append(i, i % 2 == 0 ? AuditEvent::kSourceDown : AuditEvent::kSourceUp);
  }
  absl::StatusOr<AuditQueryResult> r =
      QueryAuditLog(path_, {.kinds = {"source_down"}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->records.size(), 5u);
  EXPECT_EQ(r->records[0]["values"]["i"], 0);
  EXPECT_FALSE(r->truncated);

  r = QueryAuditLog(path_, {.since = core::UtcNs{kT0 + 6 * kS}});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 4u);
  EXPECT_EQ(r->records[0]["values"]["i"], 6);

  r = QueryAuditLog(path_, {.limit = 3});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 3u);
  EXPECT_EQ(r->records[0]["values"]["i"], 7);  // the last three
  EXPECT_TRUE(r->truncated);
}

TEST_F(AuditQueryTest, FollowingWithACursor) {
  Append(0, AuditEvent::kStart);
  absl::StatusOr<AuditQueryResult> r = QueryAuditLog(path_, {});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 1u);
  std::string cursor = r->cursor;
  r = QueryAuditLog(path_, {.cursor = cursor});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->records.empty());
  EXPECT_EQ(r->cursor, cursor);
  for (int i = 1; i <= 5; ++i) Append(i, AuditEvent::kConfigChange);
  r = QueryAuditLog(path_, {.limit = 2, .cursor = cursor});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 2u);
  EXPECT_EQ(r->records[0]["values"]["i"], 1);
  EXPECT_TRUE(r->truncated);  // more to come
  r = QueryAuditLog(path_, {.cursor = r->cursor});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 3u);
  EXPECT_EQ(r->records[2]["values"]["i"], 5);
}

TEST_F(AuditQueryTest, AnUnterminatedLastLineWaitsForItsEnd) {
  Append(0, AuditEvent::kStart);
  absl::StatusOr<AuditQueryResult> r = QueryAuditLog(path_, {});
  ASSERT_TRUE(r.ok());
  const int fd = open(path_.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  const std::string half = R"({"seq":2,"event":"st)";
  ASSERT_EQ(write(fd, half.data(), half.size()),
            static_cast<ssize_t>(half.size()));
  r = QueryAuditLog(path_, {.cursor = r->cursor});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->records.empty());
  const std::string rest = "op\"}\n";
  ASSERT_EQ(write(fd, rest.data(), rest.size()),
            static_cast<ssize_t>(rest.size()));
  close(fd);
  r = QueryAuditLog(path_, {.cursor = r->cursor});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 1u);
  EXPECT_EQ(r->records[0]["event"], "stop");
}

class RotatingAuditQueryTest : public AuditQueryTest {
 protected:
  RotatingAuditQueryTest() { max_bytes_ = 1000; }
};

TEST_F(RotatingAuditQueryTest, TheCursorFollowsARotation) {
  Append(0, AuditEvent::kStart);
  absl::StatusOr<AuditQueryResult> r = QueryAuditLog(path_, {});
  ASSERT_TRUE(r.ok());
  const std::string cursor = r->cursor;
  int i = 1;
  while (access(absl::StrCat(path_, ".1").c_str(), F_OK) != 0) {
    Append(i++, AuditEvent::kConfigChange);
  }
  Append(i++, AuditEvent::kConfigChange);  // one in the new file
  r = QueryAuditLog(path_, {.cursor = cursor});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), static_cast<size_t>(i - 1));
  EXPECT_FALSE(r->gap);
  for (int k = 0; k < i - 1; ++k) {
    EXPECT_EQ(r->records[k]["values"]["i"], k + 1);
  }
}

TEST(AuditKindTest, KindsAreChecked) {
  EXPECT_TRUE(ValidateAuditKind("source_down").ok());
  EXPECT_TRUE(ValidateAuditKind("source_health").ok());
  EXPECT_TRUE(ValidateAuditKind("source_change").ok());
  EXPECT_TRUE(ValidateAuditKind("access_denied").ok()) << "the last kind";
  const absl::Status s = ValidateAuditKind("source_dwn");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("config_change"), std::string::npos);
}

TEST(AuditQueryMissingTest, NoFileIsNoRecords) {
  absl::StatusOr<AuditQueryResult> r =
      QueryAuditLog("/nonexistent-zg/audit.jsonl", {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->records.empty());
  EXPECT_EQ(r->cursor, "");
}

}  // namespace
}  // namespace audit_query_test
}  // namespace zg::servo
