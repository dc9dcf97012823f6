// SPDX-License-Identifier: Apache-2.0
// Test doubles for the control plane's clocks: one simulated "true" time, a
// TSC running at a known rate against it, and kernel clocks (CLOCK_REALTIME,
// CLOCK_TAI, CLOCK_MONOTONIC[_RAW]) derived from it. Every read advances the
// simulated time, so a bracketed read (TSC, clock, TSC) has the clock read
// exactly at the bracket's midpoint unless extra delays are queued.
//
//   SimWorld w;
//   FakeRawClock tsc(&w);
//   FakeSystemClockOps ops(&w);
//   ReferenceSample s = ...;                  // from a source under test
//   EXPECT_EQ(w.TrueUtcAtTicks(s.raw_ticks), ...);
#ifndef ZG_TESTS_SERVO_FAKE_CLOCKS_H_
#define ZG_TESTS_SERVO_FAKE_CLOCKS_H_

#include <errno.h>
#include <sys/timex.h>
#include <time.h>

#include <cmath>
#include <cstdint>
#include <deque>

#include "servo/clock/system_time.h"
#include "servo/sources/reference_source.h"

namespace zg::servo::testing {

struct SimWorld {
  static constexpr int64_t kStart = 1'700'000'000'000'000'000;  // true UTC ns
  int64_t true_utc_ns = kStart;
  int64_t step_per_read_ns = 10;  // every clock read takes this long
  double tsc_hz = 2.5e9;
  uint64_t tsc_at_start = 5'000'000'000;
  int64_t realtime_error_ns = 0;  // CLOCK_REALTIME - true UTC
  int32_t tai_offset_s = 37;      // what CLOCK_TAI adds (the kernel's view)
  bool fail_reads = false;
  // Extra delays (ns) consumed by successive reads of the *system* clock,
  // inserted before the read: skews that bracket.
  std::deque<int64_t> system_read_delays;
  struct timex tx = {};
  int timex_state = TIME_OK;

  void Advance(int64_t ns) { true_utc_ns += ns; }
  uint64_t Tsc() const {
    return tsc_at_start +
           static_cast<uint64_t>(std::llround(
               static_cast<double>(true_utc_ns - kStart) * tsc_hz / 1e9));
  }
  // True UTC at TSC `ticks` (inverse of Tsc()).
  int64_t TrueUtcAtTicks(uint64_t ticks) const {
    return kStart + std::llround(static_cast<double>(static_cast<int64_t>(
                                     ticks - tsc_at_start)) *
                                 1e9 / tsc_hz);
  }
  int64_t Realtime() const { return true_utc_ns + realtime_error_ns; }
};

class FakeRawClock final : public RawClock {
 public:
  explicit FakeRawClock(SimWorld* w) : w_(w) {}
  uint64_t NowTicks() override {
    w_->Advance(w_->step_per_read_ns);
    return w_->Tsc();
  }
  double NominalHz() const override { return w_->tsc_hz; }

 private:
  SimWorld* w_;
};

class FakeSystemClockOps final : public SystemClockOps {
 public:
  explicit FakeSystemClockOps(SimWorld* w) : w_(w) {
    w_->tx.maxerror = 1000;  // us
    w_->tx.esterror = 100;
  }
  bool ReadNs(clockid_t clock, int64_t* ns) override {
    if (w_->fail_reads) {
      errno = EINVAL;
      return false;
    }
    if (!w_->system_read_delays.empty()) {
      w_->Advance(w_->system_read_delays.front());
      w_->system_read_delays.pop_front();
    }
    w_->Advance(w_->step_per_read_ns);
    switch (clock) {
      case CLOCK_REALTIME:
        *ns = w_->Realtime();
        return true;
      case CLOCK_TAI:
        *ns = w_->Realtime() + int64_t{w_->tai_offset_s} * 1'000'000'000;
        return true;
      default:  // MONOTONIC, MONOTONIC_RAW: true time since start + 1000 s
        *ns = w_->true_utc_ns - SimWorld::kStart + 1'000'000'000'000;
        return true;
    }
  }
  int ReadTimex(struct timex* tx) override {
    *tx = w_->tx;
    tx->tai = w_->tai_offset_s;
    return w_->timex_state;
  }

 private:
  SimWorld* w_;
};

}  // namespace zg::servo::testing

#endif  // ZG_TESTS_SERVO_FAKE_CLOCKS_H_
