// SPDX-License-Identifier: Apache-2.0
// The snapshots' JSON: values land in the documented fields with their
// units, absent data is null, GNSS shows every constellation (BeiDou
// included).
#include "servo/api/status_json.h"

#include "gtest/gtest.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace status_json_test {
namespace {

using nlohmann::json;

constexpr int64_t kS = 1'000'000'000;

ControlPlaneStatus Status() {
  ControlPlaneStatus s;
  s.now_tai = core::TaiNs{1'700'000'037 * kS};
  s.now_utc = core::UtcNs{1'700'000'000 * kS};
  s.model.state = core::SyncState::kLocked;
  s.model.stratum = 1;
  s.model.ptp_quality.clock_class = 6;
  s.model.reference_id = NtpRefId("GPS");
  s.model.tai_anchor = s.now_tai;
  s.model.error_bound_ns = 250;
  s.model.error_growth_ns_per_s = 10;
  s.model.utc_offset_s = 37;
  s.model.leap = core::LeapPending::kInsert;
  s.model.leap_at = core::TaiNs{s.now_tai.value + 3600 * kS};
  s.discipline.state = core::SyncState::kLocked;
  s.discipline.frequency_ppb = -12.5;
  s.holdover_in_spec_limit_ns = 1500;
  s.holdover_in_spec_left_s = 3600;
  s.uptime_ns = 90 * kS;
  s.leap_table = "37 s since 2017";
  s.leap_table_expiry = core::UtcNs{s.now_utc.value + 100 * 86400 * kS};
  SourceSnapshot gps;
  gps.name = "gpsd:127.0.0.1:2947";
  gps.kind = SourceKind::kGpsd;
  gps.spec = "gpsd:127.0.0.1:2947,priority=1";
  gps.priority = 1;
  gps.health = SourceHealth::kUp;
  gps.reach = 0377;
  gps.discipline.up = true;
  gps.discipline.selected = true;
  gps.discipline.last_offset_ns = -42;
  gps.discipline.last_uncertainty_ns = 1000;
  gps.discipline.last_sample_tai = core::TaiNs{s.now_tai.value - 2 * kS};
  gps.discipline.jitter_ns = 7;
  gps.discipline.samples = 10;
  gps.discipline.accepted = 9;
  gps.discipline.outliers = 1;
  GnssStatus g;
  g.connected = true;
  g.fix_mode = 3;
  g.satellites[static_cast<size_t>(GnssSystem::kBeidou)] = {9, 6};
  g.satellites[static_cast<size_t>(GnssSystem::kGps)] = {7, 4};
  g.satellites_seen = 16;
  g.satellites_used = 10;
  gps.gnss = g;
  SourceSnapshot sys;
  sys.name = "system";
  sys.kind = SourceKind::kSystemClock;
  sys.priority = 100;
  sys.health = SourceHealth::kUnknown;
  s.sources = {gps, sys};
  return s;
}

TEST(StatusJsonTest, Tracking) {
  const json j = TrackingJson(Status());
  EXPECT_EQ(j["state"], "LOCKED");
  EXPECT_EQ(j["selected_source"], "gpsd:127.0.0.1:2947");
  EXPECT_EQ(j["reference_id"], "GPS");
  EXPECT_EQ(j["stratum"], 1);
  EXPECT_EQ(j["clock_class"], 6);
  EXPECT_EQ(j["offset_ns"], -42);
  EXPECT_EQ(j["frequency_ppb"], -12.5);
  EXPECT_EQ(j["error_bound_ns"], 250);
  EXPECT_EQ(j["error_growth_ns_per_s"], 10);
  EXPECT_EQ(j["leap"], "insert");  // within the last day before it
  EXPECT_EQ(j["utc_offset_s"], 37);
  EXPECT_EQ(j["holdover"]["in_spec_left_s"], 3600);
  EXPECT_EQ(j["holdover"]["in_spec_limit_ns"], 1500);
  EXPECT_EQ(j["uptime_s"], 90);
}

TEST(StatusJsonTest, NoSelectedSourceIsNull) {
  ControlPlaneStatus s = Status();
  s.sources[0].discipline.selected = false;
  s.holdover_in_spec_left_s = -1;
  const json j = TrackingJson(s);
  EXPECT_TRUE(j["selected_source"].is_null());
  EXPECT_TRUE(j["offset_ns"].is_null());
  EXPECT_TRUE(j["holdover"]["in_spec_left_s"].is_null());
}

TEST(StatusJsonTest, SourcesWithGnss) {
  const json j = SourcesJson(Status());
  ASSERT_EQ(j["sources"].size(), 2u);
  const json& gps = j["sources"][0];
  EXPECT_EQ(gps["kind"], "gpsd");
  EXPECT_EQ(gps["selection"], "selected");
  EXPECT_EQ(gps["reach"], 255);
  EXPECT_EQ(gps["last_offset_ns"], -42);
  EXPECT_EQ(gps["last_error_ns"], 1000);
  EXPECT_EQ(gps["last_sample_age_s"], 2);
  EXPECT_EQ(gps["jitter_ns"], 7);
  EXPECT_EQ(gps["gnss"]["fix"], "3d");
  EXPECT_EQ(gps["gnss"]["constellations"]["beidou"]["used"], 6);
  EXPECT_EQ(gps["gnss"]["constellations"]["beidou"]["seen"], 9);
  EXPECT_EQ(gps["gnss"]["constellations"]["gps"]["used"], 4);
  const json& sys = j["sources"][1];
  EXPECT_EQ(sys["selection"], "unusable");
  EXPECT_TRUE(sys["last_offset_ns"].is_null());
  EXPECT_TRUE(sys["last_sample_age_s"].is_null());
  EXPECT_TRUE(sys["gnss"].is_null());
  const json st = SourceStatsJson(Status());
  EXPECT_EQ(st["sources"][0]["rejected"]["outlier"], 1);
  EXPECT_EQ(st["sources"][0]["accepted"], 9);
}

TEST(StatusJsonTest, Leap) {
  const json j = LeapJson(Status());
  EXPECT_EQ(j["pending"]["kind"], "insert");
  EXPECT_EQ(j["pending"]["announced"], true);
  EXPECT_EQ(j["expires_in_days"], 100);
  EXPECT_EQ(j["expired"], false);
  EXPECT_EQ(j["utc_offset_s"], 37);
}

TEST(StatusJsonTest, ServiceAndDataplane) {
  ServiceStatus s;
  s.drain = DrainState::kDraining;
  s.control_tick.late_ticks = 2;
  s.control_tick.max_lateness_ns = 5;
  const json j = ServiceJson(s);
  EXPECT_EQ(j["drain"]["state"], "DRAINING");
  EXPECT_TRUE(j["anycast"].is_null());  // no --bird_socket
  s.drain_reason = "zgctl drain (uid 0, pid 42)";
  s.anycast = "withdrawn";
  s.anycast_why = "draining";
  s.bird_reachable = true;
  const json f = ServiceJson(s);
  EXPECT_EQ(f["drain"]["reason"], "zgctl drain (uid 0, pid 42)");
  EXPECT_EQ(f["anycast"]["route"], "withdrawn");
  EXPECT_EQ(f["anycast"]["why"], "draining");
  EXPECT_EQ(f["anycast"]["bird_reachable"], true);
  EXPECT_EQ(j["control_tick"]["late_ticks"], 2);
  EXPECT_EQ(j["control_tick"]["max_lateness_ns"], 5);

  DataplaneStatus d;
  d.workers.push_back({.index = 0, .lcore = 1, .rx_packets = 10});
  d.workers[0].last_progress_age_s = 0.001;
  d.server.frames.push_back({"ntp", 10, 9});
  d.server.drops.push_back({"ntp_rate_limited", 1});
  d.server.groups.push_back({"ntp", {{"kod_sent{code=RATE}", 1}}});
  EXPECT_EQ(WorkersJson(d)["workers"][0]["rx_packets"], 10);
  EXPECT_EQ(WorkersJson(d)["workers"][0]["last_progress_age_s"], 0.001);
  const json ss = ServerStatsJson(d);
  EXPECT_EQ(ss["frames"]["ntp"]["replied"], 9);
  EXPECT_EQ(ss["drops"]["ntp_rate_limited"], 1);
  EXPECT_EQ(ss["counters"]["ntp"]["kod_sent{code=RATE}"], 1);
  EXPECT_EQ(PtpJson(d.ptp), json({{"enabled", false}}));
}

// The clock's part once, each PTP port's own part in "ports".
TEST(StatusJsonTest, PtpPortsShareTheClocksPart) {
  std::vector<PtpStatus> ports(2);
  for (size_t i = 0; i < ports.size(); ++i) {
    PtpStatus& p = ports[i];
    p.enabled = true;
    p.port = "ptp" + std::to_string(i);
    p.interface = i == 0 ? "eth0" : "eth1";
    p.profile = "default_e2e";
    p.port_identity = "001122.fffe.334455-" + std::to_string(i + 1);
    p.port_state = i == 0 ? "MASTER" : "PASSIVE";
    p.gm_identity = "001122.fffe.334455";
    p.clock_class = 6;
    p.messages_sent = {{"SYNC", 10 + i}};
    p.subscribers = i;
  }
  const json j = PtpJson(ports);
  EXPECT_EQ(j["enabled"], true);
  EXPECT_EQ(j["profile"], "default_e2e");
  EXPECT_EQ(j["grandmaster"]["identity"], "001122.fffe.334455");
  EXPECT_EQ(j["grandmaster"]["clock_class"], 6);
  ASSERT_EQ(j["ports"].size(), 2u);
  EXPECT_EQ(j["ports"][1]["port"], "ptp1");
  EXPECT_EQ(j["ports"][1]["interface"], "eth1");
  EXPECT_EQ(j["ports"][1]["port_identity"], "001122.fffe.334455-2");
  EXPECT_EQ(j["ports"][1]["port_state"], "PASSIVE");
  EXPECT_EQ(j["ports"][1]["messages_sent"]["SYNC"], 11);
  EXPECT_EQ(j["ports"][1]["unicast"]["subscribers"], 1);
  EXPECT_FALSE(j.contains("port_state"));
}

TEST(StatusJsonTest, RefIdText) {
  EXPECT_EQ(RefIdText(NtpRefId("GPS")), "GPS");
  EXPECT_EQ(RefIdText(0xC0A80001), "192.168.0.1");
}

}  // namespace
}  // namespace status_json_test
}  // namespace zg::servo
