// SPDX-License-Identifier: Apache-2.0
// Live time sources through the flagfile, end to end: zeitgeberd on the veth
// rig (tests/e2e/zeitgeberd_rig.h) with --source in its flagfile, following
// a simulated reference. The flagfile is edited and zeitgeberd gets SIGHUP
// (dataplane/daemon/source_reload.h):
//  1. a better sim: source added (priority 1) is selected: its
//     zeitgeber_source_selected is 1, the reload is counted ok;
//  2. removed again, selection hands back to the first source without a
//     step: zeitgeber_discipline_steps_total does not move, the discipline
//     stays locked, the removed source's series are gone;
//  3. a bad --source is refused (the reload counted rejected) with the old
//     source still in force and selected.
// The audit log holds each change as a source_change record (origin
// "reload", persistent), the refused reload (config_change, rejected, with
// the bad spec in its error), the selection switches, and no step after the
// first lock.
//
// Needs root (namespaces, XDP); skipped otherwise. About 10 s.
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/netns.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace live_sources_test {
namespace {

using testutil::NetnsRig;
using testutil::RigConfig;

constexpr char kBase[] =
    "--source=sim:base,priority=10,uncertainty=20us,interval=250ms";
constexpr char kBetter[] =
    "--source=sim:better,priority=1,uncertainty=20us,interval=250ms";

void WriteFlagfile(const std::string& path,
                   const std::vector<std::string>& lines) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << absl::StrJoin(lines, "\n") << "\n";
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

std::vector<nlohmann::json> AuditRecords(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

TEST(LiveSourcesE2eTest, FlagfileReloadAddsRemovesAndRefusesSources) {
  if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
  if (!testutil::ProgramAvailable("curl")) GTEST_SKIP() << "curl missing";
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("livesrc");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string flags = dir->File("zeitgeberd.flags");
  const std::string audit = dir->File("audit.jsonl");
  WriteFlagfile(flags, {kBase});

  RigConfig config;
  config.name = testutil::UniqueRigName("zgs");
  config.server_cidr6.clear();
  absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config);
  ASSERT_TRUE(rig.ok()) << rig.status();
  ZeitgeberdOptions options;
  options.extra_flags = {"--flagfile=" + flags, "--audit_log=" + audit,
                         "--audit_fsync=every_record"};
  absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
      Zeitgeberd::Start(**rig, config, options);
  ASSERT_TRUE(zg.ok()) << zg.status();
  const std::map<std::string, std::string> base = {{"source", "sim:base"}};
  const std::map<std::string, std::string> better = {{"source", "sim:better"}};
  absl::StatusOr<std::string> m = (*zg)->WaitForMetrics(
      {{"zeitgeber_discipline_state", {{"state", "locked"}}, 1},
       {"zeitgeber_source_selected", base, 1}},
      absl::Seconds(20));
  ASSERT_TRUE(m.ok()) << m.status() << (*zg)->Log();
  const double steps = MetricSum(*m, "zeitgeber_discipline_steps_total");

  // 1. A better source in the flagfile: selected after the reload.
  WriteFlagfile(flags, {kBase, kBetter});
  ASSERT_TRUE((*zg)->Hangup().ok());
  m = (*zg)->WaitForMetrics(
      {{"zeitgeber_config_reloads_total", {{"outcome", "ok"}}, 1},
       {"zeitgeber_source_selected", better, 1}});
  ASSERT_TRUE(m.ok()) << m.status() << (*zg)->Log();
  EXPECT_EQ(MetricSum(*m, "zeitgeber_source_selected", base), 0);

  // 2. Removed again: back to sim:base, no step, still locked.
  WriteFlagfile(flags, {kBase});
  ASSERT_TRUE((*zg)->Hangup().ok());
  m = (*zg)->WaitForMetrics(
      {{"zeitgeber_config_reloads_total", {{"outcome", "ok"}}, 2},
       {"zeitgeber_source_selected", base, 1}});
  ASSERT_TRUE(m.ok()) << m.status() << (*zg)->Log();
  EXPECT_FALSE(absl::StrContains(*m, "sim:better")) << "series left behind";
  EXPECT_EQ(MetricSum(*m, "zeitgeber_discipline_steps_total"), steps);
  EXPECT_EQ(MetricSum(*m, "zeitgeber_discipline_state", {{"state", "locked"}}),
            1);

  // 3. A bad spec: the reload is refused, sim:base stays in force.
  WriteFlagfile(flags, {kBase, "--source=sim:broken,bogus=1"});
  ASSERT_TRUE((*zg)->Hangup().ok());
  m = (*zg)->WaitForMetrics(
      {{"zeitgeber_config_reloads_total", {{"outcome", "rejected"}}, 1}});
  ASSERT_TRUE(m.ok()) << m.status() << (*zg)->Log();
  EXPECT_EQ(MetricSum(*m, "zeitgeber_source_selected", base), 1);
  EXPECT_FALSE(absl::StrContains(*m, "sim:broken"));
  EXPECT_EQ(MetricSum(*m, "zeitgeber_discipline_steps_total"), steps);
  ASSERT_TRUE((*zg)->Stop().ok()) << (*zg)->Log();
  EXPECT_TRUE(absl::StrContains((*zg)->Log(), "unknown option 'bogus'"))
      << (*zg)->Log();

  std::vector<std::string> changes, switches;
  bool locked = false;
  for (const nlohmann::json& r : AuditRecords(audit)) {
    const std::string event = r.value("event", "");
    const nlohmann::json values = r.value("values", nlohmann::json::object());
    if (event == "lock") locked = true;
    if (event == "step") {
      EXPECT_FALSE(locked) << "a step after the lock";
    }
    if (event == "selection_switch") switches.push_back(r.value("source", ""));
    // The reload's own record: the bad spec is refused with the flags.
    if (event == "config_change" && values.value("outcome", "") == "rejected") {
      changes.push_back("rejected");
      EXPECT_TRUE(absl::StrContains(values.value("error", ""),
                                    "--source=sim:broken,bogus=1"))
          << r.dump();
    }
    if (event != "source_change") continue;
    EXPECT_EQ(values.value("origin", ""), "reload");
    EXPECT_EQ(values.value("persistent", false), true);
    changes.push_back(r.value("source", "") + " " + values.value("change", ""));
  }
  EXPECT_EQ(changes,
            (std::vector<std::string>{"sim:better added", "sim:better removed",
                                      "rejected"}));
  EXPECT_EQ(switches,
            (std::vector<std::string>{"sim:base", "sim:better", "sim:base"}));
}

}  // namespace
}  // namespace live_sources_test
}  // namespace zg::e2e
