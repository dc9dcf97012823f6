// SPDX-License-Identifier: Apache-2.0
// SystemClockSource: the kernel clock as a reference — CLOCK_REALTIME or
// CLOCK_TAI as disciplined by chronyd or ptp4l+phc2sys. The demo default.
//
// Each Poll reads the clock between two raw-clock (TSC) reads several times
// and keeps the tightest bracket: "at tick R the kernel said T, give or take
// half the bracket". The kernel's own view of its error is added: adjtimex's
// maxerror and esterror (which chronyd and phc2sys keep up to date). An
// unsynchronised kernel clock (STA_UNSYNC) makes the source down unless the
// operator allows it; TIME_ERROR without STA_UNSYNC, or a maxerror above the
// configured threshold, makes it degraded.
//
// Scale: CLOCK_TAI when the kernel's TAI offset is set (adjtimex's `tai`
// field, which chronyd sets with `leapsectz right/UTC`), else CLOCK_REALTIME
// (UTC) mapped to TAI through the leap-second table callback (tai_offset.h).
// Samples within one second of a leap are skipped (UTC is ambiguous there).
//
//   SystemClockSourceOptions opt;
//   opt.tai_minus_utc = [&](core::UtcNs t) { return leaps.TaiMinusUtc(t); };
//   ZG_ASSIGN_OR_RETURN(auto src, SystemClockSource::Create(tsc.get(), opt));
//   std::vector<ReferenceSample> samples;
//   absl::Status s = src->Poll(&samples);   // one sample, or why not
//
// Control thread only.
#ifndef ZG_SERVO_SYSTEM_CLOCK_SOURCE_H_
#define ZG_SERVO_SYSTEM_CLOCK_SOURCE_H_

#include <time.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_health.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

struct SystemClockSourceOptions {
  enum class Scale { kAuto, kRealtime, kTai };
  Scale scale = Scale::kAuto;  // kAuto: CLOCK_TAI iff the kernel TAI offset
                               // is set
  // TAI-UTC from the leap table. Required for CLOCK_REALTIME; with CLOCK_TAI
  // it cross-checks the kernel's offset (a mismatch makes the source down).
  TaiMinusUtcFn tai_minus_utc;
  int reads_per_sample = 8;  // bracketed reads per sample; tightest kept
  // STA_UNSYNC: down when true; when false, degraded with
  // unsynchronized_error_ns as the assumed error (an operator's guess).
  bool require_synchronized = true;
  int64_t unsynchronized_error_ns = 100'000'000;
  // Synchronised, but the kernel's maxerror is above this: degraded.
  int64_t degraded_maxerror_ns = 100'000'000;
  int64_t timeout_ns = 5'000'000'000;
  // Name, refid, stratum... as served. Empty name: "system:CLOCK_TAI" or
  // "system:CLOCK_REALTIME".
  SourceInfo info = DefaultInfo();

  static SourceInfo DefaultInfo();
};

// adjtimex's view of the kernel clock, from the last Poll.
struct KernelClockStatus {
  int state = 0;   // TIME_OK, TIME_INS, ..., TIME_ERROR
  int status = 0;  // STA_* bits
  int64_t maxerror_ns = 0;
  int64_t esterror_ns = 0;
  int32_t tai_offset_s = 0;  // 0: not set
  bool synchronized() const;
};

class SystemClockSource final : public ReferenceSource {
 public:
  static absl::StatusOr<std::unique_ptr<SystemClockSource>> Create(
      RawClock* raw, SystemClockSourceOptions options,
      SystemClockOps* ops = &RealSystemClockOps());

  const SourceInfo& info() const override { return options_.info; }
  absl::Status Poll(std::vector<ReferenceSample>* out) override;
  SourceHealth health() const override { return health_.health(); }

  // Why the source is down or degraded (OK when up).
  const absl::Status& problem() const override { return health_.problem(); }
  clockid_t clock_id() const { return clock_; }
  const KernelClockStatus& kernel_status() const { return kernel_; }
  uint64_t samples() const { return samples_; }
  uint64_t skipped_near_leap() const { return skipped_near_leap_; }

 private:
  SystemClockSource(RawClock* raw, SystemClockSourceOptions options,
                    SystemClockOps* ops, clockid_t clock);
  absl::Status Fail(absl::Status why);
  absl::Status ReadKernelStatus();
  // What the kernel status means for the source: `down` with the reason, or
  // up (reason OK) or degraded (reason non-OK).
  struct Verdict {
    bool down = false;
    absl::Status reason;
  };
  Verdict JudgeKernelStatus() const;
  int64_t KernelErrorNs() const;

  RawClock* raw_;
  SystemClockSourceOptions options_;
  SystemClockOps* ops_;
  clockid_t clock_;
  HealthTracker health_;
  KernelClockStatus kernel_;
  uint64_t samples_ = 0;
  uint64_t skipped_near_leap_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_SYSTEM_CLOCK_SOURCE_H_
