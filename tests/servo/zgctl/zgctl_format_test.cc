// SPDX-License-Identifier: Apache-2.0
// zgctl's human tables read the values out of the JSON into chronyc-like
// rows, and tolerate what is missing.
#include "servo/zgctl/zgctl_format.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "servo/zgctl/zgctl_client.h"

namespace zg::zgctl {
namespace zgctl_format_test {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(ZgctlFormatTest, Durations) {
  EXPECT_EQ(FormatOffsetNs(123), "+123ns");
  EXPECT_EQ(FormatOffsetNs(-1234), "-1.234us");
  EXPECT_EQ(FormatOffsetNs(12'345'678), "+12.346ms");
  EXPECT_EQ(FormatDurationNs(-2.5e9), "2.500000s");
}

TEST(ZgctlFormatTest, Tracking) {
  const json d = {{"reference_id", "GPS"},
                  {"selected_source", "gpsd:127.0.0.1:2947"},
                  {"state", "LOCKED"},
                  {"servo_state", "locked_stable"},
                  {"stratum", 1},
                  {"clock_class", 6},
                  {"clock_accuracy", 0x21},
                  {"offset_ns", -42},
                  {"frequency_ppb", -12.5},
                  {"frequency_uncertainty_ppb", 0.5},
                  {"error_bound_now_ns", 250},
                  {"error_growth_ns_per_s", 10},
                  {"leap", "insert"},
                  {"utc_offset_s", 37},
                  {"holdover",
                   {{"in_holdover_s", 0},
                    {"in_spec_limit_ns", 1500},
                    {"in_spec_left_s", 3600}}},
                  {"uptime_s", 90}};
  const std::string out = FormatTracking(d);
  EXPECT_THAT(out, HasSubstr("Reference ID    : GPS\n"));
  EXPECT_THAT(out, HasSubstr("Source          : gpsd:127.0.0.1:2947\n"));
  EXPECT_THAT(out, HasSubstr("State           : LOCKED (servo locked_stable)"));
  EXPECT_THAT(out, HasSubstr("Clock class     : 6 (accuracy 0x21)"));
  EXPECT_THAT(out, HasSubstr("Last offset     : -42ns\n"));
  EXPECT_THAT(out, HasSubstr("Frequency       : 12.500 ppb slow"));
  EXPECT_THAT(out, HasSubstr("Error bound     : 250ns (grows 10 ns/s)"));
  EXPECT_THAT(out, HasSubstr("Leap status     : Insert second"));
  EXPECT_THAT(out, HasSubstr("in spec 3600.0 s more"));
}

TEST(ZgctlFormatTest, SourcesLikeChronyc) {
  const json d = {{"sources",
                   {{{"name", "sim:good"},
                     {"selection", "selected"},
                     {"priority", 1},
                     {"health", "up"},
                     {"reach", 255},
                     {"last_sample_age_s", 1.2},
                     {"last_offset_ns", 12},
                     {"last_error_ns", 100}},
                    {{"name", "system"},
                     {"selection", "unusable"},
                     {"priority", 100},
                     {"health", "down"},
                     {"reach", 0},
                     {"last_sample_age_s", nullptr},
                     {"last_offset_ns", nullptr}}}}};
  const std::string out = FormatSources(d, false);
  EXPECT_THAT(out, HasSubstr("MS Name"));
  EXPECT_THAT(out, HasSubstr("#* sim:good"));
  EXPECT_THAT(out, HasSubstr("377"));
  EXPECT_THAT(out, HasSubstr("+12ns +/- 100ns"));
  EXPECT_THAT(out, HasSubstr("#? system"));
  EXPECT_THAT(FormatSources(d, true), HasSubstr("Source state '*'"));
}

TEST(ZgctlFormatTest, SourceStatsShowBeidou) {
  const json d = {
      {"sources",
       {{{"name", "gpsd:x"},
         {"samples", 10},
         {"accepted", 9},
         {"rejected", {{"outlier", 1}, {"jump", 0}, {"invalid", 0}}},
         {"gnss",
          {{"connected", true},
           {"fix", "3d"},
           {"fix_mode", 3},
           {"satellites_used", 10},
           {"satellites_seen", 16},
           {"constellations",
            {{"beidou", {{"seen", 9}, {"used", 6}}},
             {"gps", {{"seen", 7}, {"used", 4}}},
             {"glonass", {{"seen", 0}, {"used", 0}}}}}}}}}}};
  const std::string out = FormatSourceStats(d);
  EXPECT_THAT(out, HasSubstr("1/0/0"));
  EXPECT_THAT(out, HasSubstr("fix 3d (mode 3), satellites used 10 of 16"));
  EXPECT_THAT(out, HasSubstr("  beidou         6     9\n"));
  EXPECT_THAT(out, HasSubstr("  gps            4     7\n"));
  EXPECT_EQ(out.find("glonass"), std::string::npos);  // none seen
}

TEST(ZgctlFormatTest, MissingFieldsPrintADash) {
  const std::string out = FormatTracking(json::object());
  EXPECT_THAT(out, HasSubstr("Source          : -\n"));
  EXPECT_THAT(FormatWorkers(json::object()), HasSubstr("Worker"));
  EXPECT_EQ(FormatAuditRecords(json::array()), "");
}

TEST(ZgctlFormatTest, AuditRecordsOnOneLineEach) {
  const json records = {{{"utc", "2024-01-01T00:00:00.000000000Z"},
                         {"event", "source_down"},
                         {"source", "sim:a"},
                         {"old", "up"},
                         {"new", "down"},
                         {"values", {{"reason", "gone"}, {"n", 3}}}}};
  EXPECT_EQ(FormatAuditRecords(records),
            "2024-01-01T00:00:00.000000000Z source_down sim:a up -> down "
            "n=3 reason=gone\n");
}

TEST(ZgctlFormatTest, ClientsOneRowEach) {
  const json d = json::parse(R"({
    "sort": "drops", "top": 2, "address": "10.99.0.0/24", "workers": 1,
    "capacity": 1000000, "tracked": 3, "evictions": 0, "matched": 3,
    "busy": 0,
    "clients": [
      {"address": "10.99.0.22", "requests": 300,
       "drops": {"rate_limit": 283, "acl": 0, "auth": 0}, "kod": 1,
       "auth": "none", "key_id": null, "mode": "basic",
       "last_seen_ago_s": 1.5, "interval_s": 0.0003},
      {"address": "10.99.0.23", "requests": 1,
       "drops": {"rate_limit": 0, "acl": 0, "auth": 0}, "kod": 0,
       "auth": "nts", "key_id": null, "mode": "interleaved",
       "last_seen_ago_s": 3, "interval_s": null}]})");
  const std::string out = FormatClients(d);
  EXPECT_THAT(out,
              ::testing::ContainsRegex(
                  "10\\.99\\.0\\.22 +300 +283 +283 +0 +0 +1 +none +basic"));
  EXPECT_THAT(out, ::testing::ContainsRegex(
                       "10\\.99\\.0\\.23 +1 +0 +0 +0 +0 +0 +nts +ilv +-"));
  EXPECT_THAT(out, HasSubstr("2 of 3 clients by drops within 10.99.0.0/24 "
                             "(tracked 3 of 1000000, evictions 0)\n"));
}

TEST(ZgctlFormatTest, AlarmsAndTheirEvents) {
  const json d = json::parse(R"({
    "active": 1, "last_seq": 2,
    "alarms": [{"slot": 9, "id": 10, "name": "leap_table_expiring",
                "instance": "", "severity": "warning", "active": true,
                "raises": 1, "since_tai_ns": 1, "since_utc":
                "2026-12-03T20:00:00.000000000Z",
                "message": "the leap table expired"}],
    "events": [{"seq": 2, "slot": 9, "id": 10,
                "name": "leap_table_expiring", "instance": "",
                "severity": "warning", "state": "raised", "tai_ns": 1,
                "utc": "2026-12-03T20:00:00.000000000Z",
                "message": "the leap table expired"}]})");
  const std::string out = FormatAlarms(d);
  EXPECT_THAT(out, ::testing::ContainsRegex(
                       "\nwarning +leap_table_expiring +- +2026-12-03T20:00"
                       ":00.000000000Z +the leap table expired\n"));
  EXPECT_THAT(out, HasSubstr("1 raised\n"));
  EXPECT_THAT(out,
              ::testing::ContainsRegex("#2 +2026-12-03T20:00:00.000000000Z "
                                       "+raised +leap_table_expiring"));
}

TEST(ZgctlFormatTest, SourceChangesAndTheReloadsPart) {
  const json added = json::parse(R"({
    "ok": true, "action": "add", "persistent": false,
    "selected": "sim:better",
    "changes": [{"source": "sim:better", "change": "added",
                 "spec": "sim:better,priority=1", "priority": 1,
                 "enabled": true}]})");
  std::string out = FormatSourceChange(added);
  EXPECT_THAT(out, HasSubstr("Source change   : add: done, lost at the next "
                             "restart or reload"));
  EXPECT_THAT(out, HasSubstr("Selected        : sim:better\n"));
  EXPECT_THAT(out, HasSubstr("sim:better      : added (sim:better,priority=1, "
                             "priority 1)\n"));
  const json refused = {{"ok", false},
                        {"action", "add"},
                        {"persistent", false},
                        {"changes", json::array()},
                        {"error", "unknown option 'bogus'"}};
  out = FormatSourceChange(refused);
  EXPECT_THAT(out, HasSubstr("add: refused, the sources in force stay"));
  EXPECT_THAT(out, HasSubstr("Error           : unknown option 'bogus'\n"));
  json reload = {{"outcome", "ok"}, {"duration_s", 0.01}, {"sources", nullptr}};
  EXPECT_THAT(FormatReload(reload), HasSubstr("Sources         : unchanged\n"));
  reload["sources"] = added;
  reload["sources"]["selected"] = "";
  EXPECT_THAT(FormatReload(reload),
              HasSubstr("Sources         : sim:better added; selected none "
                        "(holdover)\n"));
}

TEST(ZgctlFormatTest, PtpClockOnceThenEachPort) {
  const json d = {
      {"enabled", true},
      {"profile", "default_e2e"},
      {"domain", 0},
      {"grandmaster", {{"identity", "001122.fffe.334455"}, {"clock_class", 6}}},
      {"ports",
       {{{"port", "ptp0"},
         {"interface", "eth0"},
         {"port_identity", "001122.fffe.334455-1"},
         {"port_state", "MASTER"}},
        {{"port", "ptp1"},
         {"interface", "eth1"},
         {"port_identity", "001122.fffe.334455-2"},
         {"port_state", "PASSIVE"}}}}};
  const std::string out = FormatPtp(d);
  EXPECT_THAT(out, HasSubstr("Grandmaster     : 001122.fffe.334455"));
  EXPECT_THAT(out, HasSubstr("PTP port ptp0 on eth0"));
  EXPECT_THAT(out, HasSubstr("PTP port ptp1 on eth1"));
  EXPECT_THAT(out, HasSubstr("001122.fffe.334455-2"));
  EXPECT_THAT(out, HasSubstr("Port state      : PASSIVE"));
  EXPECT_LT(out.find("ptp0"), out.find("ptp1"));
  EXPECT_EQ(FormatPtp({{"enabled", false}}), "PTP is off (zeitgeberd --ptp)\n");
}

TEST(ZgctlClientTest, ExitCodesAreDistinct) {
  EXPECT_EQ(ExitCodeFor(servo::ErrorCode::kUnknownCommand), kZgctlUsage);
  EXPECT_EQ(ExitCodeFor(servo::ErrorCode::kPermissionDenied), kZgctlPermission);
  EXPECT_EQ(ExitCodeFor(servo::ErrorCode::kFailed), kZgctlFailed);
  EXPECT_EQ(ExitCodeFor(servo::ErrorCode::kShuttingDown), kZgctlNotRunning);
  const ClientResult r = ZgctlClient("/nonexistent-zg/zg.sock").Call("x", {});
  EXPECT_EQ(r.exit_code, kZgctlNotRunning);
  EXPECT_THAT(r.message, HasSubstr("not running"));
}

}  // namespace
}  // namespace zgctl_format_test
}  // namespace zg::zgctl
