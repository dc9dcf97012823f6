// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/simulated_source.h"

#include <errno.h>
#include <string.h>

#include <cmath>
#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "servo/sources/refid.h"

namespace zg::servo {

SourceInfo SimulatedSourceOptions::DefaultInfo() {
  SourceInfo info;
  info.kind = SourceKind::kSimulated;
  info.ntp_refid = NtpRefId("SIM");
  info.stratum = 0;  // stands in for a primary reference
  info.ptp_time_source = core::PtpTimeSource::kOther;
  info.time_traceable = true;
  info.frequency_traceable = true;
  info.priority = 50;
  return info;
}

absl::StatusOr<std::unique_ptr<SimulatedSource>> SimulatedSource::Create(
    RawClock* raw, SimulatedSourceOptions options, SystemClockOps* ops) {
  if (!options.tai_minus_utc) {
    return absl::InvalidArgumentError(
        "simulated source: needs TAI-UTC (the leap-second table) to start "
        "its truth from CLOCK_REALTIME");
  }
  if (options.uncertainty_ns < 0 || options.noise_ns < 0 ||
      options.up_for_ns < 0 || options.down_for_ns < 0 ||
      options.jump_after_ns < 0 || options.timeout_ns <= 0) {
    return absl::InvalidArgumentError(
        "simulated source: uncertainty, noise, up_for, down_for, jump_after "
        "must not be negative and timeout must be positive");
  }
  int64_t realtime = 0, mono_raw = 0, mono = 0;
  if (!ops->ReadNs(CLOCK_REALTIME, &realtime) ||
      !ops->ReadNs(CLOCK_MONOTONIC_RAW, &mono_raw) ||
      !ops->ReadNs(CLOCK_MONOTONIC, &mono)) {
    return absl::InternalError(absl::StrCat(
        "simulated source: cannot read the system clocks: ", strerror(errno)));
  }
  if (options.tries < 1) options.tries = 1;
  if (options.info.name.empty()) options.info.name = "sim";
  return std::unique_ptr<SimulatedSource>(new SimulatedSource(
      raw, std::move(options), ops, core::UtcNs{realtime}, mono_raw, mono));
}

SimulatedSource::SimulatedSource(RawClock* raw, SimulatedSourceOptions options,
                                 SystemClockOps* ops, core::UtcNs utc0,
                                 int64_t mono_raw0, int64_t mono0)
    : raw_(raw),
      options_(std::move(options)),
      ops_(ops),
      utc0_(utc0),
      mono_raw0_(mono_raw0),
      mono0_(mono0),
      rng_(options_.seed),
      health_(options_.timeout_ns) {}

bool SimulatedSource::ControlFileSaysDown() const {
  if (options_.control_file.empty()) return false;
  std::ifstream in(options_.control_file);
  std::string word;
  return in && (in >> word) && word == "down";
}

bool SimulatedSource::ScriptedUp(int64_t elapsed_ns) const {
  if (ControlFileSaysDown()) return false;
  if (options_.up_for_ns == 0 || elapsed_ns < options_.up_for_ns) return true;
  if (options_.down_for_ns == 0) return false;
  return elapsed_ns >= options_.up_for_ns + options_.down_for_ns;
}

absl::Status SimulatedSource::Poll(std::vector<ReferenceSample>* out) {
  const int64_t mono = MonotonicNs(*ops_);
  const int64_t elapsed = mono - mono0_;
  if (!ScriptedUp(elapsed)) {
    // No sample: the timeout makes the source down, as a real outage would.
    health_.Refresh(mono);
    const SourceHealth h = health_.health();
    if (h == SourceHealth::kUp || h == SourceHealth::kDegraded) {
      return absl::OkStatus();
    }
    absl::Status why = absl::UnavailableError(absl::StrFormat(
        "simulated source %s: scripted outage (%s)", options_.info.name,
        ControlFileSaysDown()
            ? absl::StrCat(options_.control_file, " says down")
            : absl::StrFormat("down from %.3f s after start",
                              options_.up_for_ns * 1e-9)));
    health_.OnFailure(why);
    return why;
  }
  const std::optional<CorrelationPoint> p =
      ReadBracketed(*raw_, *ops_, CLOCK_MONOTONIC_RAW, options_.tries);
  if (!p) {
    const absl::Status why = absl::InternalError(
        absl::StrCat("simulated source: cannot read CLOCK_MONOTONIC_RAW: ",
                     strerror(errno)));
    health_.OnFailure(why);
    return why;
  }
  int64_t error_ns = options_.offset_ns;
  if (options_.jump_ns != 0 && elapsed >= options_.jump_after_ns) {
    error_ns += options_.jump_ns;
  }
  if (options_.noise_ns > 0) {
    error_ns +=
        std::llround(gauss_(rng_) * static_cast<double>(options_.noise_ns));
  }
  if (!tai0_) {
    tai0_ = core::TaiNs{utc0_.value + int64_t{options_.tai_minus_utc(utc0_)} *
                                          core::kNanosPerSecond};
  }
  const int64_t since0 = static_cast<int64_t>(p->other) - mono_raw0_;
  const double half_ns =
      static_cast<double>(p->half_width_ticks) * 1e9 / raw_->NominalHz();
  ReferenceSample s;
  s.raw_ticks = p->tsc;
  s.reference_tai = *tai0_ + since0 + error_ns;
  s.uncertainty_ns =
      options_.uncertainty_ns + static_cast<int64_t>(half_ns) + 1;
  s.taken_at = s.reference_tai;
  out->push_back(s);
  ++samples_;
  health_.OnSample(mono);
  return absl::OkStatus();
}

}  // namespace zg::servo
