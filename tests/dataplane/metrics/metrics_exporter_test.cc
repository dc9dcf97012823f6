// SPDX-License-Identifier: Apache-2.0
// The Prometheus exporter: values follow WorkerStats and the published clock,
// counters advance by deltas, names follow CounterNames, the HTTP exposition
// passes `promtool check metrics`, and a busy address is an actionable error.
#include "dataplane/metrics/metrics_exporter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/time/tsc.h"
#include "dataplane/metrics/control_metrics.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "servo/control/control_plane.h"
#include "servo/sources/source_spec.h"

namespace zg::dataplane {
namespace metrics_exporter_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kS = core::kNanosPerSecond;
constexpr double kTscHz = 2e9;

// `promtool check metrics` on an exposition; "" when it passes.
std::string PromtoolProblems(const std::string& body) {
  const std::string path =
      ::testing::TempDir() + "/zg_metrics_" + std::to_string(getpid()) + ".txt";
  std::ofstream(path) << body;
  const std::string cmd =
      absl::StrCat("promtool check metrics < ", path, " 2>&1");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "cannot run promtool";
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  const int rc = pclose(p);
  std::remove(path.c_str());
  return rc == 0 ? "" : absl::StrCat("promtool check metrics:\n", out);
}

// GET http://127.0.0.1:port/metrics (HTTP/1.0: the server closes).
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return "";
  }
  const std::string req = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
  (void)!write(fd, req.data(), req.size());
  std::string resp;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) resp.append(buf, n);
  close(fd);
  const size_t body = resp.find("\r\n\r\n");
  return body == std::string::npos ? "" : resp.substr(body + 4);
}

class MetricsExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto base = names_.AddDropReasons("ntp", {"bad_mode", "rate_limited"});
    ASSERT_TRUE(base.ok());
    ntp_base_ = *base;
    ASSERT_TRUE(names_.SetKindName(1, "ntp").ok());
    core::ClockModel m;
    m.raw_anchor = core::ReadTsc();
    m.tai_anchor = core::TaiNs{1'800'000'037 * kS};
    m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(kTscHz);
    m.error_bound_ns = 2'000;
    m.max_extrapolation_ns = 10 * kS;
    m.state = core::SyncState::kLocked;
    m.stratum = 2;
    clock_.Write(m);
  }

  absl::StatusOr<std::unique_ptr<MetricsExporter>> StartExporter(
      const std::string& address) {
    return MetricsExporter::Start(address, &names_,
                                  {{&stats_[0], "0", "1", "net_ring0"},
                                   {&stats_[1], "1", "2", "net_ring0"}},
                                  {{&clock_, "tsc"}}, {}, kTscHz);
  }

  CounterNames names_;
  uint8_t ntp_base_ = 0;
  WorkerStats stats_[2];
  core::PublishedClock clock_;
};

TEST_F(MetricsExporterTest, ExposesWorkerCountersAndClockGauges) {
  auto e = StartExporter("127.0.0.1:0");
  ASSERT_TRUE(e.ok()) << e.status();
  stats_[0].rx_packets.Add(7);
  stats_[0].handled[1].Add(5);
  stats_[0].replied[1].Add(4);
  stats_[1].dropped[ntp_base_ + 1].Add(3);
  stats_[1].dropped[40].Add(2);  // an index nobody named
  stats_[1].sw_stamped.Add(9);
  (*e)->Update();
  stats_[0].rx_packets.Add(4);  // counters advance by the delta
  (*e)->Update();
  const std::string text = (*e)->Serialize();
  EXPECT_THAT(text, HasSubstr("zeitgeber_rx_packets_total{lcore=\"1\",port="
                              "\"net_ring0\",worker=\"0\"} 11"));
  EXPECT_THAT(text,
              HasSubstr("zeitgeber_frames_handled_total{kind=\"ntp\","
                        "lcore=\"1\",port=\"net_ring0\",worker=\"0\"} 5"));
  EXPECT_THAT(text,
              HasSubstr("zeitgeber_frames_replied_total{kind=\"ntp\","
                        "lcore=\"1\",port=\"net_ring0\",worker=\"0\"} 4"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_frames_dropped_total{lcore=\"2\","
                              "port=\"net_ring0\",reason=\"ntp_rate_limited\","
                              "worker=\"1\"} 3"));
  EXPECT_THAT(text, HasSubstr("reason=\"reason_40\",worker=\"1\"} 2"));
  // Named reasons are exported at zero too (alerts need the series).
  EXPECT_THAT(text, HasSubstr("reason=\"worker_no_handler\",worker=\"0\"} 0"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_rx_timestamps_total{lcore=\"2\","
                              "port=\"net_ring0\",source=\"tsc\",worker=\"1\"} "
                              "9"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_clock_sync_state{clock=\"tsc\","
                              "state=\"locked\"} 1"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_clock_sync_state{clock=\"tsc\","
                              "state=\"freerun\"} 0"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_clock_stratum{clock=\"tsc\"} 2"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_clock_synchronized{clock=\"tsc\"} 1"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_build_info{version=\"0.1.0\"} 1"));
  EXPECT_THAT(text, Not(HasSubstr("kind=\"kind_")));
}

TEST_F(MetricsExporterTest, HttpExpositionPassesPromtool) {
  auto e = StartExporter("127.0.0.1:0");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_GT((*e)->listening_port(), 0);
  stats_[0].rx_packets.Add(1);
  (*e)->Update();
  const std::string body = Scrape((*e)->listening_port());
  ASSERT_THAT(body, HasSubstr("zeitgeber_rx_packets_total"));
  EXPECT_EQ(PromtoolProblems(body), "");
}

// Worker counters are read when Prometheus scrapes, not copied on a timer:
// what a worker counted just before a scrape is in it, with no Update().
TEST_F(MetricsExporterTest, WorkerCountersAreReadAtScrapeTime) {
  auto e = StartExporter("127.0.0.1:0");
  ASSERT_TRUE(e.ok()) << e.status();
  for (int round = 1; round <= 3; ++round) {
    stats_[1].tx_packets.Add(1000);
    stats_[1].dropped[ntp_base_ + 1].Add(1);
    const std::string body = Scrape((*e)->listening_port());
    EXPECT_THAT(body, HasSubstr(absl::StrCat(
                          "zeitgeber_tx_packets_total{lcore=\"2\",port=\""
                          "net_ring0\",worker=\"1\"} ",
                          1000 * round, "\n")));
    EXPECT_THAT(body,
                HasSubstr(absl::StrCat("reason=\"ntp_rate_limited\",worker="
                                       "\"1\"} ",
                                       round, "\n")));
  }
}

// A snapshot as a gpsd-fed control plane in holdover would report it.
servo::ControlPlaneStatus GnssHoldoverStatus() {
  servo::ControlPlaneStatus st;
  st.discipline.state = core::SyncState::kHoldoverInSpec;
  st.discipline.bound_ns = 1'200;
  st.discipline.frequency_ppb = -12'345.5;
  st.discipline.holdover_s = 42;
  st.discipline.steps = 1;
  st.tsc.hz = 2'999'998'123.0;
  st.tsc.uncertainty_ppb = 3.5;
  st.tsc.drift_ppb_per_s = 0.25;
  servo::SourceSnapshot gps;
  gps.name = "gpsd:127.0.0.1:2947";
  gps.kind = servo::SourceKind::kGpsd;
  gps.priority = 10;
  gps.health = servo::SourceHealth::kDown;
  gps.discipline.samples = 100;
  gps.discipline.accepted = 90;
  gps.discipline.jumps = 7;
  gps.discipline.last_offset_ns = -2'500;
  gps.poll_errors = 3;
  servo::GnssStatus g;
  g.connected = true;
  g.fix_mode = 3;
  g.satellites[static_cast<size_t>(servo::GnssSystem::kGps)] = {7, 5};
  g.satellites[static_cast<size_t>(servo::GnssSystem::kBeidou)] = {6, 4};
  g.tpv_messages = 5;
  gps.gnss = g;
  st.sources.push_back(gps);
  servo::NicClockStatus nic;
  nic.name = "port0";
  nic.ticks_per_second = 1e9;
  nic.drift_ppb_per_s = -0.5;
  nic.bracket_half_width_ns = 40;
  nic.steps = 2;
  st.nics.push_back(nic);
  st.audit_enabled = true;
  st.audit.records = 17;
  st.leap_table_expiry = core::UtcNs{1'782'604'800 * kS};
  return st;
}

TEST(ControlMetricsTest, ExportsSourcesGnssDisciplineTscNicAndAudit) {
  prometheus::Registry registry;
  ControlMetrics m(registry);
  m.Update(GnssHoldoverStatus());
  m.Update(GnssHoldoverStatus());  // counters do not double
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry.Collect());
  const std::string text = out.str();
  const std::string src = "kind=\"gpsd\",source=\"gpsd:127.0.0.1:2947\"";
  for (const std::string& want : {
           "zeitgeber_source_up{" + src + "} 0",
           "zeitgeber_source_health{health=\"down\"," + src + "} 1",
           "zeitgeber_source_health{health=\"up\"," + src + "} 0",
           "zeitgeber_source_priority{" + src + "} 10",
           "zeitgeber_source_offset_seconds{" + src + "} -2.5e-06",
           "zeitgeber_source_samples_total{" + src + "} 100",
           "zeitgeber_source_samples_accepted_total{" + src + "} 90",
           // Labels come out sorted by name.
           std::string("zeitgeber_source_samples_rejected_total{kind=\"gpsd\","
                       "reason=\"jump\",source=\"gpsd:127.0.0.1:2947\"} 7"),
           "zeitgeber_source_poll_errors_total{" + src + "} 3",
           std::string("zeitgeber_gnss_fix_mode{source=\"gpsd:127.0.0.1:"
                       "2947\"} 3"),
           std::string("zeitgeber_gnss_satellites_used{constellation=\"gps\","
                       "source=\"gpsd:127.0.0.1:2947\"} 5"),
           std::string("zeitgeber_gnss_satellites_seen{constellation="
                       "\"beidou\",source=\"gpsd:127.0.0.1:2947\"} 6"),
           std::string("zeitgeber_gnss_satellites_used{constellation="
                       "\"beidou\",source=\"gpsd:127.0.0.1:2947\"} 4"),
           std::string("zeitgeber_discipline_state{state=\"holdover_in_spec\"} "
                       "1"),
           std::string("zeitgeber_discipline_state{state=\"locked\"} 0"),
           std::string("zeitgeber_discipline_error_bound_seconds 1.2e-06"),
           std::string("zeitgeber_discipline_frequency_offset_ppb -12345.5"),
           std::string("zeitgeber_discipline_holdover_seconds 42"),
           std::string("zeitgeber_discipline_steps_total 1"),
           std::string("zeitgeber_tsc_frequency_hz 2999998123"),
           std::string("zeitgeber_tsc_frequency_drift_ppb_per_second 0.25"),
           std::string("zeitgeber_nic_clock_drift_ppb_per_second{clock="
                       "\"nic:port0\"} -0.5"),
           std::string("zeitgeber_nic_clock_steps_total{clock=\"nic:port0\"} "
                       "2"),
           std::string("zeitgeber_nic_clock_bracket_half_width_seconds{clock="
                       "\"nic:port0\"} 4e-08"),
           std::string("zeitgeber_audit_records_total 17"),
           std::string("zeitgeber_leap_table_expiry_timestamp_seconds "
                       "1782604800"),
       }) {
    EXPECT_THAT(text, HasSubstr(want));
  }
  EXPECT_EQ(PromtoolProblems(text), "");
}

// Sources deleted while running lose their series; a source rebuilt from
// a new spec under its name starts its counters again.
TEST(ControlMetricsTest, DeletedSourcesLeaveNoSeries) {
  prometheus::Registry registry;
  ControlMetrics m(registry);
  const auto text = [&] {
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, registry.Collect());
    return out.str();
  };
  servo::ControlPlaneStatus st = GnssHoldoverStatus();
  servo::SourceSnapshot sim;
  sim.name = "sim:better";
  sim.kind = servo::SourceKind::kSimulated;
  sim.spec = "sim:better,priority=1";
  sim.enabled = false;
  sim.discipline.selected = true;
  sim.discipline.samples = 50;
  st.sources.push_back(sim);
  m.Update(st);
  EXPECT_THAT(text(), HasSubstr("zeitgeber_source_selected{kind=\"sim\","
                                "source=\"sim:better\"} 1"));
  EXPECT_THAT(text(), HasSubstr("zeitgeber_source_enabled{kind=\"sim\","
                                "source=\"sim:better\"} 0"));
  st.sources[1].spec = "sim:better,priority=1,noise=1us";  // rebuilt
  st.sources[1].discipline.samples = 2;
  m.Update(st);
  EXPECT_THAT(text(), HasSubstr("zeitgeber_source_samples_total{kind=\"sim\","
                                "source=\"sim:better\"} 2"));
  st.sources.pop_back();  // deleted
  m.Update(st);
  EXPECT_THAT(text(), Not(HasSubstr("sim:better")));
  EXPECT_THAT(text(), HasSubstr("zeitgeber_source_up{kind=\"gpsd\""));
  EXPECT_EQ(PromtoolProblems(text()), "");
}

TEST_F(MetricsExporterTest, AttachedControlPlaneIsScraped) {
  servo::ControlPlaneConfig c;
  c.sources.push_back(*servo::ParseSourceSpec("sim:lab"));
  core::PublishedClock published;
  auto control = servo::ControlPlane::Create(std::move(c), &published);
  ASSERT_TRUE(control.ok()) << control.status();
  auto e = StartExporter("127.0.0.1:0");
  ASSERT_TRUE(e.ok()) << e.status();
  (*e)->AttachControlPlane(control->get());
  (*control)->Tick();
  (*e)->Update();
  const std::string body = Scrape((*e)->listening_port());
  EXPECT_THAT(body, HasSubstr("zeitgeber_source_up{kind=\"sim\","
                              "source=\"sim:lab\"} 1"));
  EXPECT_THAT(body, HasSubstr("zeitgeber_source_selected{kind=\"sim\","
                              "source=\"sim:lab\"} 1"));
  EXPECT_THAT(body, HasSubstr("zeitgeber_discipline_state{state=\"locking\"} "
                              "1"));
  EXPECT_THAT(body, HasSubstr("zeitgeber_tsc_frequency_hz "));
  EXPECT_THAT(body, HasSubstr("zeitgeber_clock_class{clock=\"tsc\"} 248"));
  EXPECT_EQ(PromtoolProblems(body), "");
  (*e)->AttachControlPlane(nullptr);
}

TEST_F(MetricsExporterTest, BusyAddressIsAnActionableError) {
  auto first = StartExporter("127.0.0.1:0");
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string taken =
      absl::StrCat("127.0.0.1:", (*first)->listening_port());
  auto second = StartExporter(taken);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("--metrics_address"));
}

TEST_F(MetricsExporterTest, StaleModelReadsUnsynchronised) {
  core::ClockModel m;
  ASSERT_TRUE(clock_.TryRead(&m));
  m.raw_anchor -= static_cast<uint64_t>(20 * kTscHz);  // anchored 20 s ago
  clock_.Write(m);
  auto e = StartExporter("");  // no HTTP: registry only
  ASSERT_TRUE(e.ok()) << e.status();
  const std::string text = (*e)->Serialize();
  EXPECT_THAT(text, HasSubstr("zeitgeber_clock_synchronized{clock=\"tsc\"} 0"));
  EXPECT_THAT(text,
              HasSubstr("zeitgeber_clock_model_age_seconds{clock=\"tsc\"} 20"));
}

}  // namespace
}  // namespace metrics_exporter_test
}  // namespace zg::dataplane
