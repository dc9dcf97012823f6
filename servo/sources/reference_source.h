// SPDX-License-Identifier: Apache-2.0
// ReferenceSource: one interface for everything that can tell the control
// plane what time it is — the system clock (CLOCK_REALTIME/CLOCK_TAI as
// disciplined by chrony or ptp4l), a PHC (/dev/ptpN), PPS (/dev/ppsN), gpsd,
// or a simulation.
//
// A source measures the reference against the data plane's raw clock (the
// TSC, or a NIC clock correlated to it) and yields ReferenceSamples: "at raw
// tick R, the reference said TAI T, give or take U". The servo turns samples
// into a frequency and phase estimate; holdover and selection decide what the
// published ClockModel says.
//
// Sources are polled by the control thread only; none is shared with workers.
//
//   std::vector<ReferenceSample> samples;
//   ZG_RETURN_IF_ERROR(source->Poll(&samples));
//   for (const auto& s : samples) servo.AddSample(s);
#ifndef ZG_SERVO_REFERENCE_SOURCE_H_
#define ZG_SERVO_REFERENCE_SOURCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::servo {

// The raw clock the samples are measured against (TSC, NIC clock, or a
// simulated oscillator in tests). Read by the control thread.
class RawClock {
 public:
  virtual ~RawClock() = default;
  virtual uint64_t NowTicks() = 0;
  // Nominal rate, for unit conversion before calibration refines it.
  virtual double NominalHz() const = 0;
};

enum class SourceKind : uint8_t { kSystemClock, kPhc, kPps, kGpsd, kSimulated };

enum class SourceHealth : uint8_t {
  kUnknown,   // no sample yet
  kUp,        // samples arriving within the configured timeout
  kDegraded,  // samples arriving, but the source reports reduced quality
  kDown,      // no usable sample within the timeout
};

// One measurement of the reference against the raw clock.
struct ReferenceSample {
  uint64_t raw_ticks = 0;      // raw clock at the instant measured
  core::TaiNs reference_tai;   // the reference's time at that instant
  int64_t uncertainty_ns = 0;  // |truth - reference_tai| <= this (read bracket
                               // + the source's own error estimate)
  core::TaiNs taken_at;        // control-plane time the sample was taken (for
                               // timeouts; same scale as reference_tai)
};

// What a source tells clients about itself (NTP refid, PTP timeSource...).
struct SourceInfo {
  std::string name;  // operator-facing, e.g. "gpsd:127.0.0.1:2947"
  SourceKind kind = SourceKind::kSimulated;
  uint32_t ntp_refid = 0;  // e.g. 'GPS\0', 'PPS\0', 'PHC\0'
  uint8_t stratum = 0;     // the source's own stratum (0 for GNSS/PPS)
  core::PtpTimeSource ptp_time_source = core::PtpTimeSource::kOther;
  bool time_traceable = false;
  bool frequency_traceable = false;
  int priority = 0;  // lower is preferred
};

class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;
  virtual const SourceInfo& info() const = 0;
  // Takes whatever samples are ready (never blocks for long: at most a
  // bounded device read). Appends to `out`. An error means the source is
  // unusable now; health() reflects it.
  virtual absl::Status Poll(std::vector<ReferenceSample>* out) = 0;
  virtual SourceHealth health() const = 0;
  // Why the source is down or degraded (OK when up): a message that tells an
  // operator what to check. For logs, the audit log and metrics.
  virtual const absl::Status& problem() const = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_REFERENCE_SOURCE_H_
