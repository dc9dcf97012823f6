// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's drain and anycast flags, the "Drain and anycast" group of
// `zeitgeberd -- --help`: leaving and rejoining the fleet (doc/anycast.md):
//
//   --drain_file=PATH            drained while PATH exists (as ptp4u's)
//   --force_undrain_file=PATH    while PATH exists, neither the drain file
//                                nor `zgctl drain` drains
//   --drain_grace=5s             DRAINING answers this long after the route
//                                is withdrawn, then DRAINED (and a stop with
//                                a BIRD speaker waits this long)
//   --bird_socket=PATH           BIRD's control socket: drive the anycast
//                                route ("": no anycast route)
//   --bird_protocol=zg_anycast   the static protocol in bird.conf that holds
//                                the route (starts `disabled`)
//   --bird_check_interval=1s     how often BIRD is asked and put right
//   --anycast_announce_after=10s healthy this long before (re-)announcing
//   --anycast_withdraw_after=0s  unhealthy this long before withdrawing
//
//   ZG_ASSIGN_OR_RETURN(c.fleet, ReadFleetFlags());
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_FLEET_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_FLEET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "servo/fleet/anycast_policy.h"

namespace zg::dataplane {

struct FleetConfig {
  std::string drain_file;              // --drain_file ("": none)
  std::string force_undrain_file;      // --force_undrain_file ("": none)
  absl::Duration drain_grace;          // --drain_grace
  std::string bird_socket;             // --bird_socket ("": no anycast route)
  std::string bird_protocol;           // --bird_protocol
  absl::Duration bird_check_interval;  // --bird_check_interval
  // --anycast_announce_after, --anycast_withdraw_after
  servo::AnycastPolicyConfig anycast;
  bool anycast_enabled() const { return !bird_socket.empty(); }
};

// The flags' current values, validated (errors name the flag).
absl::StatusOr<FleetConfig> ReadFleetFlags();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_FLEET_H_
