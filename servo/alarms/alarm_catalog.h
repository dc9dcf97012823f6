// SPDX-License-Identifier: Apache-2.0
// The alarm catalogue: every condition zeitgeberd raises and clears, with its
// severity, the hysteresis that keeps it from flapping, and the number that
// names it in ZEITGEBER-MIB (doc/ZEITGEBER-MIB.txt, zgAlarmId) and in the
// audit log. The set is fixed: operators write alert routes and trap filters
// against these names and numbers, so a number is never reused.
//
//   const AlarmDef& d = AlarmDefOf(AlarmId::kHoldover);
//   d.name == "holdover"; d.severity == AlarmSeverity::kMajor;
//
// Pure data, no state.
#ifndef ZG_SERVO_ALARMS_ALARM_CATALOG_H_
#define ZG_SERVO_ALARMS_ALARM_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace zg::servo {

// ITU-T X.733 perceived severities (as in the ALARM-MIB, RFC 3877), in the
// MIB's numbering: cleared(1) is a state here, not a severity.
enum class AlarmSeverity : uint8_t {
  kCritical = 3,
  kMajor = 4,
  kMinor = 5,
  kWarning = 6,
  kInfo = 7,  // ZEITGEBER-MIB's addition: a notice that needs no action
};
// "critical", "major", "minor", "warning", "info".
const char* AlarmSeverityName(AlarmSeverity s);

// Numbers are ZEITGEBER-MIB's zgAlarmId: append, never renumber.
enum class AlarmId : uint8_t {
  kNotSynchronized = 1,         // served time may not be called synchronised
  kReferenceLost = 2,           // no reference source delivers samples
  kReferenceSwitched = 3,       // selection moved to another source (notice)
  kSourceFalseticker = 4,       // per source: out-voted by the others
  kSourceJump = 5,              // per source: samples beyond the error bound
  kHoldover = 6,                // coasting on the oscillator (entered/exited)
  kHoldoverOutOfSpec = 7,       // the holdover error bound passed its limit
  kGnssSignalLow = 8,           // per gpsd source: < 4 satellites >= 37 dB-Hz
  kLeapSecondAnnounced = 9,     // a leap second is scheduled (notice)
  kLeapTableExpiring = 10,      // the leap-second table expires within 14 days
  kClockClassChanged = 11,      // the PTP clockClass served changed (notice)
  kPtpPortStateChanged = 12,    // per PTP port: its state changed (notice)
  kLinkDown = 13,               // per port
  kNtpRateLimitSaturated = 14,  // the rate limiter's client table is full
  kPtpTxBudgetSaturated = 15,   // unicast grants hold > 90% of the budget
  kNtsKeCertificateExpiring = 16,  // within 14 days (or already expired)
  kNtsKeRefusing = 17,             // the NTS-KE server refuses connections
  kConfigReloadFailed = 18,        // the last SIGHUP reload was rejected
  kWorkerStalled = 19,             // per worker: no loop iteration for > 1 s
  kDraining = 20,                  // the server is being drained (fleet)
  kWithdrawn = 21,                 // its anycast route is withdrawn (fleet)
};
inline constexpr int kMaxAlarmId = 21;

struct AlarmDef {
  AlarmId id;
  const char* name;  // snake_case: metric label, audit value, JSON key
  AlarmSeverity severity;
  // The condition must hold this long before the alarm is raised, and be
  // gone this long before it is cleared (hysteresis). Notices (event-like
  // conditions: a switch, a class change) stay raised for clear_after_ns
  // after their last occurrence.
  int64_t raise_after_ns;
  int64_t clear_after_ns;
  bool per_instance;        // one alarm per source, port or worker
  const char* description;  // for the MIB, the docs and --help
};

// Every alarm, in AlarmId order.
const AlarmDef* AlarmDefs();
inline constexpr int kAlarmDefCount = kMaxAlarmId;
const AlarmDef& AlarmDefOf(AlarmId id);
std::optional<AlarmId> AlarmIdNamed(std::string_view name);

}  // namespace zg::servo

#endif  // ZG_SERVO_ALARMS_ALARM_CATALOG_H_
