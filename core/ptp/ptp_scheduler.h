// SPDX-License-Identifier: Apache-2.0
// The unicast send scheduler of one worker: when to send each subscriber its
// next Announce and Sync, spread evenly across each interval so that a
// million 1 Hz subscribers become a steady ~1000 messages per millisecond
// rather than a burst once a second.
//
// A hashed timing wheel of 2^16 slots of 2^-10 s (about 0.98 ms; the wheel
// spans 64 s, twice the longest interval, 2^5 s). Every subscriber has two
// timers (Announce, Sync), kept in doubly-linked per-slot lists threaded
// through fixed arrays: arm, disarm and fire are O(1), nothing allocates
// after Create. A timer's phase within its interval comes from a bit-reversed
// counter per interval length (0, 1/2, 1/4, 3/4, 1/8, ...), so n subscribers
// of one interval land in n evenly spaced slots whatever order they arrive
// in. A fired timer is re-armed exactly one interval later, keeping its
// phase. A timer that fires a whole interval or more behind (the worker
// could not keep up) is re-armed at its next phase after now instead: the
// intervals it missed are skipped, not sent in a catch-up burst, and
// counted in PtpPollStats::skipped; how late each one fired is due_ns()
// away from now.
//
// Single-threaded (the owning worker). Times are the caller's monotonic
// nanoseconds (>= 0), never TAI: the schedule must not jump with the clock.
// Poll at least every few seconds. Every armed timer lies within one
// revolution ahead of the cursor: a cursor more than half a revolution
// (32 s, the longest interval) behind now, never polled or stalled, is
// first brought to now (CatchUp, from Arm and Poll), the overdue timers
// with it, so each fires once at the next Poll (the intervals it missed
// counted as skipped) and then keeps its interval.
// Without that, a timer armed or re-armed relative to now could land past
// the revolution and alias into slots the cursor was about to visit,
// firing again and again (subscribers granted before a worker's first
// Poll got up to the Poll budget of Announces every poll).
//
//   ZG_ASSIGN_OR_RETURN(auto sched, PtpUnicastScheduler::Create(1'000'000));
//   sched->Start(now_ns);
//   sched->Arm(subscriber, PtpTimerKind::kSync, /*log_interval=*/-4, now_ns);
//   // every loop iteration:
//   sched->Poll(now_ns, /*budget=*/64, [&](uint32_t sub, PtpTimerKind k) {
//     return SendTo(sub, k) ? PtpTimerAction::kRearm : PtpTimerAction::kStop;
//   });
#ifndef ZG_CORE_PTP_PTP_SCHEDULER_H_
#define ZG_CORE_PTP_PTP_SCHEDULER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ptp/ptp_profile.h"
#include "core/time/time_types.h"

namespace zg::core {

enum class PtpTimerKind : uint8_t { kAnnounce = 0, kSync = 1 };
inline constexpr size_t kPtpTimerKinds = 2;

// What the callback of Poll decides for a due timer.
enum class PtpTimerAction : uint8_t {
  kRearm,   // sent: fire again one interval later
  kDisarm,  // grant gone: stop this timer
  kStop,    // no room to send now: keep it due and end this Poll
};

struct PtpPollStats {
  uint32_t fired = 0;    // callbacks made
  uint32_t slots = 0;    // slots advanced past
  bool stopped = false;  // the callback asked to stop
  bool budget_hit = false;
  // Intervals skipped by timers fired a whole interval or more late, per
  // PtpTimerKind: each is a message the subscriber did not get.
  std::array<uint32_t, kPtpTimerKinds> skipped{};
};

class PtpUnicastScheduler {
 public:
  static constexpr int kSlotsPerSecondLog2 = 10;
  static constexpr uint32_t kWheelBits = 16;
  static constexpr uint32_t kWheelSlots = 1u << kWheelBits;
  static constexpr uint32_t kNil = UINT32_MAX;

  // Timers for subscribers 0..capacity-1 (24 B per subscriber).
  static absl::StatusOr<std::unique_ptr<PtpUnicastScheduler>> Create(
      uint32_t capacity);

  // Sets the wheel's cursor to `now_mono_ns`; timers armed later fire
  // relative to it. Call once before the first Arm.
  void Start(int64_t now_mono_ns);

  // Arms (or re-arms with a new interval) one timer. An armed timer with the
  // same interval is left alone (its phase is kept across renewals). False
  // if log_interval is outside [kPtpMinLogInterval, kPtpMaxLogInterval] or
  // the subscriber is out of range.
  bool Arm(uint32_t subscriber, PtpTimerKind kind, int8_t log_interval,
           int64_t now_mono_ns);
  void Disarm(uint32_t subscriber, PtpTimerKind kind);
  bool armed(uint32_t subscriber, PtpTimerKind kind) const {
    return nodes_[Node(subscriber, kind)].armed != 0;
  }
  uint32_t armed_count() const { return armed_count_; }

  // Fires every timer due at or before `now_mono_ns`, oldest slot first, at
  // most `budget` of them; the rest stay due for the next Poll. The callback
  // `on_due(uint32_t subscriber, PtpTimerKind kind) -> PtpTimerAction` may
  // Arm and Disarm any timer, including the one it was called for.
  template <typename OnDue>
  PtpPollStats Poll(int64_t now_mono_ns, uint32_t budget, OnDue&& on_due);

  // The absolute slot (2^-10 s units) of a monotonic time, and back.
  static uint64_t SlotOf(int64_t mono_ns) {
    return static_cast<uint64_t>(
        (static_cast<unsigned __int128>(mono_ns < 0 ? 0 : mono_ns)
         << kSlotsPerSecondLog2) /
        kNanosPerSecond);
  }
  static int64_t SlotStartNs(uint64_t slot) {
    return static_cast<int64_t>(
        (static_cast<unsigned __int128>(slot) * kNanosPerSecond +
         (1u << kSlotsPerSecondLog2) - 1) >>
        kSlotsPerSecondLog2);
  }
  // Interval length in slots: 2^(log_interval + 10).
  static uint32_t IntervalSlots(int8_t log_interval) {
    return 1u << (log_interval + kSlotsPerSecondLog2);
  }
  // The slot a timer is next due in (for tests); requires armed().
  uint64_t DueSlot(uint32_t subscriber, PtpTimerKind kind) const;
  // Inside Poll's callback: when the timer being fired was due (the start
  // of its slot), monotonic ns; now minus this is how late it fires.
  int64_t due_ns() const { return SlotStartNs(cursor_); }
  uint64_t cursor() const { return cursor_; }

 private:
  struct TimerNode {
    uint32_t prev = kNil;
    uint32_t next = kNil;
    uint16_t wheel_slot = 0;  // index into heads_ while armed
    int8_t log_interval = 0;
    uint8_t armed = 0;
  };
  explicit PtpUnicastScheduler(uint32_t capacity);
  static uint32_t Node(uint32_t subscriber, PtpTimerKind kind) {
    return subscriber * kPtpTimerKinds + static_cast<uint32_t>(kind);
  }
  void Link(uint32_t node, uint64_t abs_slot);
  void Unlink(uint32_t node);
  // See the file comment: keeps cursor_ within half a revolution of now.
  void CatchUp(uint64_t now_slot);
  uint64_t FirstDue(int8_t log_interval, uint64_t now_slot);

  uint32_t capacity_;
  uint64_t cursor_ = 0;  // the next absolute slot to fire
  // Intervals skipped by timers CatchUp found overdue, per kind: reported
  // by the next Poll.
  std::array<uint32_t, kPtpTimerKinds> catch_up_skipped_{};
  uint32_t armed_count_ = 0;
  // The node whose callback is running, and whether it was disarmed or
  // re-armed from inside it.
  uint32_t in_flight_ = kNil;
  bool in_flight_touched_ = false;
  std::vector<TimerNode> nodes_;  // 2 per subscriber
  std::vector<uint32_t> heads_;   // kWheelSlots list heads
  // Bit-reversal counters, one per interval length.
  std::array<uint32_t, kPtpMaxLogInterval - kPtpMinLogInterval + 1> phase_{};
};

// ---- Implementation ---------------------------------------------------------

template <typename OnDue>
PtpPollStats PtpUnicastScheduler::Poll(int64_t now_mono_ns, uint32_t budget,
                                       OnDue&& on_due) {
  PtpPollStats st;
  const uint64_t now_slot = SlotOf(now_mono_ns);
  CatchUp(now_slot);
  for (size_t k = 0; k < kPtpTimerKinds; ++k) {
    st.skipped[k] += catch_up_skipped_[k];
    catch_up_skipped_[k] = 0;
  }
  while (cursor_ <= now_slot) {
    const uint32_t w = static_cast<uint32_t>(cursor_) & (kWheelSlots - 1);
    while (heads_[w] != kNil) {
      if (st.fired >= budget) {
        st.budget_hit = true;
        return st;
      }
      const uint32_t n = heads_[w];
      Unlink(n);
      in_flight_ = n;
      in_flight_touched_ = false;
      const PtpTimerAction a =
          on_due(n / kPtpTimerKinds, static_cast<PtpTimerKind>(n % 2));
      in_flight_ = kNil;
      ++st.fired;
      if (in_flight_touched_) continue;  // the callback re-armed/disarmed it
      if (a == PtpTimerAction::kRearm) {
        const uint64_t period = IntervalSlots(nodes_[n].log_interval);
        uint64_t next = cursor_ + period;
        if (next <= now_slot) {  // behind by whole intervals: skip them
          const uint64_t missed = (now_slot - cursor_) / period;
          next = cursor_ + (missed + 1) * period;
          st.skipped[n % kPtpTimerKinds] += static_cast<uint32_t>(missed);
        }
        Link(n, next);
      } else if (a == PtpTimerAction::kStop) {
        Link(n, cursor_);
        st.stopped = true;
        return st;
      }
    }
    ++cursor_;
    ++st.slots;
  }
  return st;
}

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_SCHEDULER_H_
