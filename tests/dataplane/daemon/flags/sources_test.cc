// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's control-plane flags: the default source, repeated --source
// (flagfiles too), system-clock trust, servo/oscillator/holdover settings,
// the audit log, and the errors an operator gets.
#include "dataplane/daemon/flags/sources.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/reflection.h"
#include "dataplane/daemon/flags.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace sources_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMs = 1'000'000;

absl::StatusOr<DaemonConfig> Parse(std::vector<std::string> args) {
  static std::vector<std::vector<std::string>> keep;  // argv must outlive
  args.insert(args.begin(), "zeitgeberd");
  keep.push_back(args);
  std::vector<char*> argv;
  for (std::string& a : keep.back()) argv.push_back(a.data());
  return ParseDaemonFlags(argv);
}

std::string Error(std::vector<std::string> args) {
  absl::FlagSaver saver;
  absl::StatusOr<DaemonConfig> c = Parse(std::move(args));
  EXPECT_FALSE(c.ok());
  return std::string(c.status().message());
}

TEST(ControlFlagsTest, DefaultsServeTheSystemClockOnlyIfSynchronised) {
  absl::FlagSaver saver;
  absl::StatusOr<DaemonConfig> c = Parse({});
  ASSERT_TRUE(c.ok()) << c.status();
  const servo::ControlPlaneConfig& cp = c->control;
  ASSERT_EQ(cp.sources.size(), 1u);
  EXPECT_EQ(cp.sources[0].kind, servo::SourceKind::kSystemClock);
  EXPECT_TRUE(cp.sources[0].system.require_synchronized);
  EXPECT_EQ(cp.discipline.servo.type, servo::ServoType::kLinreg);
  EXPECT_EQ(cp.discipline.oscillator.kind, servo::OscillatorKind::kTcxo);
  EXPECT_EQ(cp.discipline.holdover.in_spec_limit_ns, 1'500);
  EXPECT_EQ(cp.discipline.holdover.freerun_limit_ns, 1 * kMs);
  EXPECT_EQ(cp.discipline.servo.step_threshold_ns, 0) << "never step";
  EXPECT_EQ(cp.discipline.jump_accept_after, 0);
  EXPECT_FALSE(cp.discipline.follow_outvoting_majority);
  EXPECT_EQ(cp.leap_file, "/usr/share/zoneinfo/leap-seconds.list");
  EXPECT_TRUE(cp.audit.path.empty());
  EXPECT_FALSE(cp.settings.empty());
}

TEST(ControlFlagsTest, RepeatedSourcesAndEverySetting) {
  absl::FlagSaver saver;
  const std::string file =
      ::testing::TempDir() + "/zg_control_flags_" + std::to_string(getpid());
  std::ofstream(file) << "--source=sim:lab,up_for=20s,priority=5\n";
  absl::StatusOr<DaemonConfig> c =
      Parse({"--source=gpsd:127.0.0.1:2947,priority=1",
             "--flagfile=" + file,
             "--source=system,priority=100",
             "--require_system_clock_sync=false",
             "--system_clock_assumed_error=250us",
             "--oscillator=ocxo",
             "--servo=pi",
             "--clock_class_profile=g8275_gm",
             "--holdover_in_spec_limit=2ms",
             "--freerun_limit=50ms",
             "--source_timeout=3s",
             "--max_extrapolation=20s",
             "--step_threshold=1s",
             "--jump_accept_after=4",
             "--follow_outvoting_majority",
             "--leap_file=/etc/leap.list",
             "--audit_log=/var/log/zg.jsonl",
             "--audit_fsync=every_record",
             "--audit_max_bytes=1048576",
             "--audit_keep_files=3"});
  std::remove(file.c_str());
  ASSERT_TRUE(c.ok()) << c.status();
  const servo::ControlPlaneConfig& cp = c->control;
  ASSERT_EQ(cp.sources.size(), 3u);
  EXPECT_EQ(cp.sources[0].kind, servo::SourceKind::kGpsd);
  EXPECT_EQ(cp.sources[0].priority, 1);
  EXPECT_EQ(cp.sources[1].kind, servo::SourceKind::kSimulated);
  EXPECT_EQ(cp.sources[1].sim.up_for_ns, 20'000 * kMs);
  EXPECT_EQ(cp.sources[2].kind, servo::SourceKind::kSystemClock);
  EXPECT_FALSE(cp.sources[2].system.require_synchronized);
  EXPECT_EQ(cp.sources[2].system.unsynchronized_error_ns, 250'000);
  EXPECT_EQ(cp.discipline.oscillator.kind, servo::OscillatorKind::kOcxo);
  EXPECT_EQ(cp.discipline.servo.type, servo::ServoType::kPi);
  EXPECT_EQ(cp.discipline.class_policy.profile, servo::ClassProfile::kG8275Gm);
  EXPECT_EQ(cp.discipline.holdover.in_spec_limit_ns, 2 * kMs);
  EXPECT_EQ(cp.discipline.holdover.freerun_limit_ns, 50 * kMs);
  EXPECT_EQ(cp.discipline.source_timeout_ns, 3'000 * kMs);
  EXPECT_LE(cp.discipline.coast_after_ns, cp.discipline.source_timeout_ns);
  EXPECT_EQ(cp.discipline.max_extrapolation_ns, 20'000 * kMs);
  EXPECT_EQ(cp.discipline.servo.step_threshold_ns, 1'000 * kMs);
  EXPECT_EQ(cp.discipline.jump_accept_after, 4);
  EXPECT_TRUE(cp.discipline.follow_outvoting_majority);
  EXPECT_EQ(cp.leap_file, "/etc/leap.list");
  EXPECT_EQ(cp.audit.path, "/var/log/zg.jsonl");
  EXPECT_EQ(cp.audit.fsync, servo::AuditLogOptions::Fsync::kEveryRecord);
  EXPECT_EQ(cp.audit.max_bytes, 1u << 20);
  EXPECT_EQ(cp.audit.keep_files, 3);
}

// --clock_class_profile=auto (the default) follows --ptp_profile: G.8275.2
// serves the G.8275 T-GM classes unless the flag says otherwise; the
// IEEE 1588 mapping's out-of-spec class is 52 or, by flag, 187.
TEST(ControlFlagsTest, ClockClassMappingFollowsThePtpProfile) {
  using servo::ClassProfile;
  const auto policy = [](std::vector<std::string> args) {
    absl::FlagSaver saver;
    absl::StatusOr<DaemonConfig> c = Parse(std::move(args));
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? c->control.discipline.class_policy : servo::ClassPolicy{};
  };
  EXPECT_EQ(policy({}).profile, ClassProfile::kIeee1588);
  EXPECT_FALSE(policy({}).degradation_alternative_b);
  EXPECT_EQ(policy({"--ptp_profile=g8275.2"}).profile, ClassProfile::kG8275Gm);
  EXPECT_EQ(policy({"--ptp_profile=enterprise_hybrid"}).profile,
            ClassProfile::kIeee1588);
  EXPECT_EQ(policy({"--ptp_profile=g8275.2", "--clock_class_profile=ieee1588"})
                .profile,
            ClassProfile::kIeee1588);
  EXPECT_EQ(policy({"--ptp_profile=g8275.2", "--clock_class_profile=g8275_bc"})
                .profile,
            ClassProfile::kG8275Bc);
  EXPECT_TRUE(
      policy({"--clock_class_degradation=b"}).degradation_alternative_b);
  absl::FlagSaver saver;
  EXPECT_THAT(Error({"--clock_class_degradation=c"}),
              HasSubstr("must be a or b"));
  EXPECT_THAT(Error({"--ptp_profile=g8275.2", "--clock_class_degradation=b"}),
              HasSubstr("ieee1588 mapping only"));
}

TEST(ControlFlagsTest, CustomOscillator) {
  absl::StatusOr<servo::OscillatorProfile> p = ParseOscillatorFlag(
      "custom:floor_ppb=1000,aging_ppb_per_day=5,temperature_ppb_per_k=3,"
      "random_walk_ppb2_per_s=0.001,category=3");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->kind, servo::OscillatorKind::kCustom);
  EXPECT_EQ(p->frequency_floor_ppb, 1000);
  EXPECT_EQ(p->aging_ppb_per_day, 5);
  EXPECT_EQ(p->temperature_ppb_per_k, 3);
  EXPECT_EQ(p->random_walk_ppb2_per_s, 0.001);
  EXPECT_EQ(p->category, servo::FrequencyCategory::kCategory3);
  EXPECT_THAT(ParseOscillatorFlag("custom:floor_ppb=1").status().message(),
              HasSubstr("sets every field"));
  EXPECT_THAT(ParseOscillatorFlag("custom:floor_ppb=-1").status().message(),
              HasSubstr("KEY=NUMBER >= 0"));
  EXPECT_THAT(ParseOscillatorFlag("quartz").status().message(),
              HasSubstr("unknown oscillator profile 'quartz'"));
}

TEST(ControlFlagsTest, ErrorsSayWhatToDo) {
  EXPECT_THAT(Error({"--source=ntp:pool"}),
              HasSubstr("--source=ntp:pool: unknown source kind 'ntp'"));
  EXPECT_THAT(Error({"--require_system_clock_sync=false",
                     "--system_clock_assumed_error=100ms"}),
              HasSubstr("below --freerun_limit (1ms)"));
  EXPECT_THAT(Error({"--servo=kalman"}), HasSubstr("must be linreg or pi"));
  EXPECT_THAT(Error({"--oscillator=quartz"}), HasSubstr("--oscillator=quartz"));
  EXPECT_THAT(Error({"--holdover_in_spec_limit=2ms"}),
              HasSubstr("--freerun_limit must be larger"));
  EXPECT_THAT(Error({"--source_timeout=1s"}), HasSubstr("must be 2s..1h"));
  EXPECT_THAT(Error({"--jump_accept_after=-1"}), HasSubstr("0 (never)"));
  EXPECT_THAT(Error({"--audit_fsync=sometimes"}),
              HasSubstr("every_record, interval or none"));
  EXPECT_THAT(Error({"--audit_max_bytes=10"}), HasSubstr("4096..2^40"));
  EXPECT_THAT(Error({"--leap_file="}), HasSubstr("--leap_file is empty"));
  EXPECT_THAT(Error({"--clock_class_profile=x"}), HasSubstr("g8275_gm"));
}

}  // namespace
}  // namespace sources_test
}  // namespace zg::dataplane
