// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/command_line.h"
#include "dataplane/daemon/flags/alarms.h"
#include "dataplane/daemon/flags/control_socket.h"
#include "dataplane/daemon/flags/daemon.h"
#include "dataplane/daemon/flags/metrics.h"
#include "dataplane/daemon/flags/ntp.h"
#include "dataplane/daemon/flags/nts.h"
#include "dataplane/daemon/flags/ports.h"
#include "dataplane/daemon/flags/sources.h"
#include "dataplane/daemon/flags/timestamps.h"
#include "dataplane/daemon/flags/trust.h"

namespace zg::dataplane {

const ProgramHelp& DaemonHelp() {
  static const ProgramHelp* const help = new ProgramHelp{
      .program = "zeitgeberd",
      .synopsis =
          "zeitgeberd: a kernel-bypass NTP/PTP time server.\n"
          "\n"
          "Usage: zeitgeberd [EAL options] -- [zeitgeberd flags]\n"
          "  zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24\n"
          "  zeitgeberd -l 0-2 -a 0000:3b:00.0 -- "
          "--flagfile=/etc/zeitgeber/zeitgeberd.flags\n"
          "\n"
          "EAL options (cores, devices, memory): `zeitgeberd --help`, and "
          "doc/deployment.md.\n"
          "The flags below, one group per file of dataplane/daemon/flags/; "
          "`man zeitgeberd` says more.",
      .groups =
          {
              {.title = "Ports and addresses",
               .file = "dataplane/daemon/flags/ports.cc"},
              {.title = "Timestamps",
               .file = "dataplane/daemon/flags/timestamps.cc"},
              {.title = "NTP", .file = "dataplane/daemon/flags/ntp.cc"},
              {.title = "PTP", .file = "dataplane/daemon/flags/ptp.cc"},
              {.title = "Trust: access lists, rate limits, NTP keys",
               .file = "dataplane/daemon/flags/trust.cc"},
              {.title = "NTS", .file = "dataplane/daemon/flags/nts.cc"},
              {.title = "Time sources, servo and holdover",
               .file = "dataplane/daemon/flags/sources.cc"},
              {.title = "Metrics", .file = "dataplane/daemon/flags/metrics.cc"},
              {.title = "Alarms and SNMP",
               .file = "dataplane/daemon/flags/alarms.cc"},
              {.title = "Drain and anycast",
               .file = "dataplane/daemon/flags/fleet.cc"},
              {.title = "Status page",
               .file = "dataplane/daemon/flags/status_page.cc"},
              {.title = "Control socket (zgctl)",
               .file = "dataplane/daemon/flags/control_socket.cc"},
              {.title = "Daemon", .file = "dataplane/daemon/flags/daemon.cc"},
              HelpFlagGroup(),
          },
  };
  return *help;
}

absl::StatusOr<DaemonConfig> ParseDaemonFlags(std::vector<char*> app_argv) {
  const std::vector<std::string> args(app_argv.begin() + 1, app_argv.end());
  std::vector<char*> positional =
      ParseProgramFlags(std::move(app_argv), DaemonHelp());
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
  ZG_RETURN_IF_ERROR(ReadPortFlags(args, c));
  ZG_RETURN_IF_ERROR(ReadTimestampFlags(c));
  ZG_ASSIGN_OR_RETURN(c.ntp_interleave, ReadNtpInterleaveFlags());
  ZG_ASSIGN_OR_RETURN(c.access, ParseAccessFlags(args));
  c.ntp_keys = NtpKeysFlag();
  ZG_ASSIGN_OR_RETURN(c.nts, ReadNtsFlags());
  ZG_ASSIGN_OR_RETURN(c.nts_ke, ParseNtsKeFlags(args));
  ZG_ASSIGN_OR_RETURN(c.control, ParseControlFlags(args));
  ZG_RETURN_IF_ERROR(ReadMetricsFlags(c));
  ZG_ASSIGN_OR_RETURN(c.alarms, ReadAlarmFlags());
  ZG_ASSIGN_OR_RETURN(c.fleet, ReadFleetFlags());
  c.control.alarms.hysteresis = c.alarms.hysteresis;
  ZG_ASSIGN_OR_RETURN(c.status_page, ReadStatusPageFlags());
  ZG_RETURN_IF_ERROR(ReadDaemonFlags(c));  // after c.control: its audit log
  ZG_ASSIGN_OR_RETURN(c.control_socket, ControlSocketConfigFromFlags());
  return c;
}

}  // namespace zg::dataplane
