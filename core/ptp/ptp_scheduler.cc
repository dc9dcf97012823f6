// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_scheduler.h"

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

uint32_t BitReverse(uint32_t v, unsigned bits) {
  if (bits == 0) return 0;
  uint32_t r = 0;
  for (unsigned i = 0; i < bits; ++i) {
    r = (r << 1) | (v & 1u);
    v >>= 1;
  }
  return r;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PtpUnicastScheduler>>
PtpUnicastScheduler::Create(uint32_t capacity) {
  if (capacity == 0 || capacity > (kNil - 1) / kPtpTimerKinds) {
    return absl::InvalidArgumentError(
        absl::StrCat("unicast scheduler capacity ", capacity, " out of range"));
  }
  return std::unique_ptr<PtpUnicastScheduler>(
      new PtpUnicastScheduler(capacity));
}

PtpUnicastScheduler::PtpUnicastScheduler(uint32_t capacity)
    : capacity_(capacity),
      nodes_(size_t{capacity} * kPtpTimerKinds),
      heads_(kWheelSlots, kNil) {}

void PtpUnicastScheduler::Start(int64_t now_mono_ns) {
  cursor_ = SlotOf(now_mono_ns);
}

void PtpUnicastScheduler::CatchUp(uint64_t now_slot) {
  if (now_slot < cursor_ + kWheelSlots / 2) return;
  constexpr uint32_t kMask = kWheelSlots - 1;
  // Each list holds the timers of one slot within the revolution ahead of
  // the cursor, so its slot is exact. The overdue ones go to now's slot
  // (fired at the next Poll, then re-armed on their interval), with the
  // whole intervals they missed counted as skipped; the others stay. Now's
  // own list first, so that none is visited twice. O(wheel + armed), once
  // per stall.
  const uint32_t to = static_cast<uint32_t>(now_slot) & kMask;
  for (uint32_t i = 0; armed_count_ != 0 && i < kWheelSlots; ++i) {
    const uint32_t w = (to + i) & kMask;
    const uint64_t due =
        cursor_ + ((w - static_cast<uint32_t>(cursor_)) & kMask);
    if (due > now_slot) continue;
    for (uint32_t node = heads_[w]; node != kNil;) {
      const uint32_t next = nodes_[node].next;
      catch_up_skipped_[node % kPtpTimerKinds] += static_cast<uint32_t>(
          (now_slot - due) / IntervalSlots(nodes_[node].log_interval));
      if (w != to) {
        Unlink(node);
        Link(node, now_slot);
      }
      node = next;
    }
  }
  cursor_ = now_slot;
}

void PtpUnicastScheduler::Link(uint32_t node, uint64_t abs_slot) {
  TimerNode& n = nodes_[node];
  const uint32_t w = static_cast<uint32_t>(abs_slot) & (kWheelSlots - 1);
  n.wheel_slot = static_cast<uint16_t>(w);
  n.prev = kNil;
  n.next = heads_[w];
  if (n.next != kNil) nodes_[n.next].prev = node;
  heads_[w] = node;
  n.armed = 1;
  ++armed_count_;
  if (node == in_flight_) in_flight_touched_ = true;
}

void PtpUnicastScheduler::Unlink(uint32_t node) {
  TimerNode& n = nodes_[node];
  if (n.prev != kNil) {
    nodes_[n.prev].next = n.next;
  } else {
    heads_[n.wheel_slot] = n.next;
  }
  if (n.next != kNil) nodes_[n.next].prev = n.prev;
  n.prev = n.next = kNil;
  n.armed = 0;
  --armed_count_;
}

uint64_t PtpUnicastScheduler::FirstDue(int8_t log_interval, uint64_t now_slot) {
  const unsigned bits =
      static_cast<unsigned>(log_interval + kSlotsPerSecondLog2);
  const uint32_t period = 1u << bits;
  uint32_t& counter = phase_[log_interval - kPtpMinLogInterval];
  const uint32_t phase = BitReverse(counter++ & (period - 1), bits);
  // The first slot after now whose position within the period is `phase`.
  const uint64_t start = now_slot + 1;
  const uint32_t pos = static_cast<uint32_t>(start & (period - 1));
  return start + ((phase - pos) & (period - 1));
}

bool PtpUnicastScheduler::Arm(uint32_t subscriber, PtpTimerKind kind,
                              int8_t log_interval, int64_t now_mono_ns) {
  if (subscriber >= capacity_ || log_interval < kPtpMinLogInterval ||
      log_interval > kPtpMaxLogInterval) {
    return false;
  }
  const uint32_t node = Node(subscriber, kind);
  TimerNode& n = nodes_[node];
  if (n.armed) {
    if (n.log_interval == log_interval) return true;
    Unlink(node);
  }
  n.log_interval = log_interval;
  const uint64_t now_slot = SlotOf(now_mono_ns);
  if (in_flight_ == kNil) CatchUp(now_slot);  // Poll caught up already
  Link(node, FirstDue(log_interval, now_slot > cursor_ ? now_slot : cursor_));
  return true;
}

void PtpUnicastScheduler::Disarm(uint32_t subscriber, PtpTimerKind kind) {
  if (subscriber >= capacity_) return;
  const uint32_t node = Node(subscriber, kind);
  if (node == in_flight_) in_flight_touched_ = true;
  if (nodes_[node].armed) Unlink(node);
}

uint64_t PtpUnicastScheduler::DueSlot(uint32_t subscriber,
                                      PtpTimerKind kind) const {
  const uint32_t w = nodes_[Node(subscriber, kind)].wheel_slot;
  return cursor_ + ((w - static_cast<uint32_t>(cursor_)) & (kWheelSlots - 1));
}

}  // namespace zg::core
