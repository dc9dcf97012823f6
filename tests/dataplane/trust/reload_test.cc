// SPDX-License-Identifier: Apache-2.0
// The reload plan and the flag helpers of dataplane/trust/reload.h:
// flagfile expansion, grouping by name, what changed and what needs a
// restart (no EAL needed).
#include "dataplane/trust/reload.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(int32_t, zgtest_rl_limit, 10, "test: a reloadable flag");
ABSL_FLAG(std::string, zgtest_rl_port, "0", "test: a restart-only flag");
ABSL_FLAG(bool, zgtest_rl_kod, false, "test: a reloadable bool");

namespace zg::dataplane {
namespace reload_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string TempFile(const std::string& tag, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/zg_reload_" + tag + "_" +
                           std::to_string(getpid());
  std::ofstream(path) << content;
  return path;
}

const std::vector<std::string> kReloadable = {"zgtest_rl_limit",
                                              "zgtest_rl_kod"};

TEST(ReloadPlanTest, CommitRunsEveryStagedPublicationInOrder) {
  ReloadPlan plan;
  std::vector<int> ran;
  plan.Stage("first", [&] { ran.push_back(1); });
  plan.Stage("", [&] { ran.push_back(2); });
  EXPECT_THAT(ran, IsEmpty());
  EXPECT_EQ(plan.staged(), 2u);
  EXPECT_THAT(plan.changes(), ElementsAre("first"));
  plan.Commit();
  EXPECT_THAT(ran, ElementsAre(1, 2));
  plan.Commit();  // once
  EXPECT_THAT(ran, ElementsAre(1, 2));
}

TEST(ReloadPlanTest, ADiscardedPlanPublishesNothingAndFreesItsConfigs) {
  ReaderEpochs epochs;
  SwappableConfig<int> target(std::make_unique<const int>(1), &epochs);
  {
    ReloadPlan plan;
    plan.StagePublish(target, std::make_unique<const int>(2), "to 2");
  }
  EXPECT_EQ(*target.Current(), 1);
  ReloadPlan plan;
  plan.StagePublish(target, std::make_unique<const int>(3), "to 3");
  plan.Commit();
  EXPECT_EQ(*target.Current(), 3);
}

TEST(ExpandFlagfilesTest, ReplacesFlagfilesByTheirLinesRecursively) {
  const std::string inner = TempFile("inner", "--b=2\n# comment\n\n--c=3\n");
  const std::string outer =
      TempFile("outer", "  --a=1  \n--flagfile=" + inner + "\n--d=4\n");
  absl::StatusOr<std::vector<std::string>> got =
      ExpandFlagfiles({"--x=0", "--flagfile=" + outer, "--flagfile", inner});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_THAT(*got, ElementsAre("--x=0", "--a=1", "--b=2", "--c=3", "--d=4",
                                "--b=2", "--c=3"));
}

TEST(ExpandFlagfilesTest, AnUnreadableFileIsAnError) {
  absl::StatusOr<std::vector<std::string>> got =
      ExpandFlagfiles({"--flagfile=/nonexistent/zg.flags"});
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("/nonexistent/zg.flags"));
}

TEST(ExpandFlagfilesTest, ASelfIncludingFileIsBounded) {
  const std::string path =
      ::testing::TempDir() + "/zg_reload_loop_" + std::to_string(getpid());
  std::ofstream(path) << "--flagfile=" << path << "\n";
  absl::StatusOr<std::vector<std::string>> got =
      ExpandFlagfiles({"--flagfile=" + path});
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("nesting"));
}

TEST(GroupFlagsTest, GroupsOccurrencesByNameInOrder) {
  const std::vector<FlagOccurrences> g =
      GroupFlags({"--b=1", "-a", "x", "--b=2", "--nozgtest_rl_kod", "--c", "--",
                  "--after=1"});
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].name, "a");
  EXPECT_THAT(g[0].values, ElementsAre("x"));
  EXPECT_EQ(g[1].name, "b");
  EXPECT_THAT(g[1].values, ElementsAre("1", "2"));
  EXPECT_EQ(g[2].name, "c");
  EXPECT_THAT(g[2].values, ElementsAre(""));
  EXPECT_EQ(g[3].name, "zgtest_rl_kod");
  EXPECT_THAT(g[3].values, ElementsAre("false"));
}

TEST(DiffFlagsTest, SortsChangesIntoReloadableAndNeedsRestart) {
  const FlagDiff d = DiffFlags(
      {"--zgtest_rl_limit=10", "--zgtest_rl_port=0", "--zgtest_rl_kod"},
      {"--zgtest_rl_limit=20", "--zgtest_rl_port=1", "--zgtest_rl_kod"},
      kReloadable);
  EXPECT_THAT(d.reloadable, ElementsAre("zgtest_rl_limit"));
  EXPECT_THAT(d.needs_restart, ElementsAre("zgtest_rl_port"));
  EXPECT_THAT(d.unknown, IsEmpty());
  EXPECT_THAT(d.descriptions, ElementsAre("zgtest_rl_limit: 10 -> 20",
                                          "zgtest_rl_port: 0 -> 1"));
}

TEST(DiffFlagsTest, AddedAndRemovedFlagsAreChanges) {
  const FlagDiff d =
      DiffFlags({"--zgtest_rl_limit=10"}, {"--zgtest_rl_kod"}, kReloadable);
  EXPECT_THAT(d.reloadable, ElementsAre("zgtest_rl_kod", "zgtest_rl_limit"));
  EXPECT_THAT(d.descriptions, ElementsAre("zgtest_rl_kod: (default) -> ",
                                          "zgtest_rl_limit: 10 -> (default)"));
}

TEST(DiffFlagsTest, UnknownFlagsAreReported) {
  const FlagDiff d = DiffFlags({}, {"--zgtest_no_such_flag=1"}, kReloadable);
  EXPECT_THAT(d.unknown, ElementsAre("zgtest_no_such_flag"));
}

}  // namespace
}  // namespace reload_test
}  // namespace zg::dataplane
