// SPDX-License-Identifier: Apache-2.0
// The flags of dataplane/daemon/flags/fleet.h.
#include "dataplane/daemon/flags/fleet.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "servo/fleet/bird_cli.h"

ABSL_FLAG(std::string, drain_file, "",
          "While this file exists the server is drained (as ptp4u's drain "
          "file): its anycast route is withdrawn, it answers for "
          "--drain_grace, then reports DRAINED. Empty: none.");
ABSL_FLAG(std::string, force_undrain_file, "",
          "While this file exists neither --drain_file nor `zgctl drain` "
          "drains the server (a stop still does). Empty: none.");
ABSL_FLAG(absl::Duration, drain_grace, absl::Seconds(5),
          "How long a draining server goes on answering after its anycast "
          "route is withdrawn (clients' in-flight queries, the routers' "
          "convergence) before it is DRAINED; a stop with --bird_socket "
          "waits as long. 0..10m.");
ABSL_FLAG(std::string, bird_socket, "",
          "BIRD 2's control socket (bird -s; Debian: /run/bird/bird.ctl): "
          "zeitgeberd announces its anycast route through BIRD while "
          "healthy and not draining, and withdraws it otherwise. Empty: no "
          "anycast route.");
ABSL_FLAG(std::string, bird_protocol, "zg_anycast",
          "The static protocol in bird.conf that holds the anycast route; "
          "it must start `disabled` (doc/anycast.md).");
ABSL_FLAG(absl::Duration, bird_check_interval, absl::Seconds(1),
          "How often zeitgeberd asks BIRD for the protocol's state and puts "
          "it right (a restarted BIRD comes up withdrawn). 100ms..1m.");
ABSL_FLAG(absl::Duration, anycast_announce_after, absl::Seconds(10),
          "The server must have been healthy this long without a break "
          "before its route is announced (at start, and after a "
          "withdrawal for ill health): a flapping source cannot flap the "
          "route. 0..1h.");
ABSL_FLAG(absl::Duration, anycast_withdraw_after, absl::ZeroDuration(),
          "The server must have been unhealthy this long before its route "
          "is withdrawn (0: at once). 0..1m.");

namespace zg::dataplane {
namespace {

absl::Status CheckRange(const char* flag, absl::Duration d, absl::Duration lo,
                        absl::Duration hi) {
  if (d >= lo && d <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", absl::FormatDuration(d), ": must be ",
                   absl::FormatDuration(lo), "..", absl::FormatDuration(hi)));
}

}  // namespace

absl::StatusOr<FleetConfig> ReadFleetFlags() {
  FleetConfig c;
  c.drain_file = absl::GetFlag(FLAGS_drain_file);
  c.force_undrain_file = absl::GetFlag(FLAGS_force_undrain_file);
  c.drain_grace = absl::GetFlag(FLAGS_drain_grace);
  c.bird_socket = absl::GetFlag(FLAGS_bird_socket);
  c.bird_protocol = absl::GetFlag(FLAGS_bird_protocol);
  c.bird_check_interval = absl::GetFlag(FLAGS_bird_check_interval);
  c.anycast.announce_after = absl::GetFlag(FLAGS_anycast_announce_after);
  c.anycast.withdraw_after = absl::GetFlag(FLAGS_anycast_withdraw_after);
  if (absl::Status s = CheckRange("drain_grace", c.drain_grace,
                                  absl::ZeroDuration(), absl::Minutes(10));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRange("bird_check_interval", c.bird_check_interval,
                                  absl::Milliseconds(100), absl::Minutes(1));
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckRange("anycast_announce_after", c.anycast.announce_after,
                     absl::ZeroDuration(), absl::Hours(1));
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckRange("anycast_withdraw_after", c.anycast.withdraw_after,
                     absl::ZeroDuration(), absl::Minutes(1));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = servo::ValidateBirdSymbol(c.bird_protocol); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bird_protocol: ", s.message()));
  }
  if (!c.drain_file.empty() && c.drain_file == c.force_undrain_file) {
    return absl::InvalidArgumentError(
        "--drain_file and --force_undrain_file must differ");
  }
  return c;
}

}  // namespace zg::dataplane
