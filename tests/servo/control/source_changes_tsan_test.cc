// SPDX-License-Identifier: Apache-2.0
// Live source changes from other threads while the control thread ticks, as
// the control socket's thread asks them in zeitgeberd; for ThreadSanitizer
// (suite 'tsan', scripts/tsan.sh) as much as for the assertions. This
// thread is the control thread: the real servo::ControlPlane (the TSC
// calibrated against CLOCK_MONOTONIC_RAW, a sim: reference, an audit log),
// ticked every 2 ms. Two requester threads meanwhile: one adds a better
// sim: source and deletes it again, over and over (each answer ok; after a
// delete the base source is selected again); the other changes the base
// source's priority, disables and enables a second source, and asks for
// what must be refused (a bad spec, an unknown name). Checked: every answer,
// the sources in force at the end, and one audit record per change and
// per refusal.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "servo/control/control_plane.h"
#include "servo/control/source_change.h"
#include "servo/sources/source_spec.h"

namespace zg::servo {
namespace {

constexpr int kRounds = 8;
constexpr absl::Duration kAnswerWithin = absl::Seconds(20);  // TSan is slow

// What one requester saw. Written by its thread, read after join().
struct RequesterReport {
  int ok = 0;
  int refused = 0;
  std::vector<std::string> failures;
};

SourceChangeRequest Request(SourceAction action, std::string name_or_spec,
                            int priority = 0) {
  SourceChangeRequest r;
  r.action = action;
  (action == SourceAction::kAdd ? r.spec : r.name) = std::move(name_or_spec);
  r.priority = priority;
  r.uid = static_cast<uint32_t>(getuid());
  r.origin = "test";
  return r;
}

void AddAndDelete(ControlPlane* control, RequesterReport* report) {
  for (int i = 0; i < kRounds; ++i) {
    const std::string name = absl::StrCat("sim:extra", i);
    SourceChangeResult r = control->ChangeSources(
        Request(SourceAction::kAdd,
                absl::StrCat(name, ",priority=1,uncertainty=100us")),
        kAnswerWithin);
    if (!r.ok || !r.selected.has_value()) {
      report->failures.push_back(absl::StrCat("add ", name, ": ", r.error));
      continue;
    }
    ++report->ok;
    r = control->ChangeSources(Request(SourceAction::kDelete, name),
                               kAnswerWithin);
    if (!r.ok || r.selected != "sim:base") {
      report->failures.push_back(absl::StrCat("delete ", name, ": ", r.error,
                                              " selected ",
                                              r.selected.value_or("?")));
      continue;
    }
    ++report->ok;
  }
}

void TweakAndProvoke(ControlPlane* control, RequesterReport* report) {
  for (int i = 0; i < kRounds; ++i) {
    const SourceChangeRequest good[] = {
        Request(SourceAction::kPriority, "sim:base", 11 + i),
        Request(SourceAction::kDisable, "sim:spare"),
        Request(SourceAction::kEnable, "sim:spare"),
    };
    for (const SourceChangeRequest& g : good) {
      const SourceChangeResult r = control->ChangeSources(g, kAnswerWithin);
      if (r.ok) {
        ++report->ok;
      } else {
        report->failures.push_back(absl::StrCat(SourceActionName(g.action), " ",
                                                g.name, ": ", r.error));
      }
    }
    const SourceChangeRequest bad[] = {
        Request(SourceAction::kAdd, "sim:x,bogus=1"),
        Request(SourceAction::kDelete, "sim:nobody"),
    };
    for (const SourceChangeRequest& b : bad) {
      const SourceChangeResult r = control->ChangeSources(b, kAnswerWithin);
      if (r.ok) {
        report->failures.push_back(
            absl::StrCat(SourceActionName(b.action), ": accepted"));
      } else {
        ++report->refused;
      }
    }
  }
}

TEST(SourceChangesTsanTest, RequestsFromOtherThreadsWhileTicking) {
  const std::string audit = absl::StrCat(
      ::testing::TempDir(), "/zg-source-changes-", getpid(), ".jsonl");
  ControlPlaneConfig config;
  for (const char* text : {"sim:base,priority=10,uncertainty=2us",
                           "sim:spare,priority=50,uncertainty=2us"}) {
    absl::StatusOr<SourceSpec> spec = ParseSourceSpec(text);
    ASSERT_TRUE(spec.ok()) << spec.status();
    config.sources.push_back(*spec);
  }
  config.leap_file = "/nonexistent/leap-seconds.list";  // the built-in table
  config.audit.path = audit;
  config.audit.fsync = AuditLogOptions::Fsync::kNone;
  core::PublishedClock tsc_clock;
  absl::StatusOr<std::unique_ptr<ControlPlane>> created =
      ControlPlane::Create(std::move(config), &tsc_clock);
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<ControlPlane> control = *std::move(created);

  RequesterReport reports[2];
  std::atomic<int> running{2};
  std::vector<std::thread> requesters;
  requesters.emplace_back([&] {
    AddAndDelete(control.get(), &reports[0]);
    running.fetch_sub(1);
  });
  requesters.emplace_back([&] {
    TweakAndProvoke(control.get(), &reports[1]);
    running.fetch_sub(1);
  });
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(2);
  uint64_t ticks = 0;
  while (running.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    control->Tick();
    ++ticks;
    if (ticks % 50 == 0) control->Snapshot();  // the exporter, this thread
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Answers still owed are given by further Ticks (or Stop).
  for (int i = 0; i < 10; ++i) control->Tick();
  for (std::thread& t : requesters) t.join();
  const ControlPlaneStatus st = control->Snapshot();
  control->Stop("test done");

  std::printf("%lu ticks; add/delete: %d ok; tweaks: %d ok, %d refused\n",
              static_cast<unsigned long>(ticks), reports[0].ok, reports[1].ok,
              reports[1].refused);
  for (const RequesterReport& r : reports) {
    for (const std::string& f : r.failures) ADD_FAILURE() << f;
  }
  EXPECT_EQ(reports[0].ok, 2 * kRounds);
  EXPECT_EQ(reports[1].ok, 3 * kRounds);
  EXPECT_EQ(reports[1].refused, 2 * kRounds);
  ASSERT_EQ(st.sources.size(), 2u);
  EXPECT_EQ(st.sources[0].name, "sim:base");
  EXPECT_EQ(st.sources[0].priority, 11 + kRounds - 1);
  EXPECT_EQ(st.sources[1].name, "sim:spare");
  EXPECT_TRUE(st.sources[1].enabled);

  std::ifstream in(audit);
  int changes = 0, refusals = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\":\"source_change\"") == std::string::npos) continue;
    ++(line.find("\"outcome\":\"rejected\"") != std::string::npos ? refusals
                                                                  : changes);
  }
  std::remove(audit.c_str());
  EXPECT_EQ(changes, 2 * kRounds + 3 * kRounds);
  EXPECT_EQ(refusals, 2 * kRounds);
}

}  // namespace
}  // namespace zg::servo
