// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's alarms through a real SNMP management side: snmpd as the
// AgentX master agent with zeitgeberd's subagent (--snmp_agentx), snmpwalk
// and snmpset against snmpd, snmptrapd receiving the notifications
// (tests/e2e/snmp_rig.h). zeitgeberd runs on an in-process net_ring port.
//
// GnssReferenceLostAndRegained: gpsfake + gpsd feed --source=gpsd; the walk
//   shows the clock scalars, the source, GNSS (per constellation), port and
//   alarm tables with the values gpsd's log implies; stopping gpsfake makes
//   snmptrapd log zgAlarmRaised reference_lost within the source timeout,
//   and zgAlarmCleared when gpsfake feeds again; heartbeats arrive; a SET
//   of zgSendTestNotification sends the test notification, one of
//   zgResendActiveAlarms re-sends every raised alarm; bad SETs are refused.
// HoldoverSequenceAgrees: a sim: source that stops, a fast oscillator
//   profile: holdover then holdover_out_of_spec are raised in the audit
//   log, the metrics and the SNMP notifications in the same order with the
//   same instants.
// WorkerStalledAndResumed: the test hook (--test_stall_file) stalls the
//   one worker: past --worker_stall_limit, worker_stalled for worker 0 is
//   raised in the audit log, the metrics, zgctl alarms and as a trap, and
//   cleared once the worker resumes (1 s of hysteresis here), with the same
//   instants everywhere.
//
// Suite e2e: needs root (gpsfake starts gpsd). About 30 s in all.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/snmp_rig.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/paths.h"
#include "tests/util/ports.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace snmp_alarms_test {
namespace {

constexpr char kZg[] = "1.3.6.1.4.1.32473.7";
const std::string kAlarmRaised = absl::StrCat(kZg, ".0.1");
const std::string kAlarmCleared = absl::StrCat(kZg, ".0.2");
const std::string kHeartbeat = absl::StrCat(kZg, ".0.3");
const std::string kTestTrap = absl::StrCat(kZg, ".0.4");
const std::string kClock = absl::StrCat(kZg, ".1.1.");
const std::string kSource = absl::StrCat(kZg, ".1.2.1.");
const std::string kGnss = absl::StrCat(kZg, ".1.3.1.");
const std::string kPort = absl::StrCat(kZg, ".1.4.1.");
const std::string kAlarmCol = absl::StrCat(kZg, ".1.6.1.");
const std::string kAlarmName = kAlarmCol + "3";
const std::string kAlarmResource = kAlarmCol + "4";
const std::string kAlarmTime = kAlarmCol + "7";
const std::string kResend = absl::StrCat(kZg, ".1.8.1.0");
const std::string kSendTest = absl::StrCat(kZg, ".1.8.2.0");

class SnmpAlarmsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (gpsfake starts gpsd)";
    for (const char* tool :
         {"snmpd", "snmptrapd", "snmpwalk", "snmpset", "gpsfake", "curl"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
    zeitgeberd_ = std::getenv("ZG_ZEITGEBERD");
    ASSERT_NE(zeitgeberd_, nullptr) << "run through meson test";
    auto dir = testutil::TempDir::Create("snmp-e2e");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<testutil::TempDir>(*std::move(dir));
    auto snmp = SnmpRig::Start(*dir_);
    ASSERT_TRUE(snmp.ok()) << snmp.status();
    snmp_ = *std::move(snmp);
    audit_ = dir_->File("audit.jsonl");
  }

  // zeitgeberd on net_ring0 with `flags`, until it logs its metrics port.
  // No traffic: its worker sleeps when idle.
  void StartZeitgeberd(std::vector<std::string> flags) {
    std::vector<std::string> argv = {zeitgeberd_,
                                     "--no-huge",
                                     "-m",
                                     "256",
                                     "--no-shconf",
                                     "--no-pci",
                                     "--no-telemetry",
                                     "--file-prefix",
                                     absl::StrCat("zgsnmp", getpid()),
                                     "--log-level=lib.eal:error",
                                     "-l",
                                     "0-1",
                                     "--vdev=net_ring0",
                                     "--",
                                     "--metrics_address=127.0.0.1:0",
                                     "--status_address=",
                                     "--stats_interval=100ms",
                                     "--idle_sleep=50us",
                                     "--snmp_agentx=" + snmp_->agentx_socket(),
                                     "--audit_log=" + audit_,
                                     "--audit_fsync=every_record"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto zg = testutil::Subprocess::Start(argv);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = *std::move(zg);
    const bool up =
        testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(30)), [&] {
          const std::string log = zg_->Stderr();
          const size_t at = log.find("/metrics (port ");
          if (at != std::string::npos &&
              absl::StrContains(log, "zeitgeberd running")) {
            metrics_port_ = std::atoi(log.c_str() + at + 15);
          }
          return metrics_port_ > 0 || !zg_->Running();
        });
    ASSERT_TRUE(up && metrics_port_ > 0) << zg_->Stderr();
  }

  // The first trap after `skip` traps that `match` accepts, waiting up to
  // `timeout`; nullopt if none came.
  template <typename Match>
  std::optional<Trap> WaitTrap(size_t skip, Match match,
                               absl::Duration timeout) {
    std::optional<Trap> found;
    testutil::PollUntil(
        testutil::DeadlineIn(timeout),
        [&] {
          const std::vector<Trap> traps = snmp_->Traps();
          for (size_t i = skip; i < traps.size(); ++i) {
            if (match(traps[i])) {
              found = traps[i];
              return true;
            }
          }
          return false;
        },
        absl::Milliseconds(50));
    return found;
  }
  static auto Alarm(const std::string& trap_oid, const std::string& name) {
    return [=](const Trap& t) {
      return t.oid == trap_oid && t.Column(kAlarmName) == name;
    };
  }

  // The audit log's alarm_raised and alarm_cleared records, in order.
  struct AuditedAlarm {
    std::string event, alarm, resource, utc;
  };
  std::vector<AuditedAlarm> AuditedAlarms() const {
    std::vector<AuditedAlarm> out;
    std::ifstream in(audit_);
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json v = nlohmann::json::parse(line);
      if (v["event"] != "alarm_raised" && v["event"] != "alarm_cleared") {
        continue;
      }
      out.push_back({v["event"], v["values"]["alarm"],
                     v.value("source", std::string()), v["utc"]});
    }
    return out;
  }

  std::string Scrape() {
    auto r = testutil::RunCommand(
        {"curl", "-sf", "--max-time", "5",
         absl::StrCat("http://127.0.0.1:", metrics_port_, "/metrics")},
        absl::Seconds(10));
    return r.ok() && r->ok() ? r->stdout_text : "";
  }

  const char* zeitgeberd_ = nullptr;
  std::unique_ptr<testutil::TempDir> dir_;
  std::unique_ptr<SnmpRig> snmp_;
  std::unique_ptr<testutil::Subprocess> zg_;
  std::string audit_;
  int metrics_port_ = 0;
};

TEST_F(SnmpAlarmsTest, GnssReferenceLostAndRegained) {
  const uint16_t gpsd_port = testutil::FreeLoopbackPort();
  const std::string source = absl::StrCat("gpsd:127.0.0.1:", gpsd_port);
  // The replayed log restarts at its own date the second time: a jump back,
  // followed after 2 samples (--jump_accept_after).
  StartZeitgeberd({"--source=" + source + ",reconnect_max=250ms",
                   "--source_timeout=2s", "--jump_accept_after=2",
                   "--alarm_hysteresis=reference_lost=0s/1s",
                   "--snmp_heartbeat_interval=1s"});
  auto gpsfake = [&] {
    return testutil::Subprocess::Start(
        {"gpsfake", "-P", absl::StrCat(gpsd_port), "-1", "-q", "-c", "0.125",
         testutil::TestDataPath("gpsd_gps_beidou.nmea")});
  };
  // No reference at start: raised; gpsd's first fix: cleared.
  ASSERT_TRUE(
      WaitTrap(0, Alarm(kAlarmRaised, "reference_lost"), absl::Seconds(10)))
      << snmp_->Log() << zg_->Stderr();
  auto feed = gpsfake();
  ASSERT_TRUE(feed.ok()) << feed.status();
  ASSERT_TRUE(
      WaitTrap(0, Alarm(kAlarmCleared, "reference_lost"), absl::Seconds(15)))
      << snmp_->Log() << zg_->Stderr();

  // The walk: clock, source, GNSS, port and alarm tables (numeric OIDs).
  absl::StatusOr<std::map<std::string, std::string>> w = snmp_->Walk(kZg);
  ASSERT_TRUE(w.ok()) << w.status();
  auto at = [&](const std::string& oid) {
    auto it = w->find(oid);
    return it == w->end() ? std::string("<absent>") : it->second;
  };
  EXPECT_THAT(at(kClock + "1.0"), ::testing::AnyOf("1", "2"))
      << "locking or locked";
  EXPECT_EQ(at(kClock + "11.0"), source) << "selected source";
  EXPECT_EQ(at(kClock + "7.0"), "37") << "TAI-UTC";
  EXPECT_EQ(at(kSource + "2.1"), source);
  EXPECT_EQ(at(kSource + "3.1"), "gpsd");
  EXPECT_EQ(at(kSource + "6.1"), "1") << "up";
  EXPECT_EQ(at(kSource + "7.1"), "1") << "selected";
  EXPECT_EQ(at(kSource + "11.1"), "3") << "3D fix";
  // gpsd_gps_beidou.nmea: GPS 7 in view, 5 used, 5 >= 37 dB-Hz; BeiDou 6,
  // 4, 4; Galileo none. Constellation = gnssid + 1.
  EXPECT_EQ(at(kGnss + "2.1.1"), "7");
  EXPECT_EQ(at(kGnss + "3.1.1"), "5");
  EXPECT_EQ(at(kGnss + "4.1.1"), "5");
  EXPECT_EQ(at(kGnss + "2.1.4"), "6");
  EXPECT_EQ(at(kGnss + "3.1.4"), "4");
  EXPECT_EQ(at(kGnss + "2.1.3"), "0");
  EXPECT_EQ(at(kPort + "2.1"), "net_ring0");
  EXPECT_EQ(at(kPort + "3.1"), "1") << "link up";
  for (const auto& [oid, value] : *w) {
    if (absl::StartsWith(oid, kAlarmName + ".")) {
      EXPECT_NE(value, "reference_lost") << "cleared: no row";
    }
  }
  absl::StatusOr<std::map<std::string, std::string>> ntp =
      snmp_->Walk("1.3.6.1.2.1.197");
  ASSERT_TRUE(ntp.ok()) << ntp.status();
  EXPECT_EQ((*ntp)["1.3.6.1.2.1.197.1.1.1.0"], "zeitgeberd");
  EXPECT_EQ((*ntp)["1.3.6.1.2.1.197.1.2.4.0"], source);

  // gpsd gone: reference_lost within the source timeout (2 s), with an
  // alarm table row.
  (*feed)->Stop();
  const size_t before_loss = snmp_->Traps().size();
  const absl::Time lost = absl::Now();
  std::optional<Trap> raised = WaitTrap(
      before_loss, Alarm(kAlarmRaised, "reference_lost"), absl::Seconds(10));
  ASSERT_TRUE(raised) << snmp_->Log();
  const double delay = absl::ToDoubleSeconds(absl::Now() - lost);
  std::printf("reference_lost trap %.2f s after gpsfake stopped\n", delay);
  EXPECT_LE(delay, 2.0 + 1.5) << "source timeout 2 s, plus polling";
  EXPECT_THAT(raised->Column(kAlarmCol + "8"), ::testing::HasSubstr(source));
  w = snmp_->Walk(absl::StrCat(kZg, ".1.6"));
  ASSERT_TRUE(w.ok());
  bool row = false;
  for (const auto& [oid, value] : *w) row |= value == "reference_lost";
  EXPECT_TRUE(row) << "raised: a zgAlarmTable row";

  // Recovery: gpsd back, the clear follows.
  const size_t before_recovery = snmp_->Traps().size();
  feed = gpsfake();
  ASSERT_TRUE(feed.ok());
  EXPECT_TRUE(WaitTrap(before_recovery, Alarm(kAlarmCleared, "reference_lost"),
                       absl::Seconds(15)))
      << snmp_->Log() << zg_->Stderr();

  // Heartbeats (1 s), the test notification, resend, refused SETs.
  size_t beats = 0;
  for (const Trap& t : snmp_->Traps()) beats += t.oid == kHeartbeat;
  EXPECT_GE(beats, 3u);
  size_t mark = snmp_->Traps().size();
  auto set = snmp_->Set(kSendTest, "i", "1");
  ASSERT_TRUE(set.ok() && set->ok()) << (set.ok() ? set->Describe() : "");
  EXPECT_TRUE(WaitTrap(
      mark, [](const Trap& t) { return t.oid == kTestTrap; },
      absl::Seconds(5)));
  w = snmp_->Walk(kAlarmName);
  ASSERT_TRUE(w.ok());
  std::vector<std::string> active;
  for (const auto& [oid, value] : *w) active.push_back(value);
  mark = snmp_->Traps().size();
  set = snmp_->Set(kResend, "i", "1");
  ASSERT_TRUE(set.ok() && set->ok());
  for (const std::string& name : active) {
    EXPECT_TRUE(WaitTrap(mark, Alarm(kAlarmRaised, name), absl::Seconds(5)))
        << name << " not re-sent";
  }
  std::printf("resend: %zu active alarm(s) re-sent\n", active.size());
  for (const auto& [value, type, why] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"7", "i", "wrongValue"}, {"x", "s", "wrongType"}}) {
    set = snmp_->Set(kResend, type, value);
    ASSERT_TRUE(set.ok());
    EXPECT_FALSE(set->ok());
    EXPECT_THAT(set->stdout_text + set->stderr_text, ::testing::HasSubstr(why));
  }
  set = snmp_->Set(kClock + "1.0", "i", "2");
  ASSERT_TRUE(set.ok());
  EXPECT_THAT(set->stdout_text + set->stderr_text,
              ::testing::HasSubstr("notWritable"));
  const testutil::CommandResult done = zg_->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;
}

TEST_F(SnmpAlarmsTest, HoldoverSequenceAgrees) {
  // Locked for 12 s (a learned frequency: holdover, not free-run), then a
  // 200 us/s oscillator passes the 500 us spec about 2 s into holdover.
  StartZeitgeberd(
      {"--source=sim:lab,up_for=12s,uncertainty=1us", "--source_timeout=2s",
       "--oscillator=custom:floor_ppb=200000,aging_ppb_per_day=0,"
       "temperature_ppb_per_k=0,random_walk_ppb2_per_s=0,category=3",
       "--holdover_in_spec_limit=500us", "--freerun_limit=50ms",
       "--snmp_heartbeat_interval=0"});
  std::string metrics;
  const bool out = testutil::PollUntil(
      testutil::DeadlineIn(absl::Seconds(40)),
      [&] {
        metrics = Scrape();
        return MetricSum(metrics, "zeitgeber_alarm_active",
                         {{"alarm", "holdover_out_of_spec"}}) == 1;
      },
      absl::Milliseconds(200));
  ASSERT_TRUE(out) << zg_->Stderr();
  ASSERT_TRUE(WaitTrap(0, Alarm(kAlarmRaised, "holdover_out_of_spec"),
                       absl::Seconds(5)))
      << snmp_->Log();
  const testutil::CommandResult done = zg_->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;

  // The audit log's raises of the two, in order, with their UTC instants.
  std::vector<std::pair<std::string, std::string>> audited;
  for (const AuditedAlarm& a : AuditedAlarms()) {
    if (a.event == "alarm_raised" &&
        (a.alarm == "holdover" || a.alarm == "holdover_out_of_spec")) {
      audited.emplace_back(a.alarm, a.utc);
    }
  }
  ASSERT_EQ(audited.size(), 2u);
  EXPECT_EQ(audited[0].first, "holdover");
  EXPECT_EQ(audited[1].first, "holdover_out_of_spec");
  EXPECT_LT(audited[0].second, audited[1].second);
  // SNMP: the same two, same order, same instants (zgAlarmTime).
  std::vector<std::pair<std::string, std::string>> trapped;
  for (const Trap& t : snmp_->Traps()) {
    const std::string name = t.Column(kAlarmName);
    if (t.oid == kAlarmRaised &&
        (name == "holdover" || name == "holdover_out_of_spec")) {
      trapped.emplace_back(name, t.Column(kAlarmTime));
    }
  }
  EXPECT_EQ(trapped, audited);
  // Metrics: the since-timestamps are those instants.
  for (const auto& [name, utc] : audited) {
    absl::Time t;
    std::string err;
    ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, utc, &t, &err)) << err;
    const double since = MetricSum(
        metrics, "zeitgeber_alarm_since_timestamp_seconds", {{"alarm", name}});
    EXPECT_NEAR(since, absl::ToDoubleSeconds(t - absl::UnixEpoch()), 1e-6)
        << name;
  }
  std::printf("holdover %s, out of spec %s: audit, metrics and SNMP agree\n",
              audited[0].second.c_str(), audited[1].second.c_str());
}

TEST_F(SnmpAlarmsTest, WorkerStalledAndResumed) {
  const char* zgctl = std::getenv("ZG_ZGCTL");
  ASSERT_NE(zgctl, nullptr) << "run through meson test";
  const std::string stall = dir_->File("stall");
  const std::string socket = dir_->File("zeitgeberd.sock");
  StartZeitgeberd({"--source=sim:lab,uncertainty=1us",
                   "--worker_stall_limit=300ms", "--test_stall_file=" + stall,
                   "--control_socket=" + socket,
                   "--alarm_hysteresis=worker_stalled=0s/1s",
                   "--snmp_heartbeat_interval=0"});
  const std::map<std::string, std::string> worker0 = {
      {"alarm", "worker_stalled"}, {"resource", "0"}};
  EXPECT_EQ(MetricSum(Scrape(), "zeitgeber_alarm_active", worker0), 0);

  std::ofstream(stall) << "0\n";
  const absl::Time stalled = absl::Now();
  std::optional<Trap> raised =
      WaitTrap(0, Alarm(kAlarmRaised, "worker_stalled"), absl::Seconds(10));
  ASSERT_TRUE(raised) << snmp_->Log() << zg_->Stderr();
  const double raise_s = absl::ToDoubleSeconds(absl::Now() - stalled);
  EXPECT_EQ(raised->Column(kAlarmResource), "0");
  EXPECT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(5)), [&] {
    return MetricSum(Scrape(), "zeitgeber_alarm_active", worker0) == 1;
  })) << Scrape();
  absl::StatusOr<testutil::CommandResult> listed = testutil::RunCommand(
      {zgctl, "--socket=" + socket, "--json", "alarms"}, absl::Seconds(10));
  ASSERT_TRUE(listed.ok() && listed->ok())
      << (listed.ok() ? listed->Describe() : listed.status().ToString());
  const nlohmann::json alarms =
      nlohmann::json::parse(listed->stdout_text, nullptr, false);
  ASSERT_TRUE(alarms.is_object()) << listed->stdout_text;
  bool listed_stalled = false;
  for (const nlohmann::json& a : alarms["alarms"]) {
    listed_stalled |= a["name"] == "worker_stalled" && a["instance"] == "0" &&
                      a["active"] == true && a["severity"] == "critical";
  }
  EXPECT_TRUE(listed_stalled) << listed->stdout_text;

  std::remove(stall.c_str());
  const absl::Time resumed = absl::Now();
  std::optional<Trap> cleared =
      WaitTrap(0, Alarm(kAlarmCleared, "worker_stalled"), absl::Seconds(10));
  ASSERT_TRUE(cleared) << snmp_->Log() << zg_->Stderr();
  std::printf(
      "worker_stalled trap %.2f s after the stall (limit 0.3 s), clear %.2f "
      "s after the worker resumed\n",
      raise_s, absl::ToDoubleSeconds(absl::Now() - resumed));
  EXPECT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(5)), [&] {
    return MetricSum(Scrape(), "zeitgeber_alarm_active", worker0) == 0;
  })) << Scrape();
  const testutil::CommandResult done = zg_->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;

  // The audit log: the raise then the clear, at the traps' instants.
  std::vector<std::pair<std::string, std::string>> audited;
  for (const AuditedAlarm& a : AuditedAlarms()) {
    if (a.alarm != "worker_stalled") continue;
    EXPECT_EQ(a.resource, "0");
    audited.emplace_back(a.event, a.utc);
  }
  const std::vector<std::pair<std::string, std::string>> trapped = {
      {"alarm_raised", raised->Column(kAlarmTime)},
      {"alarm_cleared", cleared->Column(kAlarmTime)}};
  EXPECT_EQ(audited, trapped);
}

}  // namespace
}  // namespace snmp_alarms_test
}  // namespace zg::e2e
