// SPDX-License-Identifier: Apache-2.0
// ControlPlaneStatus: a snapshot of the control plane for metrics, logs and
// zgctl — every source's health and statistics (GNSS fix and satellites for
// gpsd), the discipline's state and error bound, the TSC calibration, the NIC
// clock correlations, the audit log and the leap table.
//
// Plain values, copied out by ControlPlane::Snapshot() on the control thread
// (the metrics exporter runs on the same thread). Other threads (the control
// socket, the status page) read the copy the control thread publishes each
// tick (servo/api/status_board.h); servo/api/status_json.h gives its JSON.
//
//   ControlPlaneStatus s = control->Snapshot();
//   for (const SourceSnapshot& src : s.sources) ... src.discipline.selected
#ifndef ZG_SERVO_CONTROL_STATUS_H_
#define ZG_SERVO_CONTROL_STATUS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"
#include "servo/audit/audit_log.h"
#include "servo/clock/nic_clock_tracker.h"
#include "servo/clock/tsc_clock.h"
#include "servo/discipline/clock_discipline.h"
#include "servo/sources/gpsd_source.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

struct SourceSnapshot {
  std::string name;
  SourceKind kind = SourceKind::kSystemClock;
  std::string spec;  // the --source value in force
  int priority = 0;
  bool enabled = true;  // false: measured, never selected (disabled live)
  SourceHealth health = SourceHealth::kUnknown;  // the source's own view
  std::string problem;                           // why not up ("" when up)
  SourceStatus discipline;  // up (samples within the timeout), selected,
                            // offset, sample and rejection counters
  uint64_t polls = 0;
  uint64_t poll_errors = 0;
  // The last 8 polls, newest in bit 0: 1 where the poll gave a sample
  // (chronyc's reach register, polled at the source's own interval).
  uint8_t reach = 0;
  std::optional<GnssStatus> gnss;  // gpsd sources only
};

struct ControlPlaneStatus {
  core::ClockModel model;  // the TSC model last published
  DisciplineStatus discipline;
  // --holdover_in_spec_limit, and how long the bound stays within it
  // without a sample (ClockDiscipline::HoldoverInSpecLeftS; -1: unknown).
  int64_t holdover_in_spec_limit_ns = 0;
  double holdover_in_spec_left_s = -1;
  int64_t uptime_ns = 0;  // since the control plane started
  core::TaiNs now_tai;    // the served time when the snapshot was taken
  core::UtcNs now_utc;    // the same instant in UTC (the leap table's)
  TscCalibration tsc;
  std::vector<SourceSnapshot> sources;
  std::vector<NicClockStatus> nics;
  bool audit_enabled = false;
  AuditLogStats audit;
  uint64_t audit_suppressed = 0;  // rejections not written (rate limit)
  std::string leap_table;         // LeapTable::Describe()
  core::UtcNs leap_table_expiry;
  uint64_t ticks = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_STATUS_H_
