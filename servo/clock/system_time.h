// SPDX-License-Identifier: Apache-2.0
// The kernel's clocks as the control plane sees them, and how instants on
// them map to the raw clock (TSC).
//
// SystemClockOps is the injectable seam over clock_gettime(2) and adjtimex(2)
// (tests use a fake with a simulated oscillator). ReadBracketed reads a
// system clock between two raw-clock reads. SystemTimeMap turns instants the
// kernel stamped on CLOCK_REALTIME (a PPS edge, gpsd's receive time, a PHC
// read's system bracket) into raw ticks by interpolating between bracketed
// anchor reads taken before and after the event; CLOCK_REALTIME may be slewed
// by chrony between anchors, so the interpolation error is bounded by a
// configured rate-change allowance.
//
//   SystemTimeMap map(&tsc, &RealSystemClockOps());
//   map.Anchor();                        // before fetching the event
//   int64_t edge_realtime_ns = ...;      // e.g. a PPS assert timestamp
//   map.Anchor();                        // after
//   auto m = map.TicksAt(edge_realtime_ns);  // {ticks, uncertainty_ns}
//
// Control thread only.
#ifndef ZG_SERVO_SYSTEM_TIME_H_
#define ZG_SERVO_SYSTEM_TIME_H_

#include <sys/timex.h>
#include <time.h>

#include <cstdint>
#include <deque>
#include <optional>

#include "servo/clock/clock_correlator.h"
#include "servo/sources/reference_source.h"

namespace zg::servo {

class SystemClockOps {
 public:
  virtual ~SystemClockOps() = default;
  // clock_gettime(clock) as nanoseconds since that clock's epoch; false (and
  // errno set) if the clock cannot be read.
  virtual bool ReadNs(clockid_t clock, int64_t* ns) = 0;
  // adjtimex(2) in read-only mode (modes = 0): fills *tx and returns the clock
  // state (TIME_OK, TIME_INS, ..., TIME_ERROR) or -1 with errno set.
  virtual int ReadTimex(struct timex* tx) = 0;
};

// The real kernel clocks (process-wide, stateless).
SystemClockOps& RealSystemClockOps();

// CLOCK_MONOTONIC in ns (for timeouts and backoff), 0 if unreadable.
int64_t MonotonicNs(SystemClockOps& ops);

// Reads `clock` between two raw-clock reads `tries` times and returns the
// tightest bracket (other = the clock's ns as uint64), or nullopt if the clock
// could not be read.
std::optional<CorrelationPoint> ReadBracketed(RawClock& raw,
                                              SystemClockOps& ops,
                                              clockid_t clock, int tries);

struct SystemTimeMapOptions {
  clockid_t clock = CLOCK_REALTIME;
  int tries = 5;            // reads per anchor; the tightest is kept
  size_t max_anchors = 32;  // recent anchors kept for interpolation
  // Allowed change of the system clock's rate against the raw clock between
  // two anchors (chrony retuning its slew), ppm. Bounds interpolation error.
  double interpolation_ppm = 10;
  // Allowed rate difference when extrapolating from a single anchor (kernel
  // frequency correction + slew + raw-clock calibration error), ppm.
  double extrapolation_ppm = 500;
};

class SystemTimeMap {
 public:
  struct Mapping {
    uint64_t ticks = 0;          // raw ticks at the system-clock instant
    int64_t uncertainty_ns = 0;  // bound on the mapping error
  };

  SystemTimeMap(RawClock* raw, SystemClockOps* ops,
                const SystemTimeMapOptions& options = {});

  // Takes one bracketed anchor now. False if the clock could not be read.
  bool Anchor();
  // Adds an anchor read elsewhere (other = system ns as uint64). An anchor
  // inconsistent with the previous one (the system clock was stepped) drops
  // the older anchors.
  void AddAnchor(const CorrelationPoint& anchor);

  // Raw ticks at system-clock time `system_ns`: interpolated between the
  // surrounding anchors, or extrapolated from the nearest one.
  std::optional<Mapping> TicksAt(int64_t system_ns) const;

  size_t anchor_count() const { return anchors_.size(); }
  uint64_t steps_detected() const { return steps_; }
  const SystemTimeMapOptions& options() const { return options_; }

 private:
  double NsPerTick() const;
  int64_t HalfWidthNs(const CorrelationPoint& p) const;

  RawClock* raw_;
  SystemClockOps* ops_;
  SystemTimeMapOptions options_;
  std::deque<CorrelationPoint> anchors_;  // ascending in both tsc and system
  uint64_t steps_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_SYSTEM_TIME_H_
