// SPDX-License-Identifier: Apache-2.0
// Live source changes on the control plane (servo/control/source_change.h),
// on simulated clocks: adding a better sim: source selects it in the step
// that applies it; deleting the selected one hands back with no step (the
// served time continuous from model to model and within its bound of the
// truth); enable, disable and priority move the selection at once; a bad
// request is refused with the sources in force unchanged; a replacement
// (the flagfile reload) applies only the difference; every change, and
// every refusal, is in the audit log with the caller's uid; the answer's
// JSON is what doc/zgctl.md says.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "servo/control/control_plane.h"
#include "servo/control/source_change.h"
#include "tests/servo/control/control_plane_fixture.h"

namespace zg::servo {
namespace source_changes_test {
namespace {

using ::testing::HasSubstr;

SourceChangeRequest Add(std::string spec) {
  SourceChangeRequest r;
  r.action = SourceAction::kAdd;
  r.spec = std::move(spec);
  r.uid = 1000;
  r.origin = "zgctl";
  return r;
}

SourceChangeRequest On(SourceAction action, std::string name,
                       int priority = 0) {
  SourceChangeRequest r;
  r.action = action;
  r.name = std::move(name);
  r.priority = priority;
  r.uid = 0;
  r.origin = "zgctl";
  return r;
}

SourceChangeRequest ReplaceAll(std::vector<std::string> specs) {
  SourceChangeRequest r;
  r.action = SourceAction::kReplaceAll;
  r.specs = std::move(specs);
  r.origin = "reload";
  r.from_flagfile = true;
  return r;
}

class SourceChangesTest : public ControlPlaneTest {
 protected:
  // Submits `r`, runs one control step (100 ms), and returns the answer.
  SourceChangeResult Change(SourceChangeRequest r) {
    std::shared_ptr<SourceChangeTicket> t =
        control_->SubmitSourceChange(std::move(r));
    Step();
    return t->Wait(absl::ZeroDuration());
  }

  // One control step; checks that the served time stayed continuous (the
  // new model and the previous one agree now) and within the bound.
  void Step() {
    const core::ClockModel before = Published();
    world_.Advance(100 * kMs);
    control_->Tick();
    const core::ClockModel after = Published();
    const uint64_t raw = world_.Tsc();
    if (before.state == core::SyncState::kLocked) {
      const int64_t jump =
          after.RawToTai(raw).value - before.RawToTai(raw).value;
      EXPECT_LE(std::llabs(jump), 20)
          << "the served time jumped " << jump << " ns at tick " << ticks_;
      EXPECT_LE(std::llabs(ServedError()),
                after.ErrorBoundNs(after.RawToTai(raw)));
    }
    ++ticks_;
  }

  void Steps(int n) {
    for (int i = 0; i < n; ++i) Step();
  }

  std::string Selected() {
    for (const SourceSnapshot& s : control_->Snapshot().sources) {
      if (s.discipline.selected) return s.name;
    }
    return "";
  }

  std::vector<std::string> Names() {
    std::vector<std::string> names;
    for (const SourceSnapshot& s : control_->Snapshot().sources) {
      names.push_back(s.name);
    }
    return names;
  }

  // The audit log's source_change records.
  std::vector<nlohmann::json> SourceChanges() {
    std::vector<nlohmann::json> out;
    for (nlohmann::json& r : Records(audit_path_)) {
      if (r["event"] == "source_change") out.push_back(std::move(r));
    }
    return out;
  }

  int ticks_ = 0;
};

TEST_F(SourceChangesTest, AddingABetterSourceSelectsItDeletingItHandsBack) {
  Start(Config({"sim:base,priority=20,uncertainty=300ns"}));
  RunUntil(20);
  ASSERT_EQ(Published().state, core::SyncState::kLocked);
  const uint64_t steps = control_->Snapshot().discipline.steps;

  SourceChangeResult r =
      Change(Add("sim:better,priority=10,uncertainty=300ns"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.action, SourceAction::kAdd);
  EXPECT_FALSE(r.persistent) << "only a flagfile change survives a restart";
  EXPECT_EQ(r.selected, "sim:better") << "selected in the step that added it";
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].source, "sim:better");
  EXPECT_EQ(r.changes[0].change, "added");
  EXPECT_EQ(r.changes[0].priority, 10);
  EXPECT_EQ(Selected(), "sim:better");
  Steps(100);  // 10 s on the new source
  EXPECT_EQ(Published().state, core::SyncState::kLocked);
  ControlPlaneStatus st = control_->Snapshot();
  ASSERT_EQ(st.sources.size(), 2u);
  EXPECT_EQ(st.sources[1].spec, "sim:better,priority=10,uncertainty=300ns");
  EXPECT_GE(st.sources[1].discipline.accepted, 9u) << "one a second";

  r = Change(On(SourceAction::kDelete, "sim:better"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.selected, "sim:base") << "handed back at once, as on a loss";
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].change, "removed");
  Steps(100);
  st = control_->Snapshot();
  EXPECT_EQ(Names(), std::vector<std::string>{"sim:base"});
  EXPECT_EQ(st.discipline.state, core::SyncState::kLocked)
      << "no holdover on the way";
  EXPECT_EQ(st.discipline.steps, steps) << "no step for either change";
  control_->Stop("test");

  const std::vector<std::string> events = Events(audit_path_);
  const auto first_lock = std::find(events.begin(), events.end(), "lock");
  ASSERT_NE(first_lock, events.end());
  EXPECT_EQ(std::count(first_lock, events.end(), "step"), 0);
  EXPECT_EQ(std::count(first_lock, events.end(), "holdover_enter"), 0);
  EXPECT_EQ(std::count(events.begin(), events.end(), "selection_switch"), 3)
      << "to base at start, to better, back to base";
  const std::vector<nlohmann::json> changes = SourceChanges();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0]["source"], "sim:better");
  EXPECT_EQ(changes[0]["old"], "absent");
  EXPECT_EQ(changes[0]["new"], "enabled");
  EXPECT_EQ(changes[0]["values"]["action"], "add");
  EXPECT_EQ(changes[0]["values"]["uid"], 1000);
  EXPECT_EQ(changes[0]["values"]["origin"], "zgctl");
  EXPECT_EQ(changes[0]["values"]["outcome"], "ok");
  EXPECT_EQ(changes[0]["values"]["persistent"], false);
  EXPECT_EQ(changes[0]["values"]["spec"],
            "sim:better,priority=10,uncertainty=300ns");
  EXPECT_EQ(changes[1]["source"], "sim:better");
  EXPECT_EQ(changes[1]["old"], "enabled");
  EXPECT_EQ(changes[1]["new"], "absent");
  EXPECT_EQ(changes[1]["values"]["action"], "delete");
  EXPECT_EQ(changes[1]["values"]["uid"], 0);
  EXPECT_THAT(log_, ::testing::Contains(HasSubstr(
                        "sources: add (zgctl, uid 1000): added sim:better")));
}

TEST_F(SourceChangesTest, EnableDisableAndPriorityMoveTheSelectionAtOnce) {
  Start(Config({"sim:a,priority=10,uncertainty=300ns",
                "sim:b,priority=20,uncertainty=300ns"}));
  RunUntil(15);
  ASSERT_EQ(Selected(), "sim:a");
  const uint64_t steps = control_->Snapshot().discipline.steps;

  SourceChangeResult r = Change(On(SourceAction::kDisable, "sim:a"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.selected, "sim:b");
  EXPECT_EQ(r.changes[0].change, "disabled");
  EXPECT_FALSE(r.changes[0].enabled);
  const uint64_t samples_a = control_->Snapshot().sources[0].discipline.samples;
  Steps(20);
  ControlPlaneStatus st = control_->Snapshot();
  EXPECT_FALSE(st.sources[0].enabled);
  EXPECT_FALSE(st.sources[0].discipline.enabled);
  EXPECT_GT(st.sources[0].discipline.samples, samples_a)
      << "a disabled source is still measured";
  EXPECT_EQ(Selected(), "sim:b");
  // Disabling twice changes nothing (and is not audited again).
  r = Change(On(SourceAction::kDisable, "sim:a"));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.changes[0].change, "unchanged");

  r = Change(On(SourceAction::kEnable, "sim:a"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.selected, "sim:a") << "no hysteresis for an operator's change";
  r = Change(On(SourceAction::kPriority, "sim:a", 30));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.selected, "sim:b");
  EXPECT_EQ(r.changes[0].change, "priority");
  EXPECT_EQ(r.changes[0].priority, 30);
  EXPECT_EQ(control_->Snapshot().sources[0].priority, 30);
  r = Change(On(SourceAction::kPriority, "sim:b", 40));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.selected, "sim:a");
  Steps(50);
  EXPECT_EQ(Selected(), "sim:a");
  EXPECT_EQ(control_->Snapshot().discipline.steps, steps);
  EXPECT_EQ(Published().state, core::SyncState::kLocked);
  control_->Stop("test");

  std::vector<std::string> what;
  for (const nlohmann::json& c : SourceChanges()) {
    what.push_back(c["source"].get<std::string>() + " " +
                   c["values"]["change"].get<std::string>());
  }
  EXPECT_EQ(what,
            (std::vector<std::string>{"sim:a disabled", "sim:a enabled",
                                      "sim:a priority", "sim:b priority"}));
  EXPECT_EQ(SourceChanges()[2]["values"]["old_priority"], 10);
}

TEST_F(SourceChangesTest, BadRequestsAreRefusedWithTheOldSourcesInForce) {
  Start(Config({"sim:a,priority=10,uncertainty=300ns",
                "sim:b,priority=20,uncertainty=300ns"}));
  RunUntil(10);

  // A spec that does not parse is answered at once, before any step.
  std::shared_ptr<SourceChangeTicket> t =
      control_->SubmitSourceChange(Add("sim:x,bogus=1"));
  SourceChangeResult r = t->Wait(absl::ZeroDuration());
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("--source=sim:x,bogus=1: unknown option "
                                 "'bogus' for sim"));
  EXPECT_FALSE(r.selected.has_value());
  Step();  // the control thread audits it
  // One that cannot be built: the device does not exist.
  r = Change(Add("phc:/dev/zg-no-such-ptp"));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("--source=phc:/dev/zg-no-such-ptp: "));
  // One that conflicts with the sources in force.
  r = Change(Add("sim:a,priority=1"));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("a source named 'sim:a' is already "
                                 "configured"));
  r = Change(Add("pps:/dev/zg-no-such-pps,coarse=gpsd"));
  EXPECT_FALSE(r.ok);
  r = Change(On(SourceAction::kDelete, "sim:c"));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error,
              HasSubstr("no source named 'sim:c' (configured: sim:a, sim:b)"));
  r = Change(On(SourceAction::kEnable, std::string(1 << 20, 'x')));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("a source name of 1..1024 bytes"));
  r = Change(On(SourceAction::kPriority, "sim:a", 5000));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("must be -1000..1000"));
  r = Change(ReplaceAll({"sim:a,priority=10,uncertainty=300ns", "sim:b,x"}));
  EXPECT_FALSE(r.ok);
  r = Change(ReplaceAll({"sim:a", "sim:a,priority=3"}));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("two sources named 'sim:a'"));
  EXPECT_FALSE(Change(ReplaceAll({})).ok);
  ASSERT_TRUE(Change(On(SourceAction::kDelete, "sim:b")).ok);
  r = Change(On(SourceAction::kDelete, "sim:a"));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("'sim:a' is the only source"));

  EXPECT_EQ(Names(), std::vector<std::string>{"sim:a"});
  EXPECT_EQ(Selected(), "sim:a");
  Steps(10);
  EXPECT_EQ(Published().state, core::SyncState::kLocked);
  control_->Stop("test");
  int rejected = 0;
  for (const nlohmann::json& c : SourceChanges()) {
    if (c["values"]["outcome"] == "rejected") {
      ++rejected;
      EXPECT_FALSE(c["values"]["error"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(rejected, 11) << "every refusal is audited";
}

TEST_F(SourceChangesTest, ReplacementAppliesOnlyTheDifference) {
  Start(Config({"sim:a,priority=10,uncertainty=300ns",
                "sim:b,priority=20,uncertainty=300ns",
                "sim:c,priority=30,uncertainty=300ns"}));
  RunUntil(10);
  ASSERT_TRUE(Change(On(SourceAction::kDisable, "sim:c")).ok);
  const uint64_t samples_a = control_->Snapshot().sources[0].discipline.samples;

  // The flagfile now: a re-prioritised (kept, not rebuilt), b gone, c as
  // before (enabled again: the flagfile is the truth), d new.
  absl::StatusOr<PreparedSourceChange> p = control_->PrepareSourceChangeNow(
      ReplaceAll({"sim:a,priority=40,uncertainty=300ns",
                  "sim:c,priority=30,uncertainty=300ns",
                  "sim:d,priority=5,uncertainty=300ns"}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->changes_anything);
  EXPECT_EQ(p->names_after,
            (std::vector<std::string>{"sim:a", "sim:c", "sim:d"}));
  EXPECT_EQ(p->built[0].source, nullptr) << "a priority does not rebuild";
  EXPECT_EQ(p->built[1].source, nullptr);
  EXPECT_NE(p->built[2].source, nullptr);
  SourceChangeResult r = control_->CommitSourceChange(*std::move(p));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.persistent);
  std::vector<std::string> what;
  for (const SourceChangeEntry& e : r.changes) {
    what.push_back(e.source + " " + e.change);
  }
  EXPECT_EQ(what, (std::vector<std::string>{"sim:a priority", "sim:c enabled",
                                            "sim:d added", "sim:b removed"}));
  Steps(1);
  EXPECT_EQ(Names(), (std::vector<std::string>{"sim:a", "sim:c", "sim:d"}));
  EXPECT_EQ(Selected(), "sim:d");
  Steps(15);
  const ControlPlaneStatus st = control_->Snapshot();
  EXPECT_GT(st.sources[0].discipline.samples, samples_a)
      << "sim:a kept its history";
  EXPECT_EQ(st.sources[0].priority, 40);
  EXPECT_TRUE(st.sources[1].enabled);

  // The same flagfile again: nothing to do.
  p = control_->PrepareSourceChangeNow(
      ReplaceAll({"sim:a,priority=40,uncertainty=300ns",
                  "sim:c,priority=30,uncertainty=300ns",
                  "sim:d,priority=5,uncertainty=300ns"}));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->changes_anything);
  // A new spec under a name in force replaces that source.
  r = Change(ReplaceAll({"sim:a,priority=40,uncertainty=300ns",
                         "sim:c,priority=30,uncertainty=300ns",
                         "sim:d,priority=5,uncertainty=400ns"}));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.changes.size(), 3u);
  EXPECT_EQ(r.changes[2].change, "replaced");
  EXPECT_EQ(r.selected, "sim:d");
  Steps(30);
  EXPECT_EQ(Published().state, core::SyncState::kLocked);
  control_->Stop("test");
  const std::vector<nlohmann::json> changes = SourceChanges();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back()["values"]["change"], "replaced");
  EXPECT_EQ(changes.back()["values"]["old_spec"],
            "sim:d,priority=5,uncertainty=300ns");
  EXPECT_EQ(changes.back()["values"]["persistent"], true);
  EXPECT_EQ(changes.back()["values"]["origin"], "reload");
}

TEST_F(SourceChangesTest, UntakenRequestsAreWithdrawnOrAnsweredAtStop) {
  Start(Config({"sim:a,uncertainty=300ns"}));
  RunUntil(3);
  std::shared_ptr<SourceChangeTicket> t =
      control_->SubmitSourceChange(Add("sim:b"));
  SourceChangeResult r = t->Wait(absl::ZeroDuration());
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("withdrawn"));
  Step();
  EXPECT_EQ(Names(), std::vector<std::string>{"sim:a"}) << "never applied";
  t = control_->SubmitSourceChange(Add("sim:c"));
  control_->Stop("test");
  r = t->Wait(absl::ZeroDuration());
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("stopping"));
  r = control_->SubmitSourceChange(Add("sim:d"))->Wait(absl::ZeroDuration());
  EXPECT_THAT(r.error, HasSubstr("stopping"));
}

TEST(SourceChangeJsonTest, TheShapeDocumentedInZgctlMd) {
  SourceChangeResult r;
  r.ok = true;
  r.action = SourceAction::kAdd;
  r.selected = "sim:better";
  r.changes.push_back(
      {"sim:better", "added", "sim:better,priority=1", 1, true});
  EXPECT_EQ(SourceChangeResultJson(r),
            nlohmann::json::parse(R"({"ok":true,"action":"add",
      "persistent":false,"selected":"sim:better","changes":[
      {"source":"sim:better","change":"added","spec":"sim:better,priority=1",
       "priority":1,"enabled":true}]})"));
  SourceChangeResult bad;
  bad.action = SourceAction::kReplaceAll;
  bad.error = "--source=sim:x,bogus=1: unknown option";
  EXPECT_EQ(SourceChangeResultJson(bad),
            nlohmann::json::parse(R"({"ok":false,"action":"replace_all",
      "persistent":false,"error":"--source=sim:x,bogus=1: unknown option",
      "changes":[]})"));
}

TEST(SourceSpecKeyTest, IgnoresOnlyThePriority) {
  auto key = [](const char* text) {
    absl::StatusOr<SourceSpec> s = ParseSourceSpec(text);
    EXPECT_TRUE(s.ok()) << s.status();
    return SourceSpecKey(*s);
  };
  EXPECT_EQ(key("sim:a,priority=3,noise=1us"), "sim:a,noise=1us");
  EXPECT_EQ(key("sim:priority=3,noise=1us"), "sim,noise=1us");
  EXPECT_EQ(key("gpsd:127.0.0.1:2947"), "gpsd:127.0.0.1:2947");
  EXPECT_NE(key("sim:a,noise=1us"), key("sim:a,noise=2us"));
}

}  // namespace
}  // namespace source_changes_test
}  // namespace zg::servo
