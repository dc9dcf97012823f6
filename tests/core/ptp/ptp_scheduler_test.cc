// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_scheduler.h"

#include <algorithm>
#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace zg::core {
namespace ptp_scheduler_test {
namespace {

using Sched = PtpUnicastScheduler;
constexpr int64_t kSec = kNanosPerSecond;
constexpr int64_t kT0 = 1000 * kSec;  // an arbitrary monotonic start

int64_t SlotNs(uint64_t n) { return Sched::SlotStartNs(n); }

TEST(PtpScheduler, SlotArithmetic) {
  EXPECT_EQ(Sched::SlotOf(0), 0u);
  EXPECT_EQ(Sched::SlotOf(kSec), 1024u);
  EXPECT_EQ(Sched::SlotOf(kSec - 1), 1023u);
  for (uint64_t s : {0ull, 1ull, 1023ull, 1024ull, 123456789ull}) {
    EXPECT_EQ(Sched::SlotOf(Sched::SlotStartNs(s)), s);
    EXPECT_EQ(Sched::SlotOf(Sched::SlotStartNs(s) - 1), s - (s > 0 ? 1 : 0))
        << s;
  }
  EXPECT_EQ(Sched::IntervalSlots(0), 1024u);
  EXPECT_EQ(Sched::IntervalSlots(-7), 8u);
  EXPECT_EQ(Sched::IntervalSlots(5), 32768u);
}

TEST(PtpScheduler, FiresOncePerIntervalKeepingPhase) {
  auto s = *Sched::Create(4);
  s->Start(kT0);
  ASSERT_TRUE(s->Arm(2, PtpTimerKind::kSync, 0, kT0));
  EXPECT_TRUE(s->armed(2, PtpTimerKind::kSync));
  EXPECT_FALSE(s->armed(2, PtpTimerKind::kAnnounce));
  std::vector<int64_t> fired;
  int64_t now = kT0;
  for (; now <= kT0 + 5 * kSec; now += 100'000) {  // 0.1 ms steps
    s->Poll(now, 100, [&](uint32_t sub, PtpTimerKind k) {
      EXPECT_EQ(sub, 2u);
      EXPECT_EQ(k, PtpTimerKind::kSync);
      fired.push_back(now);
      return PtpTimerAction::kRearm;
    });
  }
  ASSERT_EQ(fired.size(), 5u);
  for (size_t i = 1; i < fired.size(); ++i) {
    EXPECT_NEAR(fired[i] - fired[i - 1], kSec, 100'000);
  }
  EXPECT_EQ(s->armed_count(), 1u);
}

TEST(PtpScheduler, SpreadsEvenlyAcrossTheInterval) {
  constexpr uint32_t kN = 3000;
  auto s = *Sched::Create(kN);
  s->Start(kT0);
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(s->Arm(i, PtpTimerKind::kSync, 0, kT0));
  }
  // Count fires per slot over two full seconds.
  std::map<uint64_t, int> per_slot;
  const uint64_t first = Sched::SlotOf(kT0) + 1;
  for (uint64_t slot = first; slot < first + 2048; ++slot) {
    s->Poll(SlotNs(slot), kN, [&](uint32_t, PtpTimerKind) {
      ++per_slot[slot];
      return PtpTimerAction::kRearm;
    });
  }
  int lo = kN, hi = 0, total = 0;
  for (uint64_t slot = first; slot < first + 2048; ++slot) {
    const int c = per_slot.count(slot) ? per_slot[slot] : 0;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
    total += c;
  }
  EXPECT_EQ(total, 2 * static_cast<int>(kN));
  // 3000 per 1024 slots: every slot gets 2 or 3.
  EXPECT_EQ(lo, 2);
  EXPECT_EQ(hi, 3);
}

TEST(PtpScheduler, FastIntervalsSpreadToo) {
  constexpr uint32_t kN = 16;
  auto s = *Sched::Create(kN);
  s->Start(0);
  for (uint32_t i = 0; i < kN; ++i) s->Arm(i, PtpTimerKind::kSync, -7, 0);
  // 16 timers of 8 slots: exactly 2 per slot.
  std::map<uint64_t, int> per_slot;
  for (uint64_t slot = 1; slot <= 64; ++slot) {
    s->Poll(SlotNs(slot), 100, [&](uint32_t, PtpTimerKind) {
      ++per_slot[slot];
      return PtpTimerAction::kRearm;
    });
  }
  for (uint64_t slot = 1; slot <= 64; ++slot) EXPECT_EQ(per_slot[slot], 2);
}

// Fires per subscriber and kind, polling every 100 us from `from` for
// `seconds` with a budget of 32 (a worker's burst).
std::map<uint32_t, int> FiresOver(Sched& s, int64_t from, double seconds,
                                  PtpTimerKind kind) {
  std::map<uint32_t, int> fires;
  const int64_t until = from + static_cast<int64_t>(seconds * kSec);
  for (int64_t t = from; t < until; t += 100'000) {
    s.Poll(t, 32, [&](uint32_t sub, PtpTimerKind k) {
      if (k == kind) ++fires[sub];
      return PtpTimerAction::kRearm;
    });
  }
  return fires;
}

// Timers armed before the first Poll (a worker granting in its first pass,
// before its source ever ran): the cursor starts at 0, far behind now.
// They fire on their interval; they used to alias into the slots the
// cursor was walking and fire on every Poll, up to its budget (665 Syncs
// and 4996 Announces in 4 s, instead of 32 and 4).
TEST(PtpScheduler, TimersArmedBeforeTheFirstPollKeepTheirInterval) {
  auto s = *Sched::Create(100);
  const int64_t now = 5000 * kSec;
  for (uint32_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(s->Arm(i, PtpTimerKind::kSync, -3, now));
  }
  const std::map<uint32_t, int> fires =
      FiresOver(*s, now, 4, PtpTimerKind::kSync);
  ASSERT_EQ(fires.size(), 100u);
  for (const auto& [sub, n] : fires) {
    EXPECT_GE(n, 31) << sub;
    EXPECT_LE(n, 33) << sub;
  }
}

// A stall longer than half the wheel: each timer fires once at the next
// Poll (the intervals it missed are not sent), then on its interval again.
TEST(PtpScheduler, AfterAStallEachTimerFiresOnceThenOnItsInterval) {
  auto s = *Sched::Create(10);
  s->Start(kT0);
  for (uint32_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(s->Arm(i, PtpTimerKind::kAnnounce, 0, kT0));
  }
  FiresOver(*s, kT0, 2, PtpTimerKind::kAnnounce);
  const int64_t back = kT0 + 102 * kSec;  // 100 s without a Poll
  int first = 0;
  s->Poll(back, 1000, [&](uint32_t, PtpTimerKind) {
    ++first;
    return PtpTimerAction::kRearm;
  });
  EXPECT_EQ(first, 10) << "each overdue timer once";
  const std::map<uint32_t, int> fires =
      FiresOver(*s, back + 100'000, 4, PtpTimerKind::kAnnounce);
  ASSERT_EQ(fires.size(), 10u);
  for (const auto& [sub, n] : fires) {
    EXPECT_GE(n, 3) << sub;
    EXPECT_LE(n, 5) << sub;
  }
}

TEST(PtpScheduler, BudgetDefersTheRest) {
  auto s = *Sched::Create(10);
  s->Start(0);
  for (uint32_t i = 0; i < 10; ++i) s->Arm(i, PtpTimerKind::kAnnounce, 0, 0);
  int fired = 0;
  auto count = [&](uint32_t, PtpTimerKind) {
    ++fired;
    return PtpTimerAction::kRearm;
  };
  PtpPollStats st = s->Poll(kSec + 1, 4, count);
  EXPECT_EQ(st.fired, 4u);
  EXPECT_TRUE(st.budget_hit);
  st = s->Poll(kSec + 1, 4, count);
  EXPECT_EQ(st.fired, 4u);
  st = s->Poll(kSec + 1, 4, count);
  EXPECT_EQ(st.fired, 2u);
  EXPECT_FALSE(st.budget_hit);
  EXPECT_EQ(fired, 10);
  EXPECT_EQ(s->Poll(kSec + 1, 4, count).fired, 0u);
}

TEST(PtpScheduler, StopKeepsTheTimerDue) {
  auto s = *Sched::Create(2);
  s->Start(0);
  s->Arm(0, PtpTimerKind::kSync, 0, 0);
  PtpPollStats st = s->Poll(2 * kSec, 10, [](uint32_t, PtpTimerKind) {
    return PtpTimerAction::kStop;
  });
  EXPECT_TRUE(st.stopped);
  EXPECT_EQ(st.fired, 1u);
  EXPECT_TRUE(s->armed(0, PtpTimerKind::kSync));
  int fired = 0;
  st = s->Poll(2 * kSec, 10, [&](uint32_t, PtpTimerKind) {
    ++fired;
    return PtpTimerAction::kRearm;
  });
  // The stopped one; the interval it overran is skipped, not sent in a
  // catch-up burst.
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(st.skipped[static_cast<size_t>(PtpTimerKind::kSync)], 1u);
  EXPECT_GT(s->DueSlot(0, PtpTimerKind::kSync), Sched::SlotOf(2 * kSec));
}

TEST(PtpScheduler, WholeIntervalsLateAreSkippedAndCounted) {
  auto s = *Sched::Create(2);
  s->Start(0);
  ASSERT_TRUE(s->Arm(1, PtpTimerKind::kAnnounce, 0, 0));  // 1 s
  const uint64_t d0 = s->DueSlot(1, PtpTimerKind::kAnnounce);
  int64_t late_ns = -1;
  auto send = [&](uint32_t, PtpTimerKind) {
    late_ns = s->due_ns();
    return PtpTimerAction::kRearm;
  };
  PtpPollStats st = s->Poll(SlotNs(d0), 10, send);
  EXPECT_EQ(st.fired, 1u);
  EXPECT_EQ(late_ns, SlotNs(d0));  // on time
  // The worker stalls: the next Poll is 2 intervals and 10 slots after the
  // timer's next due time. It fires once, that late, and the two intervals
  // it missed are skipped.
  const int64_t now = SlotNs(d0 + 3 * 1024 + 10);
  st = s->Poll(now, 10, send);
  EXPECT_EQ(st.fired, 1u);
  EXPECT_EQ(late_ns, SlotNs(d0 + 1024));
  EXPECT_EQ(st.skipped[static_cast<size_t>(PtpTimerKind::kAnnounce)], 2u);
  EXPECT_EQ(st.skipped[static_cast<size_t>(PtpTimerKind::kSync)], 0u);
  // Phase kept: next due at the first phase after now.
  EXPECT_EQ(s->DueSlot(1, PtpTimerKind::kAnnounce), d0 + 4 * 1024);
  // Less than a whole interval late: sent late, nothing skipped.
  st = s->Poll(SlotNs(d0 + 4 * 1024 + 1000), 10, send);
  EXPECT_EQ(st.fired, 1u);
  EXPECT_EQ(st.skipped[static_cast<size_t>(PtpTimerKind::kAnnounce)], 0u);
  EXPECT_EQ(s->DueSlot(1, PtpTimerKind::kAnnounce), d0 + 5 * 1024);
}

TEST(PtpScheduler, DisarmAndCallbackChanges) {
  auto s = *Sched::Create(4);
  s->Start(0);
  for (uint32_t i = 0; i < 4; ++i) {
    s->Arm(i, PtpTimerKind::kSync, 0, 0);
    s->Arm(i, PtpTimerKind::kAnnounce, 0, 0);
  }
  s->Disarm(3, PtpTimerKind::kSync);
  EXPECT_FALSE(s->armed(3, PtpTimerKind::kSync));
  EXPECT_EQ(s->armed_count(), 7u);
  std::vector<std::pair<uint32_t, PtpTimerKind>> seen;
  s->Poll(kSec + 1, 100, [&](uint32_t sub, PtpTimerKind k) {
    seen.push_back({sub, k});
    // Subscriber 0's Sync disarms everything of subscriber 1 and itself.
    if (sub == 0 && k == PtpTimerKind::kSync) {
      s->Disarm(1, PtpTimerKind::kSync);
      s->Disarm(1, PtpTimerKind::kAnnounce);
      s->Disarm(0, PtpTimerKind::kSync);
      return PtpTimerAction::kRearm;  // ignored: it disarmed itself
    }
    // Subscriber 2's Announce re-arms itself at a faster rate.
    if (sub == 2 && k == PtpTimerKind::kAnnounce) {
      s->Arm(2, PtpTimerKind::kAnnounce, -1, kSec + 1);
      return PtpTimerAction::kDisarm;  // ignored: it re-armed itself
    }
    return PtpTimerAction::kRearm;
  });
  EXPECT_FALSE(s->armed(0, PtpTimerKind::kSync));
  EXPECT_FALSE(s->armed(1, PtpTimerKind::kSync));
  EXPECT_TRUE(s->armed(2, PtpTimerKind::kAnnounce));
  EXPECT_LE(s->DueSlot(2, PtpTimerKind::kAnnounce),
            Sched::SlotOf(kSec + 1) + 512);
  for (const auto& [sub, k] : seen) {
    EXPECT_FALSE(sub == 3 && k == PtpTimerKind::kSync);
  }
}

TEST(PtpScheduler, RearmWithSameIntervalKeepsPhaseNewIntervalMoves) {
  auto s = *Sched::Create(2);
  s->Start(0);
  s->Arm(0, PtpTimerKind::kSync, 0, 0);
  const uint64_t due = s->DueSlot(0, PtpTimerKind::kSync);
  EXPECT_TRUE(s->Arm(0, PtpTimerKind::kSync, 0, 500'000'000));
  EXPECT_EQ(s->DueSlot(0, PtpTimerKind::kSync), due);
  EXPECT_TRUE(s->Arm(0, PtpTimerKind::kSync, -3, 500'000'000));
  const uint64_t now_slot = Sched::SlotOf(500'000'000);
  EXPECT_GT(s->DueSlot(0, PtpTimerKind::kSync), now_slot);
  EXPECT_LE(s->DueSlot(0, PtpTimerKind::kSync), now_slot + 128);
  EXPECT_EQ(s->armed_count(), 1u);
}

TEST(PtpScheduler, RejectsBadArguments) {
  auto s = *Sched::Create(2);
  EXPECT_FALSE(s->Arm(2, PtpTimerKind::kSync, 0, 0));
  EXPECT_FALSE(s->Arm(0, PtpTimerKind::kSync, -11, 0));
  EXPECT_FALSE(s->Arm(0, PtpTimerKind::kSync, 6, 0));
  EXPECT_TRUE(s->Arm(0, PtpTimerKind::kSync, 5, 0));
  EXPECT_FALSE(Sched::Create(0).ok());
}

TEST(PtpScheduler, LongStallFiresEveryTimerOnce) {
  auto s = *Sched::Create(100);
  s->Start(0);
  for (uint32_t i = 0; i < 100; ++i) s->Arm(i, PtpTimerKind::kSync, 0, 0);
  int fired = 0;
  // 10 minutes later: the cursor catches up (CatchUp) instead of walking
  // the slots it missed.
  const PtpPollStats st =
      s->Poll(600 * kSec, 1'000'000, [&](uint32_t, PtpTimerKind) {
        ++fired;
        return PtpTimerAction::kRearm;
      });
  EXPECT_LE(st.slots, 1u) << "the cursor jumped to now";
  // Each once: the intervals of the stall are skipped, not replayed, and
  // counted: each timer was due in the first second, so 599 or 600 whole
  // intervals went by.
  EXPECT_EQ(fired, 100);
  EXPECT_GE(st.skipped[static_cast<size_t>(PtpTimerKind::kSync)], 100u * 599);
  EXPECT_LE(st.skipped[static_cast<size_t>(PtpTimerKind::kSync)], 100u * 600);
  EXPECT_EQ(s->cursor(), Sched::SlotOf(600 * kSec) + 1);
}

}  // namespace
}  // namespace ptp_scheduler_test
}  // namespace zg::core
