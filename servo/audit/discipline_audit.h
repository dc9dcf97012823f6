// SPDX-License-Identifier: Apache-2.0
// DisciplineAudit: the clock discipline's events
// (servo/discipline/discipline_event.h) as audit-log records
// (servo/audit/audit_log.h) — names instead of indices, states and classes as
// text, the numbers that explain the event in `values` — with rejected samples
// rate-limited per source and reason, so a spoofed or broken reference cannot
// flood the log: the first rejection is always written, then at most one per
// interval, carrying how many were suppressed since.
//
//   DisciplineAudit audit({.reject_interval_ns = 10'000'000'000});
//   discipline->SetEventSink([&](const DisciplineEvent& e) {
//     std::optional<AuditRecord> r =
//         audit.Convert(e, *discipline, fallback_tai, mono_ns);
//     if (r) { r->utc = leaps.TaiToUtc(r->tai); log->Append(*r); }
//   });
//
// Control thread only.
#ifndef ZG_SERVO_DISCIPLINE_AUDIT_H_
#define ZG_SERVO_DISCIPLINE_AUDIT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "core/time/time_types.h"
#include "servo/audit/audit_log.h"
#include "servo/discipline/clock_discipline.h"
#include "servo/discipline/discipline_event.h"

namespace zg::servo {

class DisciplineAudit {
 public:
  struct Options {
    // At most one sample_rejected record per source and reason per interval.
    int64_t reject_interval_ns = 10'000'000'000;
  };

  explicit DisciplineAudit(const Options& options) : options_(options) {}

  // The record for `e`, or nullopt for a rejection the rate limit
  // suppresses. `fallback_tai` is used when the event carries no TAI (no
  // model yet); `mono_ns` is CLOCK_MONOTONIC (for the rate limit). The
  // record's utc is left for the caller (it owns the leap table).
  std::optional<AuditRecord> Convert(const DisciplineEvent& e,
                                     const ClockDiscipline& discipline,
                                     core::TaiNs fallback_tai, int64_t mono_ns);

  uint64_t suppressed_total() const { return suppressed_total_; }

 private:
  struct Limit {
    int64_t last_mono_ns = 0;
    uint64_t suppressed = 0;
  };
  // True if the rejection should be written; sets *suppressed to the count
  // of rejections dropped since the last one written.
  bool Admit(int source, RejectReason reason, int64_t mono_ns,
             uint64_t* suppressed);

  Options options_;
  std::map<std::pair<int, int>, Limit> limits_;
  bool stepped_ = false;  // the first step (start-up) was reported
  uint64_t suppressed_total_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_DISCIPLINE_AUDIT_H_
