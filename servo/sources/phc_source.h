// SPDX-License-Identifier: Apache-2.0
// PhcSource: a PTP hardware clock (/dev/ptpN) as a reference — a NIC's clock
// disciplined by ptp4l, or a Time Card's clock disciplined by its GNSS
// receiver and atomic oscillator.
//
// Each Poll reads the PHC against a system clock with the best method the
// device supports (phc_device.h: PRECISE cross-timestamp, else EXTENDED with
// CLOCK_MONOTONIC_RAW, else EXTENDED with CLOCK_REALTIME, else the basic
// PTP_SYS_OFFSET), keeps the tightest (system, PHC, system) triple, and maps
// the system instant to raw ticks by interpolating between bracketed
// (TSC, system clock, TSC) anchors read just before and just after the ioctl.
//
// Timescale: a PHC run by ptp4l (or ts2phc/a Time Card) counts TAI, the PTP
// timescale — the default here. A PHC set from CLOCK_REALTIME by phc2sys
// counts UTC: configure Timescale::kUtc and the leap table. A PHC reading
// before 2000 has never been set and makes the source down.
//
//   ZG_ASSIGN_OR_RETURN(auto dev, OpenPhcDevice("/dev/ptp0"));
//   ZG_ASSIGN_OR_RETURN(auto src,
//                       PhcSource::Create(tsc.get(), std::move(dev), {}));
//   src->Poll(&samples);
//
// Control thread only.
#ifndef ZG_SERVO_PHC_SOURCE_H_
#define ZG_SERVO_PHC_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/phc_device.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_health.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

enum class PhcReadMethod : uint8_t {
  kPrecise,           // PTP_SYS_OFFSET_PRECISE (hardware cross-timestamp)
  kExtendedMonoRaw,   // PTP_SYS_OFFSET_EXTENDED, CLOCK_MONOTONIC_RAW stamps
  kExtendedRealtime,  // PTP_SYS_OFFSET_EXTENDED, CLOCK_REALTIME stamps
  kBasic,             // PTP_SYS_OFFSET
};
const char* PhcReadMethodName(PhcReadMethod m);

struct PhcSourceOptions {
  enum class Timescale { kTai, kUtc };
  Timescale timescale = Timescale::kTai;
  TaiMinusUtcFn tai_minus_utc;  // required for kUtc
  int samples_per_read = 5;     // triples per ioctl (1..25); tightest kept
  int anchor_reads = 5;         // bracketed reads per TSC anchor
  bool allow_precise = true;    // try PTP_SYS_OFFSET_PRECISE first
  // The PHC's own error against true time (e.g. ptp4l's offset jitter, a
  // Time Card's specified accuracy); added to every sample's uncertainty.
  int64_t phc_error_ns = 1'000;
  int64_t timeout_ns = 3'000'000'000;
  SourceInfo info = DefaultInfo();  // empty name: "phc:<path>"

  static SourceInfo DefaultInfo();
};

class PhcSource final : public ReferenceSource {
 public:
  // Probes the read methods (one read each, best first) and keeps the first
  // that works.
  static absl::StatusOr<std::unique_ptr<PhcSource>> Create(
      RawClock* raw, std::unique_ptr<PhcDevice> device,
      PhcSourceOptions options, SystemClockOps* ops = &RealSystemClockOps());

  const SourceInfo& info() const override { return options_.info; }
  absl::Status Poll(std::vector<ReferenceSample>* out) override;
  SourceHealth health() const override { return health_.health(); }

  const absl::Status& problem() const override { return health_.problem(); }
  PhcReadMethod method() const { return method_; }
  const PhcCaps& caps() const { return caps_; }
  // Width of the last tightest (system, PHC, system) bracket, ns.
  int64_t last_bracket_ns() const { return last_bracket_ns_; }
  uint64_t samples() const { return samples_; }

 private:
  // A PHC reading reduced to one system instant.
  struct Reading {
    int64_t sys_ns = 0;
    int64_t phc_ns = 0;
    int64_t half_width_ns = 0;
  };

  PhcSource(RawClock* raw, std::unique_ptr<PhcDevice> device,
            PhcSourceOptions options, SystemClockOps* ops, PhcCaps caps,
            PhcReadMethod method);
  static clockid_t SystemClockOf(PhcReadMethod m);
  absl::StatusOr<Reading> Read(PhcReadMethod m);
  absl::Status Fail(absl::Status why);

  std::unique_ptr<PhcDevice> device_;
  PhcSourceOptions options_;
  SystemClockOps* ops_;
  PhcCaps caps_;
  PhcReadMethod method_;
  SystemTimeMap map_;
  HealthTracker health_;
  int64_t last_bracket_ns_ = 0;
  uint64_t samples_ = 0;
};

// The tightest well-formed triple (sys_after >= sys_before), or nullopt.
std::optional<PhcTriple> TightestPhcTriple(const std::vector<PhcTriple>& t);

}  // namespace zg::servo

#endif  // ZG_SERVO_PHC_SOURCE_H_
