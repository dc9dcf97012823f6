// INTERIM clock publisher: stands in for the control plane (servo/, another
// module) until it lands, so zeitgeberd serves real time meanwhile. Delete it
// when servo's control thread publishes the ClockModels.
//
// Every Step() (about every 100 ms, control thread only):
//  - TSC vs CLOCK_REALTIME: the narrowest of a few bracketed reads
//    (RDTSCP, clock_gettime, RDTSCP); the TSC rate is the slope over a
//    sliding window (10 s), restarted when the system clock steps; the model
//    is anchored at the newest sample. TAI = UTC + TAI-UTC, where TAI-UTC is
//    the kernel's (adjtimex tai, set by chrony/ptp4l) or the configured
//    fallback.
//  - Synchronised (state kLocked, stratum 2) while adjtimex says the system
//    clock is synchronised (or always, with require_synchronized = false);
//    else kFreerun/stratum 16. Error bound: the
//    kernel's estimated error plus half the read bracket; pending leap
//    seconds from STA_INS/STA_DEL.
//  - Each registered NIC clock: bracketed NIC/TSC samples, NIC->TSC rate over
//    the same kind of window, composed with the TSC model into a NIC
//    ticks -> TAI model (published once two samples span >= 50 ms).
//
//   core::PublishedClock tsc_clock;
//   InterimClockPublisher pub(&tsc_clock, {.tsc_hz = rte_get_tsc_hz()});
//   pub.AddNicClock(&nic, &nic_clock);
//   while (running) { pub.Step(); sleep(100ms); }
#ifndef ZG_DATAPLANE_INTERIM_CLOCK_PUBLISHER_H_
#define ZG_DATAPLANE_INTERIM_CLOCK_PUBLISHER_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "core/clock_model.h"
#include "dataplane/nic_clock.h"

namespace zg::dataplane {

class InterimClockPublisher {
 public:
  struct Options {
    double tsc_hz = 0;                      // nominal TSC rate (rte_get_tsc_hz)
    int32_t fallback_tai_offset_s = 37;     // when the kernel has no TAI offset
    int64_t window_ns = 10'000'000'000;     // rate-estimation window
    int64_t step_threshold_ns = 1'000'000;  // prediction error = clock step
    int64_t error_growth_ns_per_s = 1'000;  // 1 ppm between publishes
    int64_t max_extrapolation_ns = 2'000'000'000;  // stale after 2 s
    // false: an unsynchronised kernel clock (STA_UNSYNC) is served as
    // synchronised anyway, with unsynchronized_error_ns as its error (an
    // operator's guess; the kernel's own esterror is then meaningless).
    bool require_synchronized = true;
    int64_t unsynchronized_error_ns = 100'000'000;
  };

  // What the system clock said at the last step (for logs and tests).
  struct SystemClockStatus {
    bool synchronized = false;         // as served
    bool kernel_synchronized = false;  // as adjtimex said
    int64_t est_error_ns = 0;
    int32_t tai_offset_s = 0;
    bool tai_offset_from_kernel = false;
  };

  InterimClockPublisher(core::PublishedClock* tsc_out, const Options& options);

  // Registers a NIC clock whose NIC ticks -> TAI model goes to `out`.
  void AddNicClock(NicClock* clock, core::PublishedClock* out);

  // Samples, estimates and publishes. Errors (a NIC clock read failing) are
  // reported but the TSC model is still published.
  absl::Status Step();

  const core::ClockModel& tsc_model() const { return tsc_model_; }
  const SystemClockStatus& system_clock() const { return system_; }

 private:
  struct Sample {
    uint64_t tsc = 0;    // midpoint of the bracket
    int64_t ref_ns = 0;  // UTC ns (TSC track) or NIC ticks (NIC track)
    uint64_t half_bracket_tsc = 0;
  };
  struct NicTrack {
    NicClock* clock;
    core::PublishedClock* out;
    std::deque<Sample> window;
    uint64_t generation = 0;
  };

  static Sample ReadRealtimeBracketed();
  // Reads adjtimex: sync state, error, TAI-UTC and a pending leap (relative
  // to the UTC time `utc_ns`).
  void UpdateSystemStatus(int64_t utc_ns, core::ClockModel* m);
  absl::Status StepNic(NicTrack& nic);

  core::PublishedClock* tsc_out_;
  Options options_;
  std::deque<Sample> window_;
  core::ClockModel tsc_model_;
  SystemClockStatus system_;
  std::vector<NicTrack> nics_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_INTERIM_CLOCK_PUBLISHER_H_
