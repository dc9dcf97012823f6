// SPDX-License-Identifier: Apache-2.0
#include "servo/leap/leap_file.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/time/leap_seconds.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::servo {
namespace leap_file_test {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kS = core::kNanosPerSecond;
constexpr core::UtcNs k2026Jan01{1'767'225'600 * kS};  // built-in still valid
constexpr core::UtcNs k2027Jan15{1'800'000'000 * kS};  // built-in expired
constexpr core::UtcNs k2030Jan01{1'893'456'000 * kS};
constexpr core::UtcNs k2038Jan01{2'145'916'800 * kS};

std::string ReadData(const std::string& name) {
  const char* dir = std::getenv("ZG_TEST_DATA_DIR");
  const std::string path =
      absl::StrCat(dir != nullptr ? dir : "tests/data", "/", name);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LeapFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() /
                        absl::StrCat("zg-leap-file-", getpid(), "-XXXXXX"))
                           .string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // Writes `content` to a new file in the temp dir; returns its path.
  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out << content;
    EXPECT_TRUE(out.good());
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(LeapFileTest, CurrentFileIsUsedWithoutWarnings) {
  const std::string path = Write("l.list", ReadData("leap-seconds.list"));
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_THAT(load.warnings, IsEmpty());
  EXPECT_FALSE(load.table.is_built_in());
  EXPECT_EQ(load.table.entries().size(), 28u);
}

TEST_F(LeapFileTest, MissingFileFallsBackToBuiltIn) {
  const std::string path = (dir_ / "absent.list").string();
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_TRUE(load.table.is_built_in());
  EXPECT_THAT(load.warnings,
              ElementsAre(absl::StrCat(
                  "leap-second file ", path,
                  ": cannot open: No such file or directory; using the "
                  "built-in table (TAI-UTC 37 s since 2017-01-01, 28 entries, "
                  "updated 2025-07-07, expires 2026-06-28 (built-in))")));
}

TEST_F(LeapFileTest, MissingFileAndExpiredBuiltInWarnTwice) {
  const LeapTableLoad load =
      LoadLeapTable((dir_ / "absent.list").string(), k2027Jan15);
  EXPECT_TRUE(load.table.is_built_in());
  ASSERT_EQ(load.warnings.size(), 2u);
  EXPECT_THAT(load.warnings[1],
              AllOf(HasSubstr("the built-in leap-second table expired on "
                              "2026-06-28"),
                    HasSubstr("install a current leap-seconds.list")));
}

TEST_F(LeapFileTest, NotARegularFile) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {dir_.string(), fifo}) {
    const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);  // no hang
    EXPECT_TRUE(load.table.is_built_in());
    ASSERT_EQ(load.warnings.size(), 1u);
    EXPECT_THAT(load.warnings[0], HasSubstr(": not a regular file; using"));
  }
}

TEST_F(LeapFileTest, UnreadablePath) {
  const std::string file = Write("plain", "x");
  const LeapTableLoad load = LoadLeapTable(file + "/child", k2026Jan01);
  EXPECT_TRUE(load.table.is_built_in());
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_THAT(load.warnings[0], HasSubstr("cannot open: Not a directory"));
}

// The refusal is the kernel's, so it is tested as a user it applies to: in a
// child process that, when run as root (CI), first drops to nobody (65534)
// and gives up root's supplementary groups. The child reports what
// LoadLeapTable returned through a pipe and its exit status.
TEST_F(LeapFileTest, PermissionDenied) {
  const std::string path = Write("l.list", ReadData("leap-seconds.list"));
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  // nobody may search the directory: only the file's own mode refuses it.
  ASSERT_EQ(chmod(dir_.c_str(), 0711), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork: " << std::strerror(errno);
  if (pid == 0) {
    close(fds[0]);
    std::string report;
    int code = 0;
    const auto fail = [&](const char* what) {
      report = absl::StrCat("child: ", what, ": ", std::strerror(errno));
      code = 1;
    };
    if (geteuid() == 0) {
      constexpr uid_t kNobody = 65534;
      if (setgroups(0, nullptr) != 0) {
        fail("setgroups(0)");
      } else if (setgid(kNobody) != 0) {
        fail("setgid(65534)");
      } else if (setuid(kNobody) != 0) {
        fail("setuid(65534)");
      }
    }
    if (code == 0) {
      const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
      report = absl::StrCat("euid ", geteuid(), "\n",
                            load.table.is_built_in() ? "built-in" : "file");
      for (const std::string& w : load.warnings)
        absl::StrAppend(&report, "\n", w);
    }
    for (size_t done = 0; done < report.size();) {
      const ssize_t n =
          write(fds[1], report.data() + done, report.size() - done);
      if (n <= 0) _exit(2);
      done += static_cast<size_t>(n);
    }
    _exit(code);
  }
  close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << "read: " << std::strerror(errno);
    report.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "child status " << status << ": " << report;
  const std::vector<std::string> lines = absl::StrSplit(report, '\n');
  ASSERT_GE(lines.size(), 2u) << report;
  EXPECT_NE(lines[0], "euid 0") << "the child kept root";
  EXPECT_EQ(lines[1], "built-in") << "the unreadable file was read: " << report;
  ASSERT_EQ(lines.size(), 3u) << "one warning expected: " << report;
  EXPECT_THAT(lines[2], HasSubstr("cannot open: Permission denied"));
}

TEST_F(LeapFileTest, OversizedFileIsNotRead) {
  const std::string path =
      Write("big.list", std::string(kMaxLeapFileBytes + 1, '#'));
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_TRUE(load.table.is_built_in());
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_THAT(load.warnings[0],
              HasSubstr("1048577 bytes, more than the 1048576"));
}

TEST_F(LeapFileTest, CorruptFileFallsBackToBuiltIn) {
  std::string text = ReadData("leap-seconds.list");
  text.replace(text.find("3692217600      37"), 18, "3692217600      38");
  const std::string path = Write("corrupt.list", text);
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_TRUE(load.table.is_built_in());
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_THAT(load.warnings[0],
              AllOf(HasSubstr(absl::StrCat("leap-second file ", path,
                                           ": leap-seconds.list: SHA-1 "
                                           "mismatch: line 120")),
                    HasSubstr("using the built-in table")));
}

TEST_F(LeapFileTest, GarbageAndEmptyFiles) {
  for (const std::string& content :
       {std::string(), std::string("\0\xff", 2), std::string("hello\n")}) {
    const LeapTableLoad load =
        LoadLeapTable(Write("g.list", content), k2026Jan01);
    EXPECT_TRUE(load.table.is_built_in());
    ASSERT_EQ(load.warnings.size(), 1u);
    EXPECT_THAT(load.warnings[0], HasSubstr("leap-seconds.list"));
  }
}

TEST_F(LeapFileTest, ExpiredFileOlderThanBuiltInIsReplaced) {
  const std::string path =
      Write("old.list", ReadData("leap-seconds-2016.list"));
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_TRUE(load.table.is_built_in());
  EXPECT_THAT(load.warnings,
              ElementsAre(AllOf(HasSubstr("expired on 2017-06-28"),
                                HasSubstr("using the built-in table"))));
  // Before its expiry the same file is used.
  const LeapTableLoad early =
      LoadLeapTable(path, core::UtcNs{1'490'000'000 * kS});  // 2017-03
  EXPECT_FALSE(early.table.is_built_in());
  EXPECT_THAT(early.warnings, IsEmpty());
}

TEST_F(LeapFileTest, ExpiredFileNewerThanBuiltInIsKeptWithWarning) {
  const std::string path =
      Write("syn.list", ReadData("leap-seconds-synthetic.list"));
  const LeapTableLoad current = LoadLeapTable(path, k2030Jan01);
  EXPECT_FALSE(current.table.is_built_in());
  EXPECT_EQ(current.table.entries().size(), 30u);
  EXPECT_THAT(current.warnings, IsEmpty());

  const LeapTableLoad load = LoadLeapTable(path, k2038Jan01);
  EXPECT_FALSE(load.table.is_built_in());
  EXPECT_EQ(load.table.entries().size(), 30u);
  EXPECT_THAT(load.warnings,
              ElementsAre(AllOf(HasSubstr("still used: newer than the "
                                          "built-in table"),
                                HasSubstr("expired on 2037-07-01"))));
}

TEST_F(LeapFileTest, FileThatContradictsBuiltInIsFlagged) {
  const std::string path =
      Write("bad.list", ReadData("leap-seconds-disagrees.list"));
  const LeapTableLoad load = LoadLeapTable(path, k2026Jan01);
  EXPECT_FALSE(load.table.is_built_in());
  EXPECT_THAT(load.warnings,
              ElementsAre(HasSubstr("it says TAI-UTC is 36 s on 2017-01-01, "
                                    "the built-in table says 37 s")));
}

}  // namespace
}  // namespace leap_file_test
}  // namespace zg::servo
