// SPDX-License-Identifier: Apache-2.0
// zeitgeberd with a GNSS receiver it never saw before: gpsfake (Debian's
// gpsd-clients) replays tests/data/gpsd_gps_beidou.nmea (GPS $GPGSV/$GPGSA
// and BeiDou $BDGSV/$BDGSA with $GNGGA/$GNRMC) through the real gpsd into
// zeitgeberd's --source=gpsd. zeitgeberd must connect, take gpsd's fix and
// satellite view, select it as its reference and say so in the audit log,
// and export the fix and the satellites per constellation; the exposition
// must pass promtool; zgctl sourcestats must show the same fix and
// satellites.
//
// gpsfake replays the log's own date (2024-03-10T12:00:00Z..04Z) with serial
// time only (TOFF, 0.5 s error): the first sample sets the served time at
// start-up (audited as a step), later ones are judged against it. A
// reference far from the system clock is accepted only this way, at
// start-up; afterwards a jump is rejected unless --jump_accept_after says
// otherwise (doc/sources.md).
//
// Suite e2e: needs root (gpsfake starts gpsd); skips without gpsfake. Runs
// zeitgeberd on an in-process net_ring port (no NIC, no rig needed).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/deadline.h"
#include "tests/util/paths.h"
#include "tests/util/ports.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg {
namespace zeitgeberd_gpsd_test {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// Value of the sample whose name and labels are exactly `series` (as
// printed: name{l1="v1",...}), or -1.
double Metric(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double v = -1;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &v)) return v;
  }
  return -1;
}

// The metrics port zeitgeberd logged ("metrics on ... (port N)"), or 0.
int MetricsPort(const std::string& log) {
  const size_t at = log.find("/metrics (port ");
  if (at == std::string::npos) return 0;
  return std::atoi(log.c_str() + at + 15);
}

TEST(ZeitgeberdGpsdTest, SelectsGpsdAndExportsGpsAndBeidou) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (gpsfake starts gpsd)";
  for (const char* tool : {"gpsfake", "curl", "promtool"}) {
    if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
  }
  const char* zeitgeberd = std::getenv("ZG_ZEITGEBERD");
  ASSERT_NE(zeitgeberd, nullptr) << "run through meson test";
  auto dir = testutil::TempDir::Create("gpsd-e2e");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string audit = dir->File("audit.jsonl");
  const std::string control_socket = dir->File("zg.sock");
  const uint16_t port = testutil::FreeLoopbackPort();
  const std::string source = absl::StrCat("gpsd:127.0.0.1:", port);

  // zeitgeberd first, retrying gpsd every 250 ms, so it is watching when
  // gpsfake starts feeding the log.
  auto zg = testutil::Subprocess::Start(
      {zeitgeberd,
       "--no-huge",
       "-m",
       "256",
       "--no-shconf",
       "--no-pci",
       "--no-telemetry",
       "--file-prefix",
       absl::StrCat("zggpsd", getpid()),
       "--log-level=lib.eal:error",
       "-l",
       "0-1",
       "--vdev=net_ring0",
       "--",
       "--metrics_address=127.0.0.1:0",
       "--status_address=",
       "--control_socket=" + control_socket,
       "--stats_interval=100ms",
       "--idle_sleep=50us",  // no traffic: the worker sleeps
       "--source=" + source + ",reconnect_max=250ms",
       "--audit_log=" + audit,
       "--audit_fsync=every_record"});
  ASSERT_TRUE(zg.ok()) << zg.status();
  int metrics_port = 0;
  const bool up =
      testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(30)), [&] {
        if ((*zg)->Stderr().find("zeitgeberd running") != std::string::npos) {
          metrics_port = MetricsPort((*zg)->Stderr());
        }
        return metrics_port > 0 || !(*zg)->Running();
      });
  ASSERT_TRUE(up && metrics_port > 0)
      << "zeitgeberd not running with its metrics port within 30 s:\n"
      << (*zg)->Stderr();

  auto gpsfake = testutil::Subprocess::Start(
      {"gpsfake", "-P", absl::StrCat(port), "-1", "-q", "-c", "0.125",
       testutil::TestDataPath("gpsd_gps_beidou.nmea")});
  ASSERT_TRUE(gpsfake.ok()) << gpsfake.status();

  // Scrape until gpsd's fix and sky view and the selection have been seen.
  const std::string url =
      absl::StrCat("http://127.0.0.1:", metrics_port, "/metrics");
  const std::string g = absl::StrCat("source=\"", source, "\"");
  const std::string l = absl::StrCat("kind=\"gpsd\",", g);
  bool selected = false, fix = false;
  std::string scrape;
  // Fix and selection come within a few seconds of gpsfake starting.
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(30));
  while (absl::Now() < deadline && !(selected && fix)) {
    absl::StatusOr<testutil::CommandResult> r =
        testutil::RunCommand({"curl", "-sf", "--max-time", "2", url},
                             testutil::TimeLeft(deadline, absl::Seconds(3)));
    ASSERT_TRUE(r.ok()) << r.status();
    if (r->ok()) {
      const std::string& t = r->stdout_text;
      if (Metric(t, "zeitgeber_source_selected{" + l + "}") == 1) {
        selected = true;
      }
      if (Metric(t, "zeitgeber_gnss_fix_mode{" + g + "}") == 3 &&
          Metric(t, "zeitgeber_gnss_satellites_used{constellation=\"beidou\"," +
                        g + "}") == 4) {
        fix = true;
        scrape = t;
      }
    }
    absl::SleepFor(absl::Milliseconds(150));
  }
  EXPECT_TRUE(selected) << (*zg)->Stderr();
  ASSERT_TRUE(fix) << (*zg)->Stderr() << "\ngpsfake: " << (*gpsfake)->Stderr();
  EXPECT_EQ(Metric(scrape,
                   "zeitgeber_gnss_satellites_seen{constellation="
                   "\"gps\"," +
                       g + "}"),
            7);
  EXPECT_EQ(Metric(scrape,
                   "zeitgeber_gnss_satellites_used{constellation="
                   "\"gps\"," +
                       g + "}"),
            5);
  EXPECT_EQ(Metric(scrape,
                   "zeitgeber_gnss_satellites_seen{constellation="
                   "\"beidou\"," +
                       g + "}"),
            6);
  EXPECT_EQ(Metric(scrape,
                   "zeitgeber_gnss_satellites_seen{constellation="
                   "\"galileo\"," +
                       g + "}"),
            0);
  EXPECT_GE(Metric(scrape, "zeitgeber_source_samples_total{" + l + "}"), 1);
  EXPECT_GE(
      Metric(scrape, "zeitgeber_gnss_messages_total{class=\"tpv\"," + g + "}"),
      1);
  // zgctl says the same: the fix and the satellites per constellation.
  const char* zgctl = std::getenv("ZG_ZGCTL");
  ASSERT_NE(zgctl, nullptr);
  nlohmann::json gnss;
  testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    absl::StatusOr<testutil::CommandResult> r = testutil::RunCommand(
        {zgctl, "--socket=" + control_socket, "--json", "sourcestats"},
        absl::Seconds(10));
    if (!r.ok() || !r->ok()) return false;
    const nlohmann::json j =
        nlohmann::json::parse(r->stdout_text, nullptr, false);
    if (!j.is_object() || j["sources"].empty()) return false;
    gnss = j["sources"][0]["gnss"];
    return gnss.is_object() && gnss["fix_mode"] == 3 &&
           gnss["constellations"]["beidou"]["used"] == 4;
  });
  ASSERT_TRUE(gnss.is_object()) << "zgctl sourcestats: no GNSS";
  EXPECT_EQ(gnss["fix"], "3d");
  EXPECT_EQ(gnss["connected"], true);
  EXPECT_EQ(gnss["constellations"]["beidou"]["used"], 4);
  EXPECT_EQ(gnss["constellations"]["beidou"]["seen"], 6);
  EXPECT_EQ(gnss["constellations"]["gps"]["used"], 5);
  EXPECT_EQ(gnss["constellations"]["gps"]["seen"], 7);
  EXPECT_EQ(gnss["constellations"]["galileo"]["seen"], 0);
  absl::StatusOr<testutil::CommandResult> human = testutil::RunCommand(
      {zgctl, "--socket=" + control_socket, "sourcestats"}, absl::Seconds(10));
  ASSERT_TRUE(human.ok() && human->ok());
  EXPECT_THAT(human->stdout_text, HasSubstr(source + ": connected, fix 3d"));
  EXPECT_THAT(human->stdout_text, HasSubstr("  beidou         4     6\n"));
  EXPECT_THAT(human->stdout_text, HasSubstr("  gps            5     7\n"));
  absl::StatusOr<testutil::CommandResult> sources = testutil::RunCommand(
      {zgctl, "--socket=" + control_socket, "sources"}, absl::Seconds(10));
  ASSERT_TRUE(sources.ok() && sources->ok());
  EXPECT_THAT(sources->stdout_text, HasSubstr("#* " + source));

  const std::string metrics_file = dir->File("metrics.txt");
  std::ofstream(metrics_file) << scrape;
  absl::StatusOr<testutil::CommandResult> check = testutil::RunCommand(
      {"sh", "-c", "promtool check metrics < " + metrics_file},
      absl::Seconds(30));
  ASSERT_TRUE(check.ok());
  EXPECT_TRUE(check->ok()) << check->Describe();

  // gpsfake gone (and its gpsd with it): the source is down within
  // --source_timeout (5 s) of its last sample, and audited so.
  (*gpsfake)->Stop();
  const absl::Time lost = absl::Now();
  const bool down = testutil::PollUntil(
      testutil::DeadlineIn(absl::Seconds(15)),
      [&] {
        std::ifstream log(audit);
        const std::string text((std::istreambuf_iterator<char>(log)),
                               std::istreambuf_iterator<char>());
        return text.find("\"event\":\"source_down\"") != std::string::npos;
      },
      absl::Milliseconds(200));
  EXPECT_TRUE(down) << "no source_down 15 s after gpsd went away";
  std::printf("source_down audited %.1f s after gpsfake stopped\n",
              absl::ToDoubleSeconds(absl::Now() - lost));
  const testutil::CommandResult done = (*zg)->Stop(absl::Seconds(20));
  EXPECT_EQ(done.exit_code, 0) << done.stderr_text;

  // The audit log tells the story: gpsd up, selected, the time set from it.
  std::ifstream in(audit);
  std::vector<std::string> events;
  std::map<std::string, std::string> first_tai;  // event -> its "tai"
  bool selected_gpsd = false;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json v = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(v.is_discarded()) << line;
    const std::string event = v.value("event", "");
    events.push_back(event);
    first_tai.emplace(event, v.value("tai", ""));
    if (event == "selection_switch" && v.value("new", "") == source) {
      selected_gpsd = true;
    }
    if (event == "source_up") {
      EXPECT_EQ(v.value("source", ""), source);
    }
  }
  ASSERT_FALSE(events.empty())
      << "the audit log " << audit
      << " has no records (not even zeitgeberd's start record); stderr: "
      << done.stderr_text;
  EXPECT_EQ(events.front(), "start");
  EXPECT_EQ(events.back(), "stop");
  for (const char* e : {"source_health", "source_up", "selection_switch",
                        "step", "source_down"}) {
    EXPECT_THAT(events, Contains(e)) << done.stderr_text;
  }
  EXPECT_TRUE(selected_gpsd);
  // The first sample set the served time to the log's date (TAI = UTC+37 s).
  EXPECT_THAT(first_tai["step"], HasSubstr("2024-03-10T12:00:"));
}

}  // namespace
}  // namespace zeitgeberd_gpsd_test
}  // namespace zg
