// SPDX-License-Identifier: Apache-2.0
// --source values: every kind with its options, the defaults they leave, and
// the errors an operator gets for what is not accepted.
#include "servo/sources/source_spec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace source_spec_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

SourceSpec Parse(const std::string& text) {
  absl::StatusOr<SourceSpec> s = ParseSourceSpec(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.ok() ? *s : SourceSpec{};
}

std::string Error(const std::string& text) {
  absl::StatusOr<SourceSpec> s = ParseSourceSpec(text);
  EXPECT_FALSE(s.ok()) << text << " was accepted";
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(s.status().message());
}

TEST(SourceSpecTest, SystemDefaultsAndScale) {
  SourceSpec s = Parse("system");
  EXPECT_EQ(s.kind, SourceKind::kSystemClock);
  EXPECT_EQ(s.text, "system");
  EXPECT_FALSE(s.name.has_value());
  EXPECT_FALSE(s.priority.has_value());
  EXPECT_EQ(s.poll_interval_ns, kS);
  EXPECT_EQ(s.sample_interval_ns, kS);
  EXPECT_EQ(s.system.scale, SystemClockSourceOptions::Scale::kAuto);
  s = Parse("system,scale=tai,priority=3,name=host-clock,interval=500ms");
  EXPECT_EQ(s.system.scale, SystemClockSourceOptions::Scale::kTai);
  EXPECT_EQ(s.priority, 3);
  EXPECT_EQ(s.name, "host-clock");
  EXPECT_EQ(s.poll_interval_ns, 500 * kMs);
  EXPECT_EQ(s.sample_interval_ns, 500 * kMs);
  EXPECT_EQ(Parse("system,scale=realtime").system.scale,
            SystemClockSourceOptions::Scale::kRealtime);
}

TEST(SourceSpecTest, GpsdAddressesAndOptions) {
  SourceSpec s = Parse("gpsd");
  EXPECT_EQ(s.kind, SourceKind::kGpsd);
  EXPECT_EQ(s.gpsd.host, "127.0.0.1");
  EXPECT_EQ(s.gpsd.port, 2947);
  EXPECT_EQ(s.poll_interval_ns, 100 * kMs);
  EXPECT_EQ(s.sample_interval_ns, kS);  // gpsd reports once a second
  s = Parse(
      "gpsd:192.0.2.7:3000,priority=1,device=/dev/ttyS0,pps_error=2us,"
      "toff=off,toff_error=100ms,toff_delay=-20ms,timeout=8s,"
      "reconnect_max=250ms");
  EXPECT_EQ(s.gpsd.host, "192.0.2.7");
  EXPECT_EQ(s.gpsd.port, 3000);
  EXPECT_EQ(s.priority, 1);
  EXPECT_EQ(s.gpsd.device, "/dev/ttyS0");
  EXPECT_EQ(s.gpsd.pps_error_ns, 2'000);
  EXPECT_FALSE(s.gpsd.use_toff);
  EXPECT_EQ(s.gpsd.toff_error_ns, 100 * kMs);
  EXPECT_EQ(s.gpsd.toff_delay_ns, -20 * kMs);
  EXPECT_EQ(s.gpsd.timeout_ns, 8 * kS);
  EXPECT_EQ(s.gpsd.reconnect_max_ns, 250 * kMs);
  EXPECT_LE(s.gpsd.reconnect_min_ns, 250 * kMs);
  s = Parse("gpsd:[::1]:2947");
  EXPECT_EQ(s.gpsd.host, "::1");
  EXPECT_EQ(s.gpsd.port, 2947);
  EXPECT_EQ(Parse("gpsd:gps.example:2947").gpsd.host, "gps.example");
}

TEST(SourceSpecTest, PhcAndPps) {
  SourceSpec s = Parse("phc:/dev/ptp0,timescale=utc,error=50ns,reads=9");
  EXPECT_EQ(s.kind, SourceKind::kPhc);
  EXPECT_EQ(s.device_path, "/dev/ptp0");
  EXPECT_EQ(s.phc.timescale, PhcSourceOptions::Timescale::kUtc);
  EXPECT_EQ(s.phc.phc_error_ns, 50);
  EXPECT_EQ(s.phc.samples_per_read, 9);
  s = Parse("pps:/dev/pps0,edge=clear,delay=-150ns,error=1us,coarse=gpsd");
  EXPECT_EQ(s.kind, SourceKind::kPps);
  EXPECT_EQ(s.device_path, "/dev/pps0");
  EXPECT_EQ(s.pps.edge, PpsEdge::kClear);
  EXPECT_EQ(s.pps.edge_delay_ns, -150);
  EXPECT_EQ(s.pps.edge_error_ns, 1'000);
  EXPECT_TRUE(s.pps_coarse_from_gpsd);
  EXPECT_EQ(s.sample_interval_ns, kS);
  EXPECT_FALSE(Parse("pps:/dev/pps1").pps_coarse_from_gpsd);
}

TEST(SourceSpecTest, SimulatedScript) {
  SourceSpec s = Parse("sim");
  EXPECT_EQ(s.kind, SourceKind::kSimulated);
  EXPECT_EQ(s.sim.up_for_ns, 0);
  s = Parse("sim:up_for=20s,uncertainty=2us,interval=250ms");
  EXPECT_EQ(s.sim.up_for_ns, 20 * kS);
  EXPECT_EQ(s.sim.uncertainty_ns, 2'000);
  EXPECT_EQ(s.poll_interval_ns, 250 * kMs);
  EXPECT_EQ(s.sample_interval_ns, 250 * kMs);
  s = Parse(
      "sim:lab,up_for=1m,down_for=30s,noise=100ns,seed=9,offset=-1us,"
      "jump=5ms,jump_after=40s,control_file=/run/zg-sim,stratum=1,"
      "refid=LAB1");
  EXPECT_EQ(s.sim.info.name, "sim:lab");
  EXPECT_EQ(s.sim.up_for_ns, 60 * kS);
  EXPECT_EQ(s.sim.down_for_ns, 30 * kS);
  EXPECT_EQ(s.sim.noise_ns, 100);
  EXPECT_EQ(s.sim.seed, 9u);
  EXPECT_EQ(s.sim.offset_ns, -1'000);
  EXPECT_EQ(s.sim.jump_ns, 5 * kMs);
  EXPECT_EQ(s.sim.jump_after_ns, 40 * kS);
  EXPECT_EQ(s.sim.control_file, "/run/zg-sim");
  EXPECT_EQ(s.sim.info.stratum, 1);
  EXPECT_EQ(s.sim.info.ntp_refid, NtpRefId("LAB1"));
}

// traceable= overrides the kind's default (applied by BuildSource; the
// control plane's class test shows its effect).
TEST(SourceSpecTest, TraceableIsDeclaredPerSource) {
  EXPECT_FALSE(Parse("system").traceable.has_value());
  EXPECT_EQ(Parse("system,traceable=true").traceable, true);
  EXPECT_EQ(Parse("phc:/dev/ptp0,traceable=on").traceable, true);
  EXPECT_EQ(Parse("gpsd,traceable=false").traceable, false);
  EXPECT_THAT(Error("system,traceable=yes"), HasSubstr("on|off"));
  EXPECT_THAT(Error("system,bogus=1"), HasSubstr("traceable"));
}

TEST(SourceSpecTest, ErrorsNameTheProblem) {
  EXPECT_THAT(Error("ntp:pool.example"),
              HasSubstr("unknown source kind 'ntp'"));
  EXPECT_THAT(Error(""), HasSubstr("unknown source kind ''"));
  EXPECT_THAT(Error("system:/dev/x"), HasSubstr("system takes no target"));
  EXPECT_THAT(Error("system,scale=gps"), HasSubstr("auto, tai or realtime"));
  EXPECT_THAT(Error("system,bogus=1"),
              HasSubstr("unknown option 'bogus' for system"));
  EXPECT_THAT(Error("system,priority"), HasSubstr("expected KEY=VALUE"));
  EXPECT_THAT(Error("system,"), HasSubstr("trailing ','"));
  EXPECT_THAT(Error("system,,priority=1"), HasSubstr("expected KEY=VALUE"));
  EXPECT_THAT(Error("system,priority=1,priority=2"), HasSubstr("given twice"));
  EXPECT_THAT(Error("system,priority=x"), HasSubstr("integer -1000..1000"));
  EXPECT_THAT(Error("system,priority=5000"), HasSubstr("integer -1000..1000"));
  EXPECT_THAT(Error("system,interval=5"), HasSubstr("not a duration"));
  EXPECT_THAT(Error("system,interval=1ms"), HasSubstr("must be 10ms..1m"));
  EXPECT_THAT(Error("system,interval=inf"), HasSubstr("not a duration"));
  EXPECT_THAT(Error("system,timeout=1s"),
              HasSubstr("at least two sample intervals"));
  EXPECT_THAT(Error("system,name=a b"), HasSubstr("name=a b"));
  EXPECT_THAT(Error("gpsd:localhost"), HasSubstr("HOST:PORT"));
  EXPECT_THAT(Error("gpsd:localhost:0"), HasSubstr("port 1..65535"));
  EXPECT_THAT(Error("gpsd:localhost:99999"), HasSubstr("port 1..65535"));
  EXPECT_THAT(Error("gpsd::2947"), HasSubstr("port 1..65535"));
  EXPECT_THAT(Error("gpsd:[::1]2947"), HasSubstr("[IPV6]:PORT"));
  EXPECT_THAT(Error("gpsd:a/b:2947"), HasSubstr("invalid character"));
  EXPECT_THAT(Error("gpsd:"), HasSubstr("empty target"));
  EXPECT_THAT(Error("gpsd,toff=maybe"), HasSubstr("on|off"));
  EXPECT_THAT(Error("phc"), HasSubstr("absolute path"));
  EXPECT_THAT(Error("phc:ptp0"), HasSubstr("absolute path"));
  EXPECT_THAT(Error("pps:/dev/pps0,edge=both"), HasSubstr("assert or clear"));
  EXPECT_THAT(Error("pps:/dev/pps0,delay=2s"), HasSubstr("must be -1s..1s"));
  EXPECT_THAT(Error("sim:down_for=10s"), HasSubstr("down_for needs up_for"));
  EXPECT_THAT(Error("sim,refid=gps"), HasSubstr("A-Z 0-9"));
  EXPECT_THAT(Error("sim,stratum=16"), HasSubstr("0..15"));
  EXPECT_THAT(Error("sim,uncertainty=-1us"), HasSubstr("must be 0..1h"));
  EXPECT_THAT(Error("sim,control_file=/a b"), HasSubstr("spaces"));
  EXPECT_THAT(Error(std::string(2000, 'x')), HasSubstr("longer than 1024"));
}

TEST(SourceSpecTest, KindNames) {
  EXPECT_STREQ(SourceKindName(SourceKind::kSystemClock), "system");
  EXPECT_STREQ(SourceKindName(SourceKind::kGpsd), "gpsd");
  EXPECT_STREQ(SourceKindName(SourceKind::kPhc), "phc");
  EXPECT_STREQ(SourceKindName(SourceKind::kPps), "pps");
  EXPECT_STREQ(SourceKindName(SourceKind::kSimulated), "sim");
}

}  // namespace
}  // namespace source_spec_test
}  // namespace zg::servo
