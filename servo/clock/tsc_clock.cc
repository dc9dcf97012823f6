// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/tsc_clock.h"

#include <time.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"
#include "core/time/tsc.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace zg::servo {
namespace {

// TSC read that neither moves before earlier loads nor lets later ones move
// before it.
inline uint64_t OrderedTsc() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
#else
  return core::ReadTsc();
#endif
}

BracketedRead ReadTscMonoRaw() {
  BracketedRead r;
  struct timespec ts;
  r.tsc_before = OrderedTsc();
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  r.tsc_after = OrderedTsc();
  r.other =
      static_cast<uint64_t>(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec);
  return r;
}

bool HasFlag(std::string_view flags, std::string_view flag) {
  size_t pos = 0;
  while ((pos = flags.find(flag, pos)) != std::string_view::npos) {
    const bool start_ok = pos == 0 || flags[pos - 1] == ' ';
    const size_t end = pos + flag.size();
    const bool end_ok =
        end == flags.size() || flags[end] == ' ' || flags[end] == '\n';
    if (start_ok && end_ok) return true;
    pos = end;
  }
  return false;
}

}  // namespace

absl::Status CheckInvariantTsc(std::string_view cpuinfo) {
  size_t cpus = 0;
  size_t pos = 0;
  while (pos < cpuinfo.size()) {
    size_t eol = cpuinfo.find('\n', pos);
    if (eol == std::string_view::npos) eol = cpuinfo.size();
    const std::string_view line = cpuinfo.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.substr(0, 5) != "flags") continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view flags = line.substr(colon + 1);
    ++cpus;
    for (std::string_view need : {"constant_tsc", "nonstop_tsc"}) {
      if (!HasFlag(flags, need)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the TSC is not invariant: /proc/cpuinfo flags of CPU ", cpus - 1,
            " lack ", absl::string_view(need.data(), need.size()),
            ", so the TSC may change rate or stop in deep C-states and "
            "cannot be zeitgeber's raw clock. Run on a CPU with an invariant "
            "TSC (in a VM, expose it: QEMU/KVM `-cpu host,+invtsc`), or use "
            "a NIC clock as the raw clock"));
      }
    }
  }
  if (cpus == 0) {
    return absl::FailedPreconditionError(
        "cannot tell whether the TSC is invariant: no 'flags' line in "
        "/proc/cpuinfo");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TscClock>> TscClock::Create(
    const TscClockOptions& options) {
#if defined(__x86_64__) || defined(__i386__)
  std::ifstream in(options.cpuinfo_path);
  if (!in) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot read ", options.cpuinfo_path,
        " to check that the TSC is invariant (is /proc mounted?)"));
  }
  std::stringstream text;
  text << in.rdbuf();
  ZG_RETURN_IF_ERROR(CheckInvariantTsc(text.str()));
#endif
  Io io;
  io.read_bracket = ReadTscMonoRaw;
  io.now_ticks = OrderedTsc;
  io.sleep = [](int64_t ns) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
  };
  return CreateWithIo(options, std::move(io));
}

absl::StatusOr<std::unique_ptr<TscClock>> TscClock::CreateWithIo(
    const TscClockOptions& options, Io io) {
  if (options.reads_per_point < 1 || options.window_points < 2 ||
      options.initial_point_spacing_ns <= 0 ||
      options.initial_calibration_ns < 2 * options.initial_point_spacing_ns) {
    return absl::InvalidArgumentError(
        "TSC calibration options: need reads_per_point >= 1, window_points "
        ">= 2 and initial_calibration_ns >= 2 * initial_point_spacing_ns");
  }
  // A first guess for the drift time base and unit conversions, from two
  // reads one spacing apart.
  const BracketedRead a = io.read_bracket();
  io.sleep(options.initial_point_spacing_ns);
  const BracketedRead b = io.read_bracket();
  const double d_ticks = static_cast<double>(b.tsc_after - a.tsc_before);
  const double d_ns =
      static_cast<double>(static_cast<int64_t>(b.other - a.other));
  if (!(d_ticks > 0) || !(d_ns > 0)) {
    return absl::InternalError(absl::StrFormat(
        "TSC calibration: the TSC or CLOCK_MONOTONIC_RAW did not advance "
        "(%.0f ticks, %.0f ns over %d ns of sleep)",
        d_ticks, d_ns, options.initial_point_spacing_ns));
  }
  auto clock = std::unique_ptr<TscClock>(
      new TscClock(options, std::move(io), d_ticks / d_ns * 1e9));
  const int64_t points =
      options.initial_calibration_ns / options.initial_point_spacing_ns;
  for (int64_t i = 0; i < points; ++i) {
    if (i > 0) clock->io_.sleep(options.initial_point_spacing_ns);
    clock->AddPoint();
  }
  if (!clock->last_fit_) {
    return absl::InternalError(
        "TSC calibration produced no usable fit: every bracketed read was "
        "rejected (is the TSC going backwards?)");
  }
  return clock;
}

TscClock::TscClock(const TscClockOptions& options, Io io, double first_guess_hz)
    : options_(options), io_(std::move(io)), first_guess_hz_(first_guess_hz) {
  CorrelatorOptions c;
  c.window_points = options_.window_points;
  c.step_threshold_other = options_.step_threshold_ns;
  correlator_ = std::make_unique<ClockCorrelator>(first_guess_hz_, c);
}

void TscClock::AddPoint() {
  std::vector<BracketedRead> reads(
      static_cast<size_t>(options_.reads_per_point));
  for (BracketedRead& r : reads) r = io_.read_bracket();
  correlator_->AddBurst(reads);
  if (correlator_->fit() && correlator_->fit()->other_per_tick > 0) {
    last_fit_ = *correlator_->fit();
  }
}

void TscClock::Refine() { AddPoint(); }

double TscClock::NominalHz() const {
  if (!last_fit_) return first_guess_hz_;
  return 1e9 / last_fit_->other_per_tick;
}

TscCalibration TscClock::calibration() const {
  TscCalibration c;
  c.hz = NominalHz();
  const CorrelatorStats& s = correlator_->stats();
  // The correlator tracks ns per tick; the frequency moves the other way.
  if (s.drift_ppb_per_s) c.drift_ppb_per_s = -*s.drift_ppb_per_s;
  c.max_abs_drift_ppb_per_s = s.max_abs_drift_ppb_per_s;
  c.steps = s.steps;
  if (const std::optional<CorrelatorFit>& f = last_fit_) {
    c.uncertainty_ppb = f->RelativeRateUncertainty() * 1e9;
    c.bound_ppb = f->RelativeRateBound() * 1e9;
    c.span_s = static_cast<double>(f->span_ticks) / c.hz;
    c.points = f->points;
    c.residual_rms_ns = f->residual_rms_other;
    c.max_half_width_ticks = f->max_half_width_ticks;
  }
  return c;
}

int64_t TscClock::MonoRawNsAt(uint64_t ticks) const {
  return static_cast<int64_t>(last_fit_->OtherAt(ticks));
}

uint64_t TscClock::TicksAtMonoRawNs(int64_t mono_raw_ns) const {
  return last_fit_->TscAt(static_cast<uint64_t>(mono_raw_ns));
}

}  // namespace zg::servo
