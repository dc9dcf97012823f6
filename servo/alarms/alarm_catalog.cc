// SPDX-License-Identifier: Apache-2.0
// The alarm catalogue's table (alarm_catalog.h).
#include "servo/alarms/alarm_catalog.h"

namespace zg::servo {
namespace {

constexpr int64_t kS = 1'000'000'000;

constexpr AlarmDef kDefs[kAlarmDefCount] = {
    {AlarmId::kNotSynchronized, "not_synchronized", AlarmSeverity::kCritical, 0,
     10 * kS, false,
     "Served time may not be called synchronised: NTP answers LI=3, PTP "
     "advertises a free-run or degraded clockClass."},
    {AlarmId::kReferenceLost, "reference_lost", AlarmSeverity::kMajor, 0,
     5 * kS, false,
     "No reference source delivers samples within its timeout; cleared "
     "when one is regained."},
    {AlarmId::kReferenceSwitched, "reference_switched", AlarmSeverity::kInfo, 0,
     60 * kS, false,
     "The selection moved from one reference source to another."},
    {AlarmId::kSourceFalseticker, "source_falseticker", AlarmSeverity::kMajor,
     0, 30 * kS, true,
     "The source's interval misses the majority's: rejected as a "
     "falseticker."},
    {AlarmId::kSourceJump, "source_jump", AlarmSeverity::kMajor, 0, 60 * kS,
     true,
     "The source's samples jumped beyond the served time's error bound "
     "(spoofing, a stepped or faulty reference): rejected."},
    {AlarmId::kHoldover, "holdover", AlarmSeverity::kMajor, 0, 0, false,
     "The clock coasts on its oscillator: raised when holdover is entered, "
     "cleared when it is exited."},
    {AlarmId::kHoldoverOutOfSpec, "holdover_out_of_spec",
     AlarmSeverity::kCritical, 0, 0, false,
     "The holdover error bound passed --holdover_in_spec_limit."},
    {AlarmId::kGnssSignalLow, "gnss_signal_low", AlarmSeverity::kWarning,
     10 * kS, 30 * kS, true, "Fewer than 4 satellites in view above 37 dB-Hz."},
    {AlarmId::kLeapSecondAnnounced, "leap_second_announced",
     AlarmSeverity::kInfo, 0, 0, false,
     "A leap second is announced for the end of the current UTC day."},
    {AlarmId::kLeapTableExpiring, "leap_table_expiring",
     AlarmSeverity::kWarning, 0, 0, false,
     "The leap-second table expires within 14 days (or has expired): "
     "update tzdata and send SIGHUP."},
    {AlarmId::kClockClassChanged, "clock_class_changed", AlarmSeverity::kInfo,
     0, 60 * kS, false, "The PTP clockClass served changed."},
    {AlarmId::kPtpPortStateChanged, "ptp_port_state_changed",
     AlarmSeverity::kInfo, 0, 60 * kS, true, "A PTP port changed state."},
    {AlarmId::kLinkDown, "link_down", AlarmSeverity::kMajor, 0, 5 * kS, true,
     "The port's link is down; cleared when it is up."},
    {AlarmId::kNtpRateLimitSaturated, "ntp_rate_limit_saturated",
     AlarmSeverity::kWarning, 0, 60 * kS, false,
     "The NTP rate limiter's client table is full and evicting clients."},
    {AlarmId::kPtpTxBudgetSaturated, "ptp_tx_budget_saturated",
     AlarmSeverity::kWarning, 60 * kS, 60 * kS, true,
     "PTP unicast grants hold over 90% of --ptp_tx_budget."},
    {AlarmId::kNtsKeCertificateExpiring, "nts_ke_certificate_expiring",
     AlarmSeverity::kWarning, 0, 0, false,
     "The NTS-KE certificate expires within 14 days (or has expired)."},
    {AlarmId::kNtsKeRefusing, "nts_ke_refusing", AlarmSeverity::kWarning, 0,
     60 * kS, false,
     "The NTS-KE server refuses connections: a source over "
     "--nts_ke_ratelimit, or every --nts_ke_max_connections slot taken."},
    {AlarmId::kConfigReloadFailed, "config_reload_failed",
     AlarmSeverity::kWarning, 0, 0, false,
     "The last SIGHUP reload was rejected; the previous configuration is in "
     "force."},
    {AlarmId::kWorkerStalled, "worker_stalled", AlarmSeverity::kCritical, 0,
     5 * kS, true,
     "A poll-mode worker has not looped for over a second: its queue is not "
     "served."},
    {AlarmId::kDraining, "draining", AlarmSeverity::kWarning, 0, 0, false,
     "The server is being drained: it stops taking new clients."},
    {AlarmId::kWithdrawn, "withdrawn", AlarmSeverity::kMajor, 0, 0, false,
     "The server's anycast route is withdrawn."},
    {AlarmId::kBgpSpeakerUnreachable, "bgp_speaker_unreachable",
     AlarmSeverity::kMajor, 2 * kS, 5 * kS, false,
     "zeitgeberd cannot drive its BGP speaker (BIRD's control socket "
     "refuses, times out or rejects the command): the anycast route may not "
     "follow the server's health."},
};

constexpr bool DefsInOrder() {
  for (int i = 0; i < kAlarmDefCount; ++i) {
    if (static_cast<int>(kDefs[i].id) != i + 1) return false;
  }
  return true;
}
static_assert(DefsInOrder(), "kDefs must list every AlarmId in order");

}  // namespace

const char* AlarmSeverityName(AlarmSeverity s) {
  switch (s) {
    case AlarmSeverity::kCritical:
      return "critical";
    case AlarmSeverity::kMajor:
      return "major";
    case AlarmSeverity::kMinor:
      return "minor";
    case AlarmSeverity::kWarning:
      return "warning";
    case AlarmSeverity::kInfo:
      return "info";
  }
  return "unknown";
}

const AlarmDef* AlarmDefs() { return kDefs; }

const AlarmDef& AlarmDefOf(AlarmId id) {
  return kDefs[static_cast<int>(id) - 1];
}

std::optional<AlarmId> AlarmIdNamed(std::string_view name) {
  for (const AlarmDef& d : kDefs) {
    if (name == d.name) return d.id;
  }
  return std::nullopt;
}

}  // namespace zg::servo
