// SPDX-License-Identifier: Apache-2.0
// DisciplineEvent: what the clock discipline reports for the audit log —
// every state change, lock, holdover entry and exit, clockClass change,
// rejected sample, source switch, source up/down, falseticker, step.
//
// The discipline calls an EventSink synchronously from Update()/AddSamples()
// on the control thread; the audit log (servo/audit/audit_log.h) turns events
// into JSON lines. Events are plain values: names of sources come from
// ClockDiscipline::source_info(event.source).
//
//   discipline->SetEventSink([&](const DisciplineEvent& e) {
//     audit.Write(e, discipline->source_info(e.source));
//   });
#ifndef ZG_SERVO_DISCIPLINE_EVENT_H_
#define ZG_SERVO_DISCIPLINE_EVENT_H_

#include <cstdint>
#include <functional>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::servo {

enum class EventKind : uint8_t {
  kStateChange,    // any SyncState change not covered below
  kLocked,         // LOCKING -> LOCKED
  kHoldoverEnter,  // LOCKED/LOCKING -> HOLDOVER_* (or straight to FREERUN)
  kHoldoverExit,   // HOLDOVER_* -> LOCKING (reference back)
  kClockClassChange,
  kSampleRejected,  // see RejectReason
  kSourceSwitch,    // selection moved from other_source to source
  kSourceUp,
  kSourceDown,
  kFalseticker,    // source's interval misses the majority's
  kStep,           // the model's phase was stepped by offset_ns
  kModelOutvoted,  // the sources' majority excludes our model: re-acquire
};
const char* EventKindName(EventKind kind);

enum class RejectReason : uint8_t {
  kNone,
  kOutlier,  // popcorn filter: far from the recent median
  kJump,     // beyond the model's error bound + uncertainty + margin
  kInvalid,  // uncertainty < 0 or > ~11.6 days, TAI before 2000 or after
             // 2116, raw ticks more than 1 h from the last Update's
};
const char* RejectReasonName(RejectReason reason);

struct DisciplineEvent {
  EventKind kind = EventKind::kStateChange;
  uint64_t raw_ticks = 0;  // raw clock when it happened (the sample's raw
                           // ticks for sample events, else Update's raw_now)
  core::TaiNs tai;         // the model's TAI at raw_ticks (0 if no model)
  int source = -1;         // source index; -1 if none
  int other_source = -1;   // kSourceSwitch: the previous source
  core::SyncState from_state = core::SyncState::kFreerun;
  core::SyncState to_state = core::SyncState::kFreerun;
  uint8_t from_class = 0;
  uint8_t to_class = 0;
  RejectReason reason = RejectReason::kNone;
  int64_t offset_ns = 0;  // the sample's offset vs the model / the step
  int64_t limit_ns = 0;   // the gate it failed, or the bound at the event
};

using EventSink = std::function<void(const DisciplineEvent&)>;

}  // namespace zg::servo

#endif  // ZG_SERVO_DISCIPLINE_EVENT_H_
