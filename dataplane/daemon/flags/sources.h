// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's time-source flags, the "Time sources, servo and holdover"
// group of `zeitgeberd -- --help`: reference sources, servo, oscillator,
// holdover limits, clockClass mapping, step policy and leap-second file,
// validated into the servo::ControlPlaneConfig the control thread runs with
// (its audit log: flags/daemon.h).
//
//   zeitgeberd ... -- --source=gpsd:127.0.0.1:2947,priority=1
//       --source=system,priority=100 --oscillator=ocxo
//
// --source may be repeated (flagfiles included); without it the system clock
// is the one source. An unsynchronised system clock (STA_UNSYNC) is not
// served unless --require_system_clock_sync=false says so, with
// --system_clock_assumed_error as its error bound (labs and demos).
//
//   ZG_ASSIGN_OR_RETURN(servo::ControlPlaneConfig c, ParseControlFlags(args));
//
// Called by ParseDaemonFlags after absl::ParseCommandLine (the flags are
// abseil flags; `args` are the raw arguments, for the repeated --source).
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_SOURCES_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_SOURCES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "servo/control/control_plane.h"
#include "servo/holdover/oscillator.h"

namespace zg::dataplane {

absl::StatusOr<servo::ControlPlaneConfig> ParseControlFlags(
    const std::vector<std::string>& args);

// Every --source in `args` (flagfiles expanded, in order), or the default
// source without any: the sources zeitgeberd runs with, at start and after
// a reload (dataplane/daemon/source_reload.h).
absl::StatusOr<std::vector<std::string>> SourceFlagValues(
    const std::vector<std::string>& args);

// --oscillator: "tcxo", "ocxo", "rubidium", or
// "custom:floor_ppb=F,aging_ppb_per_day=A,temperature_ppb_per_k=T,
//  random_walk_ppb2_per_s=Q,category=1|2|3" (every field required).
absl::StatusOr<servo::OscillatorProfile> ParseOscillatorFlag(
    absl::string_view text);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_SOURCES_H_
