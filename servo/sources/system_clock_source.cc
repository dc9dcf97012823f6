// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/system_clock_source.h"

#include <errno.h>
#include <string.h>
#include <sys/timex.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"

namespace zg::servo {
namespace {

constexpr int64_t kNsPerUs = 1000;

const char* ClockName(clockid_t c) {
  return c == CLOCK_TAI ? "CLOCK_TAI" : "CLOCK_REALTIME";
}

std::string TimexSummary(const KernelClockStatus& k) {
  return absl::StrFormat(
      "adjtimex state %d, status 0x%04x, maxerror %.3f ms, esterror %.3f ms",
      k.state, k.status, k.maxerror_ns / 1e6, k.esterror_ns / 1e6);
}

}  // namespace

SourceInfo SystemClockSourceOptions::DefaultInfo() {
  SourceInfo info;
  info.kind = SourceKind::kSystemClock;
  info.stratum = 2;  // disciplined by chronyd/ptp4l from a stratum-1 source
  info.ptp_time_source = core::PtpTimeSource::kNtp;
  info.priority = 100;
  return info;
}

bool KernelClockStatus::synchronized() const {
  return (status & STA_UNSYNC) == 0;
}

absl::StatusOr<std::unique_ptr<SystemClockSource>> SystemClockSource::Create(
    RawClock* raw, SystemClockSourceOptions options, SystemClockOps* ops) {
  struct timex tx = {};
  if (ops->ReadTimex(&tx) < 0) {
    return absl::InternalError(
        absl::StrCat("adjtimex(2) failed: ", strerror(errno)));
  }
  clockid_t clock = CLOCK_REALTIME;
  switch (options.scale) {
    case SystemClockSourceOptions::Scale::kAuto:
      clock = tx.tai > 0 ? CLOCK_TAI : CLOCK_REALTIME;
      break;
    case SystemClockSourceOptions::Scale::kRealtime:
      break;
    case SystemClockSourceOptions::Scale::kTai:
      if (tx.tai <= 0) {
        return absl::FailedPreconditionError(
            "system clock source: CLOCK_TAI was requested but the kernel's "
            "TAI offset is not set (adjtimex tai = 0), so CLOCK_TAI would "
            "read UTC. Let chronyd set it (`leapsectz right/UTC` in "
            "chrony.conf) or use the CLOCK_REALTIME scale with a "
            "leap-seconds file");
      }
      clock = CLOCK_TAI;
      break;
  }
  if (clock == CLOCK_REALTIME && !options.tai_minus_utc) {
    return absl::InvalidArgumentError(
        "system clock source: reading CLOCK_REALTIME (UTC) needs TAI-UTC: "
        "configure the leap-seconds file, or let chronyd set the kernel's "
        "TAI offset (`leapsectz right/UTC`) so CLOCK_TAI can be used");
  }
  int64_t ns = 0;
  if (!ops->ReadNs(clock, &ns)) {
    return absl::InternalError(absl::StrCat("clock_gettime(", ClockName(clock),
                                            ") failed: ", strerror(errno)));
  }
  if (options.reads_per_sample < 1) options.reads_per_sample = 1;
  if (options.info.name.empty()) {
    options.info.name = absl::StrCat("system:", ClockName(clock));
  }
  return std::unique_ptr<SystemClockSource>(
      new SystemClockSource(raw, std::move(options), ops, clock));
}

SystemClockSource::SystemClockSource(RawClock* raw,
                                     SystemClockSourceOptions options,
                                     SystemClockOps* ops, clockid_t clock)
    : raw_(raw),
      options_(std::move(options)),
      ops_(ops),
      clock_(clock),
      health_(options_.timeout_ns) {}

absl::Status SystemClockSource::Fail(absl::Status why) {
  health_.OnFailure(why);
  return why;
}

absl::Status SystemClockSource::ReadKernelStatus() {
  struct timex tx = {};
  const int state = ops_->ReadTimex(&tx);
  if (state < 0) {
    return absl::InternalError(
        absl::StrCat("adjtimex(2) failed: ", strerror(errno)));
  }
  kernel_.state = state;
  kernel_.status = tx.status;
  kernel_.maxerror_ns = int64_t{tx.maxerror} * kNsPerUs;
  kernel_.esterror_ns = int64_t{tx.esterror} * kNsPerUs;
  kernel_.tai_offset_s = tx.tai;
  return absl::OkStatus();
}

SystemClockSource::Verdict SystemClockSource::JudgeKernelStatus() const {
  if (!kernel_.synchronized()) {
    if (options_.require_synchronized) {
      return {
          true,
          absl::FailedPreconditionError(absl::StrCat(
              "system clock: ", ClockName(clock_),
              " is not synchronised (STA_UNSYNC; ", TimexSummary(kernel_),
              "). Check that chronyd (`chronyc tracking`) or ptp4l + phc2sys "
              "(`pmc -u -b 0 'GET TIME_STATUS_NP'`) is running and locked; to "
              "serve this clock anyway, allow unsynchronised system time"))};
    }
    return {false, absl::UnavailableError(absl::StrCat(
                       "system clock is not synchronised (STA_UNSYNC); "
                       "serving it with an assumed error of ",
                       options_.unsynchronized_error_ns / 1e6, " ms"))};
  }
  if (kernel_.state == TIME_ERROR) {
    return {false,
            absl::UnavailableError(absl::StrCat(
                "kernel clock reports TIME_ERROR (", TimexSummary(kernel_),
                "): STA_CLOCKERR or a PPS discipline error"))};
  }
  if (kernel_.maxerror_ns > options_.degraded_maxerror_ns) {
    return {false, absl::UnavailableError(absl::StrCat(
                       "kernel maxerror ", kernel_.maxerror_ns / 1e6,
                       " ms exceeds ", options_.degraded_maxerror_ns / 1e6,
                       " ms: the disciplining daemon has not updated the clock "
                       "recently"))};
  }
  return {};
}

int64_t SystemClockSource::KernelErrorNs() const {
  if (!kernel_.synchronized()) return options_.unsynchronized_error_ns;
  // maxerror is the kernel's bound; esterror is added on top (conservative:
  // chronyd and phc2sys set both, and not every daemon folds the current
  // offset estimate into maxerror).
  return kernel_.maxerror_ns + kernel_.esterror_ns;
}

absl::Status SystemClockSource::Poll(std::vector<ReferenceSample>* out) {
  const int64_t mono = MonotonicNs(*ops_);
  if (absl::Status s = ReadKernelStatus(); !s.ok()) return Fail(s);
  const Verdict verdict = JudgeKernelStatus();
  if (verdict.down) return Fail(verdict.reason);
  if (clock_ == CLOCK_REALTIME && kernel_.state == TIME_OOP) {
    ++skipped_near_leap_;  // inside an inserted leap second
    health_.Refresh(mono);
    return absl::OkStatus();
  }
  const std::optional<CorrelationPoint> p =
      ReadBracketed(*raw_, *ops_, clock_, options_.reads_per_sample);
  if (!p) {
    return Fail(absl::InternalError(absl::StrCat(
        "clock_gettime(", ClockName(clock_), ") failed: ", strerror(errno))));
  }
  const int64_t clock_ns = static_cast<int64_t>(p->other);
  core::TaiNs tai{clock_ns};
  if (clock_ == CLOCK_REALTIME) {
    const std::optional<core::TaiNs> t =
        UtcToTaiUnambiguous(core::UtcNs{clock_ns}, options_.tai_minus_utc);
    if (!t) {
      ++skipped_near_leap_;
      health_.Refresh(mono);
      return absl::OkStatus();
    }
    tai = *t;
  } else if (options_.tai_minus_utc) {
    const core::UtcNs utc{clock_ns - int64_t{kernel_.tai_offset_s} *
                                         core::kNanosPerSecond};
    const std::optional<core::TaiNs> t =
        UtcToTaiUnambiguous(utc, options_.tai_minus_utc);
    if (!t) {
      ++skipped_near_leap_;
      health_.Refresh(mono);
      return absl::OkStatus();
    }
    if (t->value != clock_ns) {
      return Fail(absl::FailedPreconditionError(absl::StrCat(
          "system clock: the kernel's TAI offset (", kernel_.tai_offset_s,
          " s) disagrees with the leap-seconds table (",
          options_.tai_minus_utc(utc),
          " s); CLOCK_TAI would be off by whole seconds. Update the "
          "leap-seconds file or chronyd's leapsectz zone data (tzdata)")));
    }
  }
  const double half_ns =
      static_cast<double>(p->half_width_ticks) * 1e9 / raw_->NominalHz();
  ReferenceSample s;
  s.raw_ticks = p->tsc;
  s.reference_tai = tai;
  s.uncertainty_ns = static_cast<int64_t>(half_ns + 1) + KernelErrorNs();
  s.taken_at = tai;
  out->push_back(s);
  ++samples_;
  health_.OnSample(mono, verdict.reason);
  return absl::OkStatus();
}

}  // namespace zg::servo
