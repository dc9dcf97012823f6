// SPDX-License-Identifier: Apache-2.0
// ClockAlarms: the alarm conditions the control plane can judge by itself —
// synchronisation, reference lost/switched, falsetickers and jumps,
// holdover and its spec, GNSS signal, leap second and leap table, clockClass
// changes — fed into an AlarmSet (alarm_set.h) from each Tick's status and
// from the discipline's events. The data plane's conditions (links,
// workers, rate limits, NTS-KE, reloads, drain) are set on the same
// AlarmSet by their owners (dataplane/daemon/daemon_alarms.h).
//
//   ClockAlarms clock_alarms(&alarms);
//   discipline->SetEventSink([&](const DisciplineEvent& e) {
//     clock_alarms.OnEvent(e, source_names, mono_ns);
//   });
//   clock_alarms.Update(control->Snapshot(), now_tai, now_utc, mono_ns);
//
// Control thread only.
#ifndef ZG_SERVO_ALARMS_CLOCK_ALARMS_H_
#define ZG_SERVO_ALARMS_CLOCK_ALARMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/time/time_types.h"
#include "servo/alarms/alarm_set.h"
#include "servo/control/control_status.h"
#include "servo/discipline/discipline_event.h"

namespace zg::servo {

// SyncServer's "GNSS signal low": fewer than this many satellites at or
// above kGnssStrongDbHz.
inline constexpr int kGnssSignalLowSatellites = 4;
// The leap table (and an NTS-KE certificate) warn this long before expiry.
inline constexpr int64_t kExpiryWarningNs = int64_t{14} * 86400 * 1'000'000'000;

class ClockAlarms {
 public:
  explicit ClockAlarms(AlarmSet* alarms) : alarms_(alarms) {}

  // Registers the per-source rows (falseticker, jump, and GNSS signal for
  // gpsd sources) so the tables show them before they are first raised.
  void AddSources(const std::vector<SourceSnapshot>& sources);

  // A discipline event (reference switch, clockClass change). `names`:
  // the sources' names by discipline index.
  void OnEvent(const DisciplineEvent& e, const std::vector<std::string>& names,
               int64_t mono_ns);

  // The level conditions as of `st` (one Tick's snapshot) at now_utc.
  void Update(const ControlPlaneStatus& st, core::UtcNs now_utc,
              int64_t mono_ns);

 private:
  void RetireRemovedSources(const std::vector<SourceSnapshot>& sources);

  AlarmSet* alarms_;
  // Per source name, at the last Update; a name missing from a later Update
  // is a source removed while running, whose rows are retired.
  std::map<std::string, uint64_t> jumps_;
  bool locked_once_ = false;  // holdover needs a lock to hold over
};

}  // namespace zg::servo

#endif  // ZG_SERVO_ALARMS_CLOCK_ALARMS_H_
