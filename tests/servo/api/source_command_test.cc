// SPDX-License-Identifier: Apache-2.0
// The control socket's `source` command (servo/api/source_command.h) run
// through the CommandTable against a real ControlPlane on simulated clocks:
// the reply is deferred until the control step that applies the change, its
// data is SourceChangeResultJson, a refusal is a `failed` reply carrying it,
// the caller's uid reaches the audit log, a non-owner is refused before
// anything is submitted, and malformed arguments name the argument. Also
// SourceChangeTicket::OnDone, which wakes the socket's thread.
#include "servo/api/source_command.h"

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/servo/control/control_plane_fixture.h"

namespace zg::servo {
namespace source_command_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr uid_t kOwner = 4321;

class SourceCommandTest : public ControlPlaneTest {
 protected:
  void SetUp() override {
    Start(Config({"sim:base,priority=20,uncertainty=300ns"}));
    RunUntil(20);
    ASSERT_TRUE(
        AddSourceCommand(table_, control_.get(), [this](const std::string& m) {
          logged_.push_back(m);
        }).ok());
  }

  // Runs `source` with `args` as `uid`; an immediate reply, or the deferred
  // one after a control step.
  Reply Run(json args, uid_t uid = 0) {
    ControlRequest req{.command = "source", .args = std::move(args)};
    int wakes = 0;
    CommandOutcome o = table_.Run(req, {.pid = 77, .uid = uid, .gid = 0},
                                  [&wakes] { ++wakes; });
    if (Reply* r = std::get_if<Reply>(&o)) return *r;
    std::shared_ptr<DeferredReply> d = std::get<1>(o);
    if (!d->done()) {
      EXPECT_EQ(wakes, 0);
      world_.Advance(100 * kMs);
      control_->Tick();
    }
    EXPECT_TRUE(d->done()) << "answered by the step that applied it";
    EXPECT_EQ(wakes, 1) << "the waiting thread is woken once";
    return d->done() ? d->reply() : Reply::Error(ErrorCode::kTimeout, "");
  }

  CommandTable table_{kOwner};
  std::vector<std::string> logged_;
};

TEST_F(SourceCommandTest, AddThenDeleteAnsweredAfterTheStepThatAppliedThem) {
  Reply r = Run(
      {{"action", "add"}, {"spec", "sim:better,priority=10,uncertainty=300ns"}},
      kOwner);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.data["action"], "add");
  EXPECT_EQ(r.data["persistent"], false);
  EXPECT_EQ(r.data["selected"], "sim:better");
  EXPECT_EQ(r.data["changes"][0]["change"], "added");
  EXPECT_THAT(logged_.back(), HasSubstr("zgctl source add sim:better"));
  EXPECT_THAT(logged_.back(), HasSubstr("uid 4321, pid 77"));

  r = Run({{"action", "priority"}, {"name", "sim:better"}, {"priority", 30}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.data["selected"], "sim:base");
  r = Run({{"action", "delete"}, {"name", "sim:better"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.data["changes"][0]["change"], "removed");

  control_->Stop("test");
  std::vector<json> changes;
  for (json& rec : Records(audit_path_)) {
    if (rec["event"] == "source_change") changes.push_back(std::move(rec));
  }
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0]["values"]["uid"], kOwner);
  EXPECT_EQ(changes[0]["values"]["origin"], "zgctl");
  EXPECT_EQ(changes[2]["values"]["uid"], 0);
}

TEST_F(SourceCommandTest, ARefusalCarriesTheAnswerAndChangesNothing) {
  Reply r = Run({{"action", "add"}, {"spec", "sim:x,bogus=1"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, ErrorCode::kFailed);
  EXPECT_THAT(r.message, HasSubstr("unknown option 'bogus'"));
  EXPECT_EQ(r.data["ok"], false);
  EXPECT_EQ(r.data["changes"], json::array());
  r = Run({{"action", "delete"}, {"name", "sim:base"}});
  EXPECT_EQ(r.code, ErrorCode::kFailed);
  EXPECT_THAT(r.message, HasSubstr("only source"));
  ASSERT_EQ(control_->Snapshot().sources.size(), 1u);
  EXPECT_EQ(control_->Snapshot().sources[0].name, "sim:base");
}

TEST_F(SourceCommandTest, OthersAreRefusedBeforeAnythingIsSubmitted) {
  const Reply r =
      Run({{"action", "delete"}, {"name", "sim:base"}}, /*uid=*/1000);
  EXPECT_EQ(r.code, ErrorCode::kPermissionDenied);
  EXPECT_TRUE(logged_.empty());
  control_->Stop("test");
  for (const json& rec : Records(audit_path_)) {
    EXPECT_NE(rec["event"], "source_change") << rec.dump();
  }
}

TEST_F(SourceCommandTest, MalformedArgumentsNameTheArgument) {
  struct Case {
    json args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {json::object(), "'action' must be a non-empty string"},
      {{{"action", "move"}, {"name", "x"}}, "unknown action 'move'"},
      {{{"action", "add"}}, "'spec' must be a non-empty string"},
      {{{"action", "add"}, {"spec", "sim:a"}, {"priority", 1}},
       "takes a spec only"},
      {{{"action", "delete"}, {"name", 5}}, "'name' must be"},
      {{{"action", "priority"}, {"name", "sim:base"}}, "must be an integer"},
      {{{"action", "priority"}, {"name", "sim:base"}, {"priority", 5000}},
       "priority 5000: must be -1000..1000"},
      {{{"action", "enable"}, {"name", "sim:base"}, {"spec", "x"}},
       "takes a name only"},
      {{{"action", "enable"}, {"name", "sim:base"}, {"force", true}}, "force"},
  };
  for (const Case& c : cases) {
    const Reply r = Run(c.args);
    EXPECT_EQ(r.code, ErrorCode::kBadArgument) << c.args.dump();
    EXPECT_THAT(r.message, HasSubstr(c.says)) << c.args.dump();
  }
  EXPECT_TRUE(logged_.empty());
}

TEST(SourceChangeTicketTest, OnDoneRunsOnceBeforeOrAfterCompletion) {
  SourceChangeTicket late(SourceAction::kAdd);
  int calls = 0;
  late.OnDone([&](const SourceChangeResult& r) {
    ++calls;
    EXPECT_TRUE(r.ok);
  });
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(late.Take());
  SourceChangeResult ok;
  ok.ok = true;
  late.Complete(ok);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(late.Wait(absl::ZeroDuration()).ok);

  SourceChangeTicket early(SourceAction::kDelete);
  ASSERT_TRUE(early.Take());
  early.Complete(ok);
  early.OnDone([&](const SourceChangeResult&) { ++calls; });
  EXPECT_EQ(calls, 2) << "already in: called at once";
}

}  // namespace
}  // namespace source_command_test
}  // namespace zg::servo
