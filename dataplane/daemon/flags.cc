#include "dataplane/daemon/flags.h"

#include <mutex>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/access_flags.h"
#include "dataplane/daemon/control_flags.h"
#include "dataplane/daemon/nic_check.h"
#include "dataplane/daemon/ntp_key_flags.h"
#include "dataplane/daemon/nts_ke_flags.h"
#include "dataplane/daemon/tx_schedule_flags.h"
#include "dataplane/daemon/tx_stamp_flags.h"
#include "dataplane/trust/reload.h"

// --address values, validated by abseil occurrence by occurrence; every
// occurrence is gathered by CollectRepeatedFlag.
struct ZgAddressList {
  std::vector<std::string> values;
};
bool AbslParseFlag(absl::string_view text, ZgAddressList* out,
                   std::string* error) {
  out->values.clear();
  for (absl::string_view v : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    absl::StatusOr<zg::dataplane::InterfaceAddress> a =
        zg::dataplane::ParseInterfaceAddress(v);
    if (!a.ok()) {
      *error = std::string(a.status().message());
      return false;
    }
    out->values.emplace_back(v);
  }
  return true;
}
std::string AbslUnparseFlag(const ZgAddressList& list) {
  return absl::StrJoin(list.values, ",");
}

ABSL_FLAG(ZgAddressList, address, {},
          "Address to serve, ADDR/PREFIX (IPv4 or IPv6), e.g. 192.0.2.10/24. "
          "Repeat the flag or separate with commas for several.");
ABSL_FLAG(int32_t, vlan, 0,
          "802.1Q VLAN id the addresses live on; 0 for untagged frames.");
ABSL_FLAG(std::string, port, "0",
          "DPDK port to serve on: its id or name (net_af_xdp0, 0000:3b:00.0).");
ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9123",
          "HOST:PORT for the Prometheus exporter ([::1]:9123 for IPv6); empty "
          "to disable. Loopback by default: expose it deliberately.");
ABSL_FLAG(int32_t, rx_desc, 1024, "RX descriptors per queue.");
ABSL_FLAG(int32_t, tx_desc, 1024, "TX descriptors per queue.");
ABSL_FLAG(int32_t, mtu, 0, "Port MTU; 0 keeps the device's.");
ABSL_FLAG(bool, hw_timestamps, true,
          "Use NIC RX timestamps where the port offers them and its clock can "
          "be read; otherwise the TSC at each burst.");
ABSL_FLAG(bool, timesync, false,
          "Enable the port's IEEE 1588 timesync registers (PTP TX stamps).");
ABSL_FLAG(bool, tx_checksum_offload, true,
          "Let the NIC compute IPv4/UDP checksums where it can.");
ABSL_FLAG(bool, fake_nic_clock, false,
          "Rigs and tests only: stamp received frames with a synthetic NIC "
          "clock, to exercise the hardware-timestamp path without a NIC.");
ABSL_FLAG(bool, xdp_rx_timestamps, true,
          "AF_XDP with zeitgeber's XDP program: stamp each steered frame "
          "with the kernel's receive time in the XDP hook (more accurate "
          "than the TSC read after rx_burst when the worker shares its "
          "core).");
ABSL_FLAG(bool, xdp_steering, true,
          "AF_XDP with xdp_prog=: load --address and --vlan into the XDP "
          "program's maps so only NTP/PTP to them reaches zeitgeberd.");
ABSL_FLAG(absl::Duration, idle_sleep, absl::ZeroDuration(),
          "0 (default): workers busy-poll. Otherwise (1us..1ms) a worker "
          "whose last 256 passes received and sent nothing sleeps this long, "
          "giving its core back on a shared host (the demo's veth rig, CI); "
          "a frame arriving meanwhile waits up to this long.");
ABSL_FLAG(absl::Duration, publish_interval, absl::Milliseconds(100),
          "How often the clock model is republished.");
ABSL_FLAG(absl::Duration, stats_interval, absl::Seconds(1),
          "How often metrics and link state are refreshed.");
ABSL_FLAG(absl::Duration, run_for, absl::ZeroDuration(),
          "Stop cleanly after this long (0: run until SIGINT/SIGTERM).");
ABSL_FLAG(int32_t, mbufs_per_socket, 0,
          "mbufs in each NUMA socket's pool; 0 sizes it from the queues.");

namespace zg::dataplane {
namespace {

// "--name=v" / "-name=v" -> v; "--name" / "-name" followed by a value.
bool MatchFlag(const std::vector<std::string>& args, size_t* i,
               const std::string& name, std::string* value) {
  absl::string_view a = args[*i];
  if (!absl::ConsumePrefix(&a, "--")) {
    if (!absl::ConsumePrefix(&a, "-")) return false;
  }
  if (!absl::ConsumePrefix(&a, name)) return false;
  if (absl::ConsumePrefix(&a, "=")) {
    *value = std::string(a);
    return true;
  }
  if (!a.empty() || *i + 1 >= args.size()) return false;
  *value = args[++*i];
  return true;
}

absl::StatusOr<uint16_t> InRange(const char* flag, int32_t v, int32_t lo,
                                 int32_t hi, const char* meaning) {
  if (v < lo || v > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, "=", v, ": must be ", lo, "..", hi, " (", meaning, ")"));
  }
  return static_cast<uint16_t>(v);
}

}  // namespace

SplitArgs SplitArgs::At(int argc, char** argv) {
  SplitArgs s;
  s.eal.push_back(argv[0]);
  s.app.push_back(argv[0]);
  int i = 1;
  for (; i < argc && std::string_view(argv[i]) != "--"; ++i) {
    s.eal.push_back(argv[i]);
  }
  for (++i; i < argc; ++i) s.app.push_back(argv[i]);
  return s;
}

absl::StatusOr<std::vector<std::string>> CollectRepeatedFlag(
    const std::vector<std::string>& args, const std::string& name) {
  // The flagfiles are read by the same walker the SIGHUP reload uses.
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> expanded,
                      ExpandFlagfiles(args));
  std::vector<std::string> out;
  for (size_t i = 0; i < expanded.size(); ++i) {
    if (expanded[i] == "--") break;  // absl stops parsing flags here too
    std::string value;
    if (MatchFlag(expanded, &i, name, &value)) out.push_back(value);
  }
  return out;
}

absl::StatusOr<DaemonConfig> ParseDaemonFlags(std::vector<char*> app_argv) {
  static std::once_flag usage_once;  // abseil allows setting it once
  std::call_once(usage_once, [] {
    absl::SetProgramUsageMessage(
        "zeitgeberd [EAL options] -- [zeitgeberd flags]\n"
        "  A kernel-bypass NTP/PTP time server. EAL options: see "
        "doc/deployment.md (and `zeitgeberd --help` for the EAL's own list).");
  });
  const std::vector<std::string> args(app_argv.begin() + 1, app_argv.end());
  app_argv.push_back(nullptr);
  std::vector<char*> positional = absl::ParseCommandLine(
      static_cast<int>(app_argv.size() - 1), app_argv.data());
  if (positional.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected argument '", positional[1],
        "': zeitgeberd takes only --flags after '--' (EAL options go before "
        "it)"));
  }
  return DaemonConfigFromFlags(args);
}

absl::StatusOr<DaemonConfig> DaemonConfigFromFlags(
    const std::vector<std::string>& args) {
  DaemonConfig c;
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> address_values,
                      CollectRepeatedFlag(args, "address"));
  for (const std::string& value : address_values) {
    for (absl::string_view v : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::StatusOr<InterfaceAddress> a = ParseInterfaceAddress(v);
      if (!a.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--address: ", a.status().message()));
      }
      c.addresses.push_back(*a);
    }
  }
  ZG_ASSIGN_OR_RETURN(c.vlan_id, InRange("vlan", absl::GetFlag(FLAGS_vlan), 0,
                                         4094, "0 means untagged"));
  c.port = absl::GetFlag(FLAGS_port);
  if (c.port.empty()) {
    return absl::InvalidArgumentError(
        "--port is empty: give a DPDK port id (0) or name (net_af_xdp0)");
  }
  c.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  if (!c.metrics_address.empty() &&
      c.metrics_address.find(':') == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_address=", c.metrics_address,
        ": expected HOST:PORT, e.g. 127.0.0.1:9123 or [::1]:9123"));
  }
  ZG_ASSIGN_OR_RETURN(
      c.rx_desc, InRange("rx_desc", absl::GetFlag(FLAGS_rx_desc), 64, 16384,
                         "descriptors per queue"));
  ZG_ASSIGN_OR_RETURN(
      c.tx_desc, InRange("tx_desc", absl::GetFlag(FLAGS_tx_desc), 64, 16384,
                         "descriptors per queue"));
  const int32_t mtu = absl::GetFlag(FLAGS_mtu);
  if (mtu != 0) {
    ZG_ASSIGN_OR_RETURN(c.mtu,
                        InRange("mtu", mtu, 576, 9216, "0 keeps the device's"));
  }
  c.hw_timestamps = absl::GetFlag(FLAGS_hw_timestamps);
  c.timesync = absl::GetFlag(FLAGS_timesync);
  c.tx_checksum_offload = absl::GetFlag(FLAGS_tx_checksum_offload);
  c.fake_nic_clock = absl::GetFlag(FLAGS_fake_nic_clock);
  c.xdp_steering = absl::GetFlag(FLAGS_xdp_steering);
  c.xdp_rx_timestamps = absl::GetFlag(FLAGS_xdp_rx_timestamps);
  c.idle_sleep = absl::GetFlag(FLAGS_idle_sleep);
  if (c.idle_sleep != absl::ZeroDuration() &&
      (c.idle_sleep < absl::Microseconds(1) ||
       c.idle_sleep > absl::Milliseconds(1))) {
    return absl::InvalidArgumentError(
        absl::StrCat("--idle_sleep=", absl::FormatDuration(c.idle_sleep),
                     ": must be 0 (busy-poll) or 1us..1ms"));
  }
  c.publish_interval = absl::GetFlag(FLAGS_publish_interval);
  c.stats_interval = absl::GetFlag(FLAGS_stats_interval);
  if (c.publish_interval < absl::Milliseconds(1) ||
      c.publish_interval > absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--publish_interval=", absl::FormatDuration(c.publish_interval),
        ": must be 1ms..1s (how often the control thread republishes the "
        "clock model)"));
  }
  if (c.stats_interval < absl::Milliseconds(10)) {
    return absl::InvalidArgumentError("--stats_interval must be >= 10ms");
  }
  c.run_for = absl::GetFlag(FLAGS_run_for);
  if (c.run_for < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--run_for must not be negative");
  }
  const int32_t mbufs = absl::GetFlag(FLAGS_mbufs_per_socket);
  if (mbufs != 0 && (mbufs < 1023 || mbufs > (1 << 24))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--mbufs_per_socket=", mbufs, ": must be 0 (auto) or 1023..16777216"));
  }
  c.mbufs_per_socket = static_cast<uint32_t>(mbufs);
  ZG_ASSIGN_OR_RETURN(c.control, ParseControlFlags(args));
  c.ntp_keys = NtpKeysFlag();
  ZG_ASSIGN_OR_RETURN(c.access, ParseAccessFlags(args));
  ZG_ASSIGN_OR_RETURN(c.nts, ReadNtsFlags());
  ZG_ASSIGN_OR_RETURN(c.nts_ke, ParseNtsKeFlags(args));
  c.stamps.timesync = c.timesync;
  ZG_RETURN_IF_ERROR(ReadTxScheduleFlags(&c.stamps));
  ZG_RETURN_IF_ERROR(ReadTxStampFlags(c.stamps));
  c.nic_check = NicCheckFlag();
  ZG_ASSIGN_OR_RETURN(c.ntp_interleave, ReadNtpInterleaveFlags());
  ZG_ASSIGN_OR_RETURN(c.service, ReadServiceFlags());
  ZG_ASSIGN_OR_RETURN(c.alarms, ReadAlarmFlags());
  c.control.alarms.hysteresis = c.alarms.hysteresis;
  return c;
}

}  // namespace zg::dataplane
