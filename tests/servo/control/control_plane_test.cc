// SPDX-License-Identifier: Apache-2.0
// The control thread end to end on simulated clocks: a scripted reference is
// polled, locked to, lost (holdover) and recovered; the published model
// follows the truth within its bound; every state change lands in the audit
// log as a parseable JSON line; SIGHUP's Reopen starts a new file; NIC
// models are published next to the TSC model; the snapshot says it all.
#include "servo/control/control_plane.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "servo/alarms/alarm_json.h"
#include "servo/sources/source_spec.h"
#include "tests/servo/control/control_plane_fixture.h"

namespace zg::servo {
namespace control_plane_test {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_F(ControlPlaneTest, LocksHoldsOverAndRecordsEverything) {
  Start(Config({"sim:up_for=30s,down_for=30s,uncertainty=200ns"}));
  // Published before the first Tick of the loop: a model exists at once.
  EXPECT_EQ(published_.Generation(), 1u);
  RunUntil(25);
  core::ClockModel m = Published();
  EXPECT_EQ(m.state, core::SyncState::kLocked);
  EXPECT_TRUE(m.IsSynchronized(m.tai_anchor));
  EXPECT_EQ(m.stratum, 1);
  EXPECT_EQ(m.ptp_quality.clock_class, 6);
  EXPECT_LE(std::abs(ServedError()), m.error_bound_ns);
  EXPECT_LT(std::abs(ServedError()), 300);

  ControlPlaneStatus st = control_->Snapshot();
  ASSERT_EQ(st.sources.size(), 1u);
  EXPECT_EQ(st.sources[0].name, "sim");
  EXPECT_EQ(st.sources[0].kind, SourceKind::kSimulated);
  EXPECT_EQ(st.sources[0].health, SourceHealth::kUp);
  EXPECT_TRUE(st.sources[0].discipline.up);
  EXPECT_TRUE(st.sources[0].discipline.selected);
  EXPECT_GE(st.sources[0].discipline.accepted, 20u);
  EXPECT_GE(st.sources[0].polls, 25u);
  EXPECT_FALSE(st.sources[0].gnss.has_value());
  EXPECT_EQ(st.discipline.state, core::SyncState::kLocked);
  EXPECT_NEAR(st.tsc.hz, world_.tsc_hz, world_.tsc_hz * 1e-6);
  EXPECT_GT(st.tsc.points, 20u) << "refined once a second";
  EXPECT_TRUE(st.audit_enabled);
  EXPECT_GT(st.ticks, 240u);

  // The outage: holdover after the discipline's source timeout (5 s).
  RunUntil(33);
  EXPECT_EQ(Published().state, core::SyncState::kLocked) << "coasting";
  RunUntil(37);
  m = Published();
  EXPECT_EQ(m.state, core::SyncState::kHoldoverInSpec);
  EXPECT_EQ(m.ptp_quality.clock_class, 7);
  EXPECT_LE(std::abs(ServedError()), m.ErrorBoundNs(m.tai_anchor));
  st = control_->Snapshot();
  EXPECT_EQ(st.sources[0].health, SourceHealth::kDown);
  EXPECT_THAT(st.sources[0].problem, HasSubstr("scripted outage"));
  EXPECT_FALSE(st.sources[0].discipline.up);
  EXPECT_GT(st.sources[0].poll_errors, 0u);
  EXPECT_GT(st.discipline.holdover_s, 1.0);
  // The reference comes back at 60 s.
  RunUntil(90);
  EXPECT_EQ(Published().state, core::SyncState::kLocked);
  control_->Stop("test done");
  control_->Stop("again");  // idempotent

  const std::vector<std::string> events = Events(audit_path_);
  ASSERT_GE(events.size(), 10u);
  EXPECT_EQ(events[0], "start");
  EXPECT_EQ(events[1], "config_change");  // the leap table (and its warning)
  EXPECT_EQ(events.back(), "stop");
  for (const char* e :
       {"source_health", "source_up", "selection_switch", "step", "lock",
        "source_down", "holdover_enter", "holdover_exit", "class_change"}) {
    EXPECT_THAT(events, Contains(e));
  }
  EXPECT_EQ(std::count(events.begin(), events.end(), "stop"), 1);
  // The order of the story.
  auto at = [&](const char* e) {
    return std::find(events.begin(), events.end(), e) - events.begin();
  };
  EXPECT_LT(at("source_up"), at("lock"));
  EXPECT_LT(at("lock"), at("source_down"));
  EXPECT_LT(at("source_down"), at("holdover_enter"));
  EXPECT_LT(at("holdover_enter"), at("holdover_exit"));

  // Records say who, what and why.
  const std::vector<std::string> lines = ReadLines(audit_path_);
  const auto parse = [](const std::string& line) {
    return nlohmann::json::parse(line, nullptr, false);
  };
  const nlohmann::json start = parse(lines[0]);
  ASSERT_FALSE(start.is_discarded());
  EXPECT_EQ(start["values"]["version"], "test");
  EXPECT_EQ(start["values"]["oscillator"], "tcxo");
  EXPECT_THAT(start["values"]["sources"].get<std::string>(),
              HasSubstr("sim (sim:up_for=30s"));
  const nlohmann::json leap = parse(lines[1]);
  EXPECT_THAT(leap["values"]["warning_1"].get<std::string>(),
              HasSubstr("no-such-leap-file"));
  for (const std::string& line : lines) {
    const nlohmann::json v = parse(line);
    if (v.value("event", "") != "source_down") continue;
    EXPECT_EQ(v["source"], "sim");
    EXPECT_THAT(v["values"]["reason"].get<std::string>(),
                HasSubstr("scripted outage"));
  }
  EXPECT_THAT(log_, Contains(HasSubstr("clock: lock sim")));
  EXPECT_THAT(log_, Contains(HasSubstr("clock: holdover_enter sim")));
}

TEST_F(ControlPlaneTest, ReopenStartsANewFileAfterRotation) {
  Start(Config({"sim"}));
  RunUntil(3);
  const std::string moved = audit_path_ + ".old";
  ASSERT_EQ(std::rename(audit_path_.c_str(), moved.c_str()), 0);
  control_->Reopen();
  RunUntil(4);
  control_->Stop("test");
  const std::vector<std::string> fresh = Events(audit_path_);
  ASSERT_GE(fresh.size(), 2u);
  EXPECT_EQ(fresh.front(), "config_change");  // why the file starts here
  EXPECT_EQ(fresh.back(), "stop");
  const std::vector<std::string> old = Events(moved);
  ASSERT_FALSE(old.empty()) << "the rotated audit log " << moved << " is empty";
  EXPECT_EQ(old.front(), "start");
  EXPECT_THAT(old, ::testing::Not(Contains("stop")));
  EXPECT_EQ(control_->audit_log()->stats().reopens, 1u);
}

TEST_F(ControlPlaneTest, PublishesNicModelsComposedWithTheTscModel) {
  Start(Config({"sim"}));
  core::PublishedClock nic_published;
  // A NIC clock at 1 GHz with its own epoch: ticks = 1e12 + true ns.
  auto nic_at = [this](uint64_t tsc) {
    return static_cast<uint64_t>(
        1'000'000'000'000 + (world_.TrueUtcAtTicks(tsc) - SimWorld::kStart));
  };
  control_->AddNicClock(
      "fake",
      [&]() -> absl::StatusOr<BracketedRead> {
        BracketedRead r;
        r.tsc_before = tsc_.NowTicks();
        r.other = nic_at(r.tsc_before + 25);
        world_.Advance(20);
        r.tsc_after = tsc_.NowTicks();
        return r;
      },
      &nic_published);
  RunUntil(20);
  core::ClockModel nic, tsc_model = Published();
  ASSERT_TRUE(nic_published.TryRead(&nic));
  EXPECT_EQ(nic.state, tsc_model.state);
  const uint64_t tsc = world_.Tsc();
  EXPECT_LE(std::llabs(nic.RawToTai(nic_at(tsc)).value -
                       tsc_model.RawToTai(tsc).value),
            20);
  EXPECT_GE(nic.error_bound_ns, tsc_model.error_bound_ns);
  const ControlPlaneStatus st = control_->Snapshot();
  ASSERT_EQ(st.nics.size(), 1u);
  EXPECT_EQ(st.nics[0].name, "fake");
  EXPECT_TRUE(st.nics[0].published);
  EXPECT_NEAR(st.nics[0].ticks_per_second, 1e9, 1e3);
  control_.reset();  // before the NIC clock it reads goes away
}

TEST_F(ControlPlaneTest, SetupErrorsAreActionable) {
  ControlPlaneConfig none = Config({});
  auto cp =
      ControlPlane::Create(std::move(none), &published_, FakeTsc(), &ops_);
  EXPECT_THAT(std::string(cp.status().message()),
              HasSubstr("no reference source configured"));
  ControlPlaneConfig pps = Config({"pps:/dev/zg-no-such-pps,coarse=gpsd"});
  cp = ControlPlane::Create(std::move(pps), &published_, FakeTsc(), &ops_);
  EXPECT_THAT(std::string(cp.status().message()),
              HasSubstr("--source=pps:/dev/zg-no-such-pps,coarse=gpsd: "
                        "coarse=gpsd needs a gpsd source"));
  ControlPlaneConfig phc = Config({"phc:/dev/zg-no-such-ptp"});
  cp = ControlPlane::Create(std::move(phc), &published_, FakeTsc(), &ops_);
  EXPECT_THAT(std::string(cp.status().message()),
              HasSubstr("--source=phc:/dev/zg-no-such-ptp: "));
  ControlPlaneConfig bad_audit = Config({"sim"});
  bad_audit.audit.path = dir_ + "/no/such/dir/audit.jsonl";
  cp =
      ControlPlane::Create(std::move(bad_audit), &published_, FakeTsc(), &ops_);
  EXPECT_FALSE(cp.ok());
  EXPECT_THAT(std::string(cp.status().message()), HasSubstr("no/such/dir"));
}

// A source that is not time-traceable serves clockClass 248 in every state
// (it claims no primary reference), while NTP still serves it as
// synchronised; declaring it traceable (as --source=system,traceable=true
// does for a GNSS-locked host clock) gives 6 when locked.
TEST_F(ControlPlaneTest, TraceableDeclarationSetsTheClass) {
  Start(
      Config({"sim:up_for=30s,down_for=30s,uncertainty=200ns,"
              "traceable=false"}));
  RunUntil(25);
  core::ClockModel m = Published();
  EXPECT_EQ(m.state, core::SyncState::kLocked);
  EXPECT_EQ(m.ptp_quality.clock_class, 248);
  EXPECT_FALSE(m.time_traceable);
  EXPECT_TRUE(m.IsSynchronized(m.tai_anchor));
  RunUntil(37);
  m = Published();
  EXPECT_EQ(m.state, core::SyncState::kHoldoverInSpec);
  EXPECT_EQ(m.ptp_quality.clock_class, 248);
  control_->Stop("test");
}

TEST_F(ControlPlaneTest, SeveralSourcesByPriority) {
  Start(Config({"sim:b,priority=20,uncertainty=300ns",
                "sim:a,priority=10,uncertainty=300ns,up_for=15s"}));
  RunUntil(12);
  ControlPlaneStatus st = control_->Snapshot();
  EXPECT_EQ(st.sources[0].name, "sim:b");
  EXPECT_FALSE(st.sources[0].discipline.selected);
  EXPECT_TRUE(st.sources[1].discipline.selected) << "lower priority wins";
  RunUntil(25);  // a is gone: b takes over, no holdover
  st = control_->Snapshot();
  EXPECT_TRUE(st.sources[0].discipline.selected);
  EXPECT_FALSE(st.sources[1].discipline.up);
  EXPECT_NE(Published().state, core::SyncState::kHoldoverInSpec);
  control_->Stop("test");
  const std::vector<std::string> events = Events(audit_path_);
  EXPECT_EQ(std::count(events.begin(), events.end(), "selection_switch"), 2);
}

}  // namespace
}  // namespace control_plane_test
}  // namespace zg::servo

namespace zg::servo {
namespace control_plane_test {
namespace {

// The alarm sequence of a reference loss on a short oscillator profile:
// reference_lost and holdover raised together, then holdover_out_of_spec;
// each raise audited with the same TAI instant the published alarm table
// and its JSON carry, in the same order.
TEST_F(ControlPlaneTest, HoldoverRaisesAlarmsInOrderAuditedAndPublished) {
  ControlPlaneConfig c = Config({"sim:up_for=20s,uncertainty=200ns"});
  c.discipline.source_timeout_ns = 2 * kS;
  c.discipline.oscillator.frequency_floor_ppb = 50'000;
  c.discipline.oscillator.aging_ppb_per_day = 0;
  c.discipline.oscillator.temperature_ppb_per_k = 0;
  c.discipline.holdover.in_spec_limit_ns = 500'000;
  Start(std::move(c));
  RunUntil(19);
  std::shared_ptr<const AlarmTable> t = control_->Alarms();
  ASSERT_NE(t, nullptr);
  auto row = [&](AlarmId id) -> const AlarmRow& {
    for (const AlarmRow& r : t->rows) {
      if (r.id == id && r.instance.empty()) return r;
    }
    ADD_FAILURE() << AlarmDefOf(id).name << " has no row";
    return t->rows.front();
  };
  EXPECT_FALSE(row(AlarmId::kReferenceLost).active);
  EXPECT_FALSE(row(AlarmId::kHoldover).active);
  ASSERT_NE(control_->Status(), nullptr);
  EXPECT_EQ(control_->Status()->discipline.state, core::SyncState::kLocked);
  RunUntil(40);
  t = control_->Alarms();
  EXPECT_TRUE(row(AlarmId::kReferenceLost).active);
  EXPECT_THAT(row(AlarmId::kReferenceLost).message,
              HasSubstr("reference lost"));
  EXPECT_TRUE(row(AlarmId::kHoldover).active);
  EXPECT_TRUE(row(AlarmId::kHoldoverOutOfSpec).active);
  EXPECT_TRUE(row(AlarmId::kNotSynchronized).active);
  const core::TaiNs entered = row(AlarmId::kHoldover).since_tai;
  const core::TaiNs out = row(AlarmId::kHoldoverOutOfSpec).since_tai;
  EXPECT_LT(entered, out);
  control_->Stop("test done");

  // The audit log: the same raises, same order, same instants.
  std::vector<std::pair<std::string, int64_t>> audited;
  for (const std::string& line : ReadLines(audit_path_)) {
    const nlohmann::json v = nlohmann::json::parse(line);
    if (v["event"] != "alarm_raised") continue;
    audited.emplace_back(v["values"]["alarm"], v["tai_ns"]);
  }
  std::vector<std::pair<std::string, int64_t>> published;
  for (const AlarmEvent& e : t->recent) {
    if (e.raised) published.emplace_back(AlarmDefOf(e.id).name, e.tai.value);
  }
  EXPECT_EQ(audited, published);
  auto index = [&](const std::string& name) {
    for (size_t i = 0; i < audited.size(); ++i) {
      if (audited[i].first == name) return static_cast<int>(i);
    }
    return -1;
  };
  ASSERT_GE(index("holdover"), 0);
  EXPECT_LT(index("holdover"), index("holdover_out_of_spec"));
  EXPECT_EQ(audited[index("holdover")].second, entered.value);
  EXPECT_EQ(audited[index("holdover_out_of_spec")].second, out.value);
  const nlohmann::json j = AlarmTableJson(*t, /*active_only=*/true);
  bool found = false;
  for (const nlohmann::json& a : j["alarms"]) {
    if (a["name"] == "holdover_out_of_spec") {
      found = true;
      EXPECT_EQ(a["since_tai_ns"], out.value);
      EXPECT_EQ(a["severity"], "critical");
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace control_plane_test
}  // namespace zg::servo
