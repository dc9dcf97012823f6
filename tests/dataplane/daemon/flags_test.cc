// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's flag parsing and validation, addresses, counter names and
// devargs parsing (no EAL needed).
#include "dataplane/daemon/flags.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/reflection.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/port/xdp_steering.h"
#include "dataplane/trust/reload.h"
#include "dataplane/worker/worker_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace flags_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempFile(const std::string& tag, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/zg_flags_" + tag + "_" +
                           std::to_string(getpid());
  std::ofstream(path) << content;
  return path;
}

absl::StatusOr<DaemonConfig> Parse(std::vector<std::string> args) {
  static std::vector<std::vector<std::string>> keep;  // argv must outlive
  args.insert(args.begin(), "zeitgeberd");
  keep.push_back(args);
  std::vector<char*> argv;
  for (std::string& a : keep.back()) argv.push_back(a.data());
  return ParseDaemonFlags(argv);
}

TEST(InterfaceAddressTest, ParsesIpv4AndIpv6WithPrefix) {
  auto a = ParseInterfaceAddress("192.0.2.10/24");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->family, InterfaceAddress::kIpv4);
  EXPECT_EQ(a->bytes[0], 192);
  EXPECT_EQ(a->bytes[3], 10);
  EXPECT_EQ(a->prefix_len, 24);
  EXPECT_EQ(a->ToString(), "192.0.2.10/24");
  auto b = ParseInterfaceAddress("2001:db8::10/64");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->family, InterfaceAddress::kIpv6);
  EXPECT_EQ(b->bytes[0], 0x20);
  EXPECT_EQ(b->bytes[15], 0x10);
  EXPECT_EQ(b->ToString(), "2001:db8::10/64");
}

TEST(InterfaceAddressTest, RejectsWhatNoClientCanReach) {
  EXPECT_THAT(ParseInterfaceAddress("10.0.0.1").status().message(),
              HasSubstr("no prefix length"));
  EXPECT_THAT(ParseInterfaceAddress("10.0.0.1/33").status().message(),
              HasSubstr("1 to 32"));
  EXPECT_THAT(ParseInterfaceAddress("fe80::1/129").status().message(),
              HasSubstr("1 to 128"));
  EXPECT_THAT(ParseInterfaceAddress("10.0.0.300/24").status().message(),
              HasSubstr("neither IPv4 nor IPv6"));
  for (const char* bad :
       {"0.0.0.0/8", "127.0.0.1/8", "224.0.1.1/32", "255.255.255.255/32",
        "::/64", "::1/128", "ff02::101/128"}) {
    EXPECT_FALSE(ParseInterfaceAddress(bad).ok()) << bad;
  }
}

TEST(CollectRepeatedFlagTest, GathersEveryOccurrenceIncludingFlagfiles) {
  const std::string inner =
      TempFile("inner", "# comment\n  --address=10.0.0.3/24  \n\n");
  const std::string outer =
      TempFile("outer", "--address=10.0.0.2/24\n--flagfile=" + inner + "\n");
  auto v = CollectRepeatedFlag(
      {"--address=10.0.0.1/24", "--vlan=3", "--flagfile", outer, "-address",
       "fd00::1/64", "--", "--address=x"},
      "address");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_THAT(*v, ElementsAre("10.0.0.1/24", "10.0.0.2/24", "10.0.0.3/24",
                              "fd00::1/64"));
  EXPECT_THAT(CollectRepeatedFlag({"--flagfile=/nonexistent/zg"}, "address")
                  .status()
                  .message(),
              HasSubstr("cannot read --flagfile=/nonexistent/zg"));
  const std::string loop =
      ::testing::TempDir() + "/zg_flags_loop_" + std::to_string(getpid());
  std::ofstream(loop) << "--flagfile=" << loop << "\n";
  EXPECT_THAT(
      CollectRepeatedFlag({"--flagfile=" + loop}, "address").status().message(),
      HasSubstr("nesting"));
}

TEST(ParseDaemonFlagsTest, RepeatedAddressesFromArgvAndFlagfile) {
  absl::FlagSaver saver;
  const std::string file = TempFile(
      "daemon", "--address=2001:db8::10/64\n--vlan=42\n--port=net_ring0\n");
  auto c = Parse({"--address=192.0.2.10/24,192.0.2.11/24", "--flagfile=" + file,
                  "--metrics_address=[::1]:9200", "--run_for=3s"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->addresses.size(), 3u);
  EXPECT_EQ(c->addresses[0].ToString(), "192.0.2.10/24");
  EXPECT_EQ(c->addresses[1].ToString(), "192.0.2.11/24");
  EXPECT_EQ(c->addresses[2].ToString(), "2001:db8::10/64");
  EXPECT_EQ(c->vlan_id, 42);
  EXPECT_EQ(c->port, "net_ring0");
  EXPECT_EQ(c->metrics_address, "[::1]:9200");
  EXPECT_EQ(c->run_for, absl::Seconds(3));
  EXPECT_EQ(c->publish_interval, absl::Milliseconds(100));
  EXPECT_EQ(c->idle_sleep, absl::ZeroDuration()) << "busy-poll by default";
  ASSERT_EQ(c->control.sources.size(), 1u);
  EXPECT_TRUE(c->control.sources[0].system.require_synchronized)
      << "by default";
}

TEST(ParseDaemonFlagsTest, SystemClockMayBeTrustedUnsynchronised) {
  absl::FlagSaver saver;
  auto c =
      Parse({"--address=192.0.2.10/24", "--require_system_clock_sync=false"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->control.sources.size(), 1u);
  EXPECT_FALSE(c->control.sources[0].system.require_synchronized);
}

TEST(ParseDaemonFlagsTest, SoftwareStampFlags) {
  {
    absl::FlagSaver saver;
    auto c = Parse({"--address=192.0.2.10/24"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->stamps.ntp_tx_placement, core::TxStampPlacement::kMidpoint);
    EXPECT_TRUE(c->stamps.xdp_rx_metadata);
  }
  {
    absl::FlagSaver saver;
    auto c = Parse({"--address=192.0.2.10/24", "--ntp_tx_stamp=before",
                    "--xdp_rx_metadata=false"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->stamps.ntp_tx_placement, core::TxStampPlacement::kBefore);
    EXPECT_FALSE(c->stamps.xdp_rx_metadata);
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--ntp_tx_stamp=late"}).status().message(),
                HasSubstr("--ntp_tx_stamp=late: must be before, midpoint or "
                          "after"));
  }
}

TEST(ParseDaemonFlagsTest, InvalidValuesSayWhatToDo) {
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--vlan=4095"}).status().message(),
                HasSubstr("--vlan=4095: must be 0..4094"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--metrics_address=9123"}).status().message(),
                HasSubstr("expected HOST:PORT"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--rx_desc=8"}).status().message(),
                HasSubstr("--rx_desc=8: must be 64..16384"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--publish_interval=5s"}).status().message(),
                HasSubstr("1ms..1s"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(
        Parse({"--idle_sleep=2ms"}).status().message(),
        HasSubstr("--idle_sleep=2ms: must be 0 (busy-poll) or 1us..1ms"));
    EXPECT_THAT(Parse({"--idle_sleep=500ns"}).status().message(),
                HasSubstr("1us..1ms"));
    auto c = Parse({"--idle_sleep=50us"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->idle_sleep, absl::Microseconds(50));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"stray"}).status().message(),
                HasSubstr("unexpected argument 'stray'"));
  }
}

TEST(ParseDaemonFlagsTest, ServiceAndAlarmFlags) {
  {
    absl::FlagSaver saver;
    auto c = Parse({"--address=192.0.2.10/24"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->service.log_level, LogLevel::kInfo);
    EXPECT_EQ(c->service.worker_stall_limit, absl::Seconds(1));
    EXPECT_EQ(c->alarms.snmp_agentx, "") << "no SNMP by default";
    EXPECT_EQ(c->alarms.snmp_heartbeat_interval, absl::Seconds(60));
    EXPECT_TRUE(c->control.alarms.hysteresis.empty());
  }
  {
    absl::FlagSaver saver;
    auto c =
        Parse({"--address=192.0.2.10/24", "--log_level=debug",
               "--worker_stall_limit=300ms", "--snmp_agentx=tcp:127.0.0.1:705",
               "--snmp_heartbeat_interval=0",
               "--alarm_hysteresis=reference_lost=0s/1s"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->service.log_level, LogLevel::kDebug);
    EXPECT_EQ(c->service.worker_stall_limit, absl::Milliseconds(300));
    EXPECT_EQ(c->alarms.snmp_agentx, "tcp:127.0.0.1:705");
    EXPECT_EQ(c->alarms.snmp_heartbeat_interval, absl::ZeroDuration());
    ASSERT_EQ(c->control.alarms.hysteresis.size(), 1u)
        << "--alarm_hysteresis reaches the control plane";
    const auto& [id, h] = *c->control.alarms.hysteresis.begin();
    EXPECT_EQ(id, servo::AlarmId::kReferenceLost);
    EXPECT_EQ(h.raise_after_ns, 0);
    EXPECT_EQ(h.clear_after_ns, 1'000'000'000);
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--log_level=verbose"}).status().message(),
                HasSubstr("--log_level=verbose: expected error, warning, info "
                          "or debug"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--worker_stall_limit=1ms"}).status().message(),
                HasSubstr("--worker_stall_limit=1ms: must be 10ms..1h"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--snmp_heartbeat_interval=500ms"}).status().message(),
                HasSubstr("--snmp_heartbeat_interval: at least 1s"));
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--alarm_hysteresis=bogus=1s/1s"}).status().message(),
                HasSubstr("--alarm_hysteresis"));
  }
}

TEST(ParseDaemonFlagsTest, ControlSocketFlags) {
  {
    absl::FlagSaver saver;
    auto c = Parse({"--address=192.0.2.10/24"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->control_socket.path, "/run/zeitgeber/zeitgeberd.sock");
    EXPECT_EQ(c->control_socket.group, "") << "zeitgeberd's own group";
  }
  {
    absl::FlagSaver saver;
    auto c = Parse({"--address=192.0.2.10/24",
                    "--control_socket=", "--control_group=adm"});
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->control_socket.path, "") << "no control socket";
    EXPECT_EQ(c->control_socket.group, "adm");
  }
  {
    absl::FlagSaver saver;
    EXPECT_THAT(Parse({"--control_socket=zg.sock"}).status().message(),
                HasSubstr("--control_socket=zg.sock: give an absolute path"));
  }
  {
    absl::FlagSaver saver;
    const std::string long_path = "/" + std::string(100, 'a');
    EXPECT_THAT(Parse({"--control_socket=" + long_path}).status().message(),
                HasSubstr("at most 91 bytes"));
  }
}

TEST(SplitArgsTest, SplitsAtTheFirstDoubleDash) {
  std::vector<std::string> args = {"zg",       "-l", "0-1", "--",
                                   "--vlan=3", "--", "x"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  SplitArgs s = SplitArgs::At(static_cast<int>(argv.size()), argv.data());
  ASSERT_EQ(s.eal.size(), 3u);
  EXPECT_STREQ(s.eal[2], "0-1");
  ASSERT_EQ(s.app.size(), 4u);
  EXPECT_STREQ(s.app[0], "zg");
  EXPECT_STREQ(s.app[1], "--vlan=3");
}

TEST(DevargValueTest, FindsKeys) {
  const std::string d = "iface=veth0,xdp_prog=/a/b=c.o,start_queue=0";
  EXPECT_EQ(DevargValue(d, "iface"), "veth0");
  EXPECT_EQ(DevargValue(d, "xdp_prog"), "/a/b=c.o");
  EXPECT_EQ(DevargValue(d, "queue_count"), std::nullopt);
  EXPECT_EQ(DevargValue("", "iface"), std::nullopt);
}

TEST(CounterNamesTest, RegistersBlocksAndValidates) {
  CounterNames names;
  EXPECT_EQ(names.num_drop_reasons(), CounterNames::kNumWorkerDropReasons);
  auto base = names.AddDropReasons("ntp", {"bad_mode", "rate_limited"});
  ASSERT_TRUE(base.ok());
  EXPECT_EQ(*base, CounterNames::kNumWorkerDropReasons);
  EXPECT_EQ(names.DropReasonName(*base + 1), "ntp_rate_limited");
  EXPECT_EQ(names.DropReasonName(60), "reason_60");
  EXPECT_FALSE(names.AddDropReasons("ntp", {"Bad-Name"}).ok());
  EXPECT_EQ(names.num_drop_reasons(), *base + 2u) << "nothing half-added";
  EXPECT_TRUE(names.SetKindName(3, "ntp").ok());
  EXPECT_FALSE(names.SetKindName(3, "ptp").ok());
  EXPECT_FALSE(names.SetKindName(kMaxFrameKinds, "x").ok());
  EXPECT_EQ(names.KindName(3), "ntp");
  EXPECT_EQ(names.KindName(4), "kind_4");
  absl::Status overflow = absl::OkStatus();
  for (size_t i = 0; i < kMaxDropReasons && overflow.ok(); ++i) {
    overflow = names.AddDropReasons("m" + std::to_string(i), {"r"}).status();
  }
  EXPECT_THAT(overflow.message(), HasSubstr("raise kMaxDropReasons"));
}

}  // namespace
}  // namespace flags_test
}  // namespace zg::dataplane
