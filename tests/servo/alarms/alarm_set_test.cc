// SPDX-License-Identifier: Apache-2.0
// AlarmSet: raise and clear with each alarm's hysteresis, notices that
// clear themselves, one ordered event stream with one timestamp per
// evaluation, rows that keep their slot, the JSON shape, and
// --alarm_hysteresis parsing.
#include "servo/alarms/alarm_set.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "servo/alarms/alarm_json.h"

namespace zg::servo {
namespace alarm_set_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kS = 1'000'000'000;

core::TaiNs Tai(int64_t s) { return {1'800'000'000 * kS + s * kS}; }
core::UtcNs Utc(int64_t s) { return {1'800'000'000 * kS - 37 * kS + s * kS}; }

TEST(AlarmCatalogTest, NamesAndIdsRoundTrip) {
  for (int i = 0; i < kAlarmDefCount; ++i) {
    const AlarmDef& d = AlarmDefs()[i];
    EXPECT_EQ(static_cast<int>(d.id), i + 1);
    EXPECT_EQ(AlarmIdNamed(d.name), d.id) << d.name;
    EXPECT_NE(std::string(d.description), "");
  }
  EXPECT_EQ(AlarmIdNamed("no_such_alarm"), std::nullopt);
  EXPECT_STREQ(AlarmSeverityName(AlarmSeverity::kCritical), "critical");
}

TEST(AlarmSetTest, SingletonsHaveRowsFromTheStart) {
  AlarmSet a({});
  const AlarmTable t = a.Table();
  int singletons = 0;
  for (int i = 0; i < kAlarmDefCount; ++i) {
    if (!AlarmDefs()[i].per_instance) ++singletons;
  }
  ASSERT_EQ(static_cast<int>(t.rows.size()), singletons);
  for (const AlarmRow& r : t.rows) EXPECT_FALSE(r.active);
  EXPECT_EQ(t.last_seq, 0u);
}

TEST(AlarmSetTest, RaiseAndClearFollowTheHysteresis) {
  AlarmSet a({.hysteresis = {{AlarmId::kLinkDown, {2 * kS, 5 * kS}}}});
  const int slot = a.Slot(AlarmId::kLinkDown, "port0");
  EXPECT_EQ(a.Slot(AlarmId::kLinkDown, "port0"), slot) << "stable";
  a.Set(AlarmId::kLinkDown, "port0", true, "port0 link down", 10 * kS);
  EXPECT_TRUE(a.Evaluate(11 * kS, Tai(11), Utc(11)).empty()) << "held 1 s";
  // A flap shorter than raise_after raises nothing.
  a.Set(AlarmId::kLinkDown, "port0", false, "up", 11 * kS);
  a.Set(AlarmId::kLinkDown, "port0", true, "port0 link down", 12 * kS);
  EXPECT_TRUE(a.Evaluate(13 * kS, Tai(13), Utc(13)).empty());
  std::vector<AlarmEvent> e = a.Evaluate(14 * kS, Tai(14), Utc(14));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].raised);
  EXPECT_EQ(e[0].slot, slot);
  EXPECT_EQ(e[0].instance, "port0");
  EXPECT_EQ(e[0].severity, AlarmSeverity::kMajor);
  EXPECT_EQ(e[0].tai, Tai(14));
  EXPECT_EQ(e[0].utc, Utc(14));
  EXPECT_EQ(e[0].message, "port0 link down");
  EXPECT_EQ(e[0].seq, 1u);
  // Up again: cleared only after 5 s without a new drop.
  a.Set(AlarmId::kLinkDown, "port0", false, "port0 link up", 20 * kS);
  EXPECT_TRUE(a.Evaluate(24 * kS, Tai(24), Utc(24)).empty());
  a.Set(AlarmId::kLinkDown, "port0", true, "down again", 24 * kS);
  a.Set(AlarmId::kLinkDown, "port0", false, "port0 link up", 25 * kS);
  EXPECT_TRUE(a.Evaluate(29 * kS, Tai(29), Utc(29)).empty());
  e = a.Evaluate(30 * kS, Tai(30), Utc(30));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].raised);
  EXPECT_EQ(e[0].message, "port0 link up");
  EXPECT_EQ(e[0].seq, 2u);
  const AlarmTable t = a.Table();
  const AlarmRow& row = t.rows[slot];
  EXPECT_FALSE(row.active);
  EXPECT_EQ(row.raises, 1u);
  EXPECT_EQ(row.since_tai, Tai(30));
  ASSERT_EQ(t.recent.size(), 2u);
  EXPECT_EQ(t.last_seq, 2u);
}

TEST(AlarmSetTest, NoticesRaiseAtOnceAndClearAfterTheirHold) {
  AlarmSet a({});  // reference_switched: cleared 60 s after the last switch
  a.Notice(AlarmId::kReferenceSwitched, "", "a -> b", 0);
  std::vector<AlarmEvent> e = a.Evaluate(0, Tai(0), Utc(0));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(e[0].raised);
  EXPECT_EQ(e[0].message, "a -> b");
  a.Notice(AlarmId::kReferenceSwitched, "", "b -> a", 30 * kS);
  EXPECT_TRUE(a.Evaluate(80 * kS, Tai(80), Utc(80)).empty())
      << "the second switch restarted the hold";
  e = a.Evaluate(90 * kS, Tai(90), Utc(90));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].raised);
  EXPECT_THAT(e[0].message, HasSubstr("b -> a (cleared: no recurrence"));
}

TEST(AlarmSetTest, TransitionsOfOneEvaluationShareTheTimestampInSlotOrder) {
  AlarmSet a({});
  a.Set(AlarmId::kHoldoverOutOfSpec, "", true, "out", 0);
  a.Set(AlarmId::kHoldover, "", true, "in holdover", 0);
  const std::vector<AlarmEvent> e = a.Evaluate(0, Tai(5), Utc(5));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].id, AlarmId::kHoldover);
  EXPECT_EQ(e[1].id, AlarmId::kHoldoverOutOfSpec);
  EXPECT_EQ(e[0].tai, e[1].tai);
  EXPECT_LT(e[0].seq, e[1].seq);
}

TEST(AlarmSetTest, RecentEventsAreBounded) {
  AlarmSet a({.recent_events = 4});
  for (int i = 0; i < 10; ++i) {
    a.Set(AlarmId::kDraining, "", i % 2 == 0, "x", i * kS);
    a.Evaluate(i * kS, Tai(i), Utc(i));
  }
  const AlarmTable t = a.Table();
  ASSERT_EQ(t.recent.size(), 4u);
  EXPECT_EQ(t.recent.back().seq, 10u);
  EXPECT_EQ(t.recent.front().seq, 7u);
}

TEST(AlarmSetTest, RetiredInstancesClearAtOnceAndLeaveTheTable) {
  AlarmSet a({.hysteresis = {{AlarmId::kSourceJump, {0, 60 * kS}}}});
  a.Set(AlarmId::kSourceJump, "sim:better", true, "jumps", 10 * kS);
  a.Set(AlarmId::kSourceFalseticker, "sim:better", false, "agrees", 10 * kS);
  const int slot = a.Slot(AlarmId::kSourceJump, "sim:better");
  ASSERT_EQ(a.Evaluate(10 * kS, Tai(10), Utc(10)).size(), 1u);
  a.Retire("sim:better", "sim:better removed");
  // Cleared at the next evaluation although clear_after is 60 s.
  const std::vector<AlarmEvent> e = a.Evaluate(11 * kS, Tai(11), Utc(11));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].raised);
  EXPECT_EQ(e[0].message, "sim:better removed");
  EXPECT_EQ(e[0].tai.value, Tai(11).value);
  AlarmTable t = a.Table();
  EXPECT_TRUE(t.rows[slot].retired);
  EXPECT_FALSE(t.rows[slot].active);
  EXPECT_THAT(AlarmTableJson(t, false)["alarms"].dump(),
              ::testing::Not(HasSubstr("sim:better")));
  // The instance comes back: the same row, listed again.
  a.Set(AlarmId::kSourceJump, "sim:better", false, "ok", 12 * kS);
  EXPECT_EQ(a.Slot(AlarmId::kSourceJump, "sim:better"), slot);
  EXPECT_FALSE(a.Table().rows[slot].retired);
  EXPECT_TRUE(a.Evaluate(13 * kS, Tai(13), Utc(13)).empty());
}

TEST(AlarmJsonTest, TableShape) {
  AlarmSet a({});
  a.Set(AlarmId::kWorkerStalled, "1", true, "worker 1 stalled 2.0 s", 0);
  a.Evaluate(0, Tai(0), Utc(0));
  const AlarmTable t = a.Table();
  const nlohmann::json all = AlarmTableJson(t);
  EXPECT_EQ(all["active"], 1);
  EXPECT_EQ(all["last_seq"], 1);
  EXPECT_EQ(all["alarms"].size(), t.rows.size());
  const nlohmann::json active = AlarmTableJson(t, /*active_only=*/true);
  ASSERT_EQ(active["alarms"].size(), 1u);
  const nlohmann::json& r = active["alarms"][0];
  EXPECT_EQ(r["name"], "worker_stalled");
  EXPECT_EQ(r["id"], 19);
  EXPECT_EQ(r["instance"], "1");
  EXPECT_EQ(r["severity"], "critical");
  EXPECT_EQ(r["active"], true);
  EXPECT_EQ(r["since_tai_ns"], Tai(0).value);
  EXPECT_EQ(r["since_utc"], "2027-01-15T07:59:23.000000000Z");
  EXPECT_EQ(r["message"], "worker 1 stalled 2.0 s");
  ASSERT_EQ(active["events"].size(), 1u);
  EXPECT_EQ(active["events"][0]["state"], "raised");
  EXPECT_EQ(active["events"][0]["utc"], r["since_utc"]);
}

TEST(AlarmHysteresisFlagTest, Parses) {
  auto h = ParseAlarmHysteresis("holdover=1s/2s,gnss_signal_low=0s/30s");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ((*h)[AlarmId::kHoldover].raise_after_ns, kS);
  EXPECT_EQ((*h)[AlarmId::kHoldover].clear_after_ns, 2 * kS);
  EXPECT_EQ((*h)[AlarmId::kGnssSignalLow].clear_after_ns, 30 * kS);
  EXPECT_TRUE(ParseAlarmHysteresis("")->empty());
  for (const char* bad : {"nope=1s/1s", "holdover=1s", "holdover=x/1s",
                          "holdover=-1s/1s", "holdover=1s/25h", "holdover"}) {
    const auto r = ParseAlarmHysteresis(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr("--alarm_hysteresis"))
        << bad;
  }
}

}  // namespace
}  // namespace alarm_set_test
}  // namespace zg::servo
