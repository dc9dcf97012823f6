// SPDX-License-Identifier: Apache-2.0
// CommandTable: dispatch, who may change things, and the control-thread
// request queue the changes go through.
#include "servo/api/command_table.h"

#include <thread>

#include "gtest/gtest.h"

namespace zg::servo {
namespace command_table_test {
namespace {

using nlohmann::json;

constexpr uid_t kOwner = 4242;

CommandTable Table() {
  CommandTable t(kOwner);
  EXPECT_TRUE(t.Add({.name = "read",
                     .summary = "r",
                     .run = [](const CommandCall&) -> CommandOutcome {
                       return Reply::Ok({{"x", 1}});
                     }})
                  .ok());
  EXPECT_TRUE(t.Add({.name = "change",
                     .summary = "c",
                     .access = CommandAccess::kChange,
                     .run = [](const CommandCall& c) -> CommandOutcome {
                       return Reply::Ok({{"by", c.caller.uid}});
                     }})
                  .ok());
  EXPECT_TRUE(
      t.Add({.name = "level",
             .summary = "l",
             .access = CommandAccess::kChange,
             .reads_without_args = true,
             .run = [](const CommandCall& c) -> CommandOutcome {
               if (auto e = CheckArgs(c.args, {"level"})) return *e;
               // A type error in a command is a bad argument.
               if (!c.args.empty()) {
                 return Reply::Ok({{"level", c.args["level"].get<int>()}});
               }
               return Reply::Ok({{"level", 1}});
             }})
          .ok());
  return t;
}

Reply RunNow(const CommandTable& t, const std::string& command, json args,
             uid_t uid) {
  ControlRequest r;
  r.command = command;
  r.args = std::move(args);
  CommandOutcome o = t.Run(r, Caller{1, uid, 1});
  return std::get<Reply>(o);
}

TEST(CommandTableTest, ReadsAreOpenChangesAreForRootAndTheOwner) {
  const CommandTable t = Table();
  EXPECT_TRUE(RunNow(t, "read", json::object(), 1000).ok);
  const Reply refused = RunNow(t, "change", json::object(), 1000);
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.code, ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.message.find("uid 4242"), std::string::npos);
  EXPECT_NE(refused.message.find("you are uid 1000"), std::string::npos);
  EXPECT_EQ(RunNow(t, "change", json::object(), 0).data["by"], 0);
  EXPECT_EQ(RunNow(t, "change", json::object(), kOwner).data["by"], kOwner);
}

TEST(CommandTableTest, AChangeMayReadWithoutArguments) {
  const CommandTable t = Table();
  EXPECT_TRUE(RunNow(t, "level", json::object(), 1000).ok);
  EXPECT_EQ(RunNow(t, "level", {{"level", 2}}, 1000).code,
            ErrorCode::kPermissionDenied);
  EXPECT_EQ(RunNow(t, "level", {{"level", 2}}, 0).data["level"], 2);
}

TEST(CommandTableTest, UnknownCommandsAndArgumentsAreClearErrors) {
  const CommandTable t = Table();
  const Reply r = RunNow(t, "trakcing", json::object(), 0);
  EXPECT_EQ(r.code, ErrorCode::kUnknownCommand);
  EXPECT_NE(r.message.find("change, level, read"), std::string::npos);
  const Reply a = RunNow(t, "level", {{"lvl", 1}}, 0);
  EXPECT_EQ(a.code, ErrorCode::kBadArgument);
  EXPECT_NE(a.message.find("\"lvl\""), std::string::npos);
  const Reply typed = RunNow(t, "level", {{"level", "high"}}, 0);
  EXPECT_EQ(typed.code, ErrorCode::kBadArgument);
}

TEST(CommandTableTest, NamesAreUnique) {
  CommandTable t = Table();
  EXPECT_FALSE(t.Add({.name = "read",
                      .run = [](const CommandCall&) -> CommandOutcome {
                        return Reply::Ok({});
                      }})
                   .ok());
  const json help = t.Help();
  EXPECT_EQ(help["commands"].size(), 3u);
  EXPECT_EQ(help["commands"][0]["name"], "change");
  EXPECT_EQ(help["commands"][0]["changes"], true);
}

TEST(ControlRequestQueueTest, WorkRunsOnTheControlThreadAndWakesTheCaller) {
  ControlRequestQueue q(2);
  std::thread::id ran_on;
  std::atomic<int> wakes{0};
  auto reply = q.Post(
      [&] {
        ran_on = std::this_thread::get_id();
        return Reply::Ok({{"n", 1}});
      },
      [&] { ++wakes; });
  EXPECT_FALSE(reply->done());
  std::thread control([&] { EXPECT_EQ(q.RunPending(), 1u); });
  control.join();
  EXPECT_TRUE(reply->done());
  EXPECT_EQ(reply->reply().data["n"], 1);
  EXPECT_EQ(wakes, 1);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(q.ran(), 1u);
}

TEST(ControlRequestQueueTest, AsyncWorkAnswersAtALaterTick) {
  ControlRequestQueue q;
  ControlRequestQueue::Complete later;
  auto reply = q.PostAsync(
      [&](ControlRequestQueue::Complete complete) { later = complete; });
  EXPECT_EQ(q.RunPending(), 1u);
  EXPECT_FALSE(reply->done());  // gathering (the workers walk their tables)
  later(Reply::Ok({{"n", 2}}));
  ASSERT_TRUE(reply->done());
  EXPECT_EQ(reply->reply().data["n"], 2);
}

TEST(ControlRequestQueueTest, AFullQueueAnswersAtOnce) {
  ControlRequestQueue q(1);
  auto first = q.Post([] { return Reply::Ok({}); });
  auto second = q.Post([] { return Reply::Ok({}); });
  EXPECT_FALSE(first->done());
  ASSERT_TRUE(second->done());
  EXPECT_EQ(second->reply().code, ErrorCode::kUnavailable);
}

TEST(ControlRequestQueueTest, WhatIsLeftAtShutdownIsAnswered) {
  std::shared_ptr<DeferredReply> r;
  {
    ControlRequestQueue q;
    r = q.Post([] { return Reply::Ok({}); });
  }
  ASSERT_TRUE(r->done());
  EXPECT_EQ(r->reply().code, ErrorCode::kShuttingDown);
}

}  // namespace
}  // namespace command_table_test
}  // namespace zg::servo
