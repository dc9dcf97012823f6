// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/nic_clock_tracker.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

constexpr double kQ32 = 4294967296.0;

CorrelatorOptions CorrelatorOptionsFor(const NicTrackerOptions& o) {
  CorrelatorOptions c;
  c.window_points = o.window_points;
  c.segment_points = o.segment_points;
  c.step_threshold_other = 0;  // in NIC units; detected here in ns instead
  return c;
}

}  // namespace

NicClockTracker::NicClockTracker(std::string name, NicClockReadFn read,
                                 core::PublishedClock* out, double tsc_hz,
                                 const NicTrackerOptions& options)
    : read_(std::move(read)),
      out_(out),
      tsc_hz_(tsc_hz),
      options_(options),
      correlator_(tsc_hz, CorrelatorOptionsFor(options)) {
  if (options_.reads_per_sample < 1) options_.reads_per_sample = 1;
  burst_.reserve(options_.reads_per_sample);
  status_.name = std::move(name);
}

absl::Status NicClockTracker::Sample() {
  burst_.clear();
  for (int i = 0; i < options_.reads_per_sample; ++i) {
    absl::StatusOr<BracketedRead> r = read_();
    if (!r.ok()) {
      ++status_.read_errors;
      status_.last_error = std::string(r.status().message());
      return absl::Status(
          r.status().code(),
          absl::StrCat("NIC clock ", status_.name, ": ", r.status().message()));
    }
    burst_.push_back(*r);
  }
  const std::optional<CorrelationPoint> p = TightestBracket(burst_);
  if (!p) {
    ++status_.rejected;
    return absl::OkStatus();
  }
  const std::optional<CorrelatorFit>& fit = correlator_.fit();
  if (fit && fit->other_per_tick > 0) {
    const double predicted =
        static_cast<double>(fit->other_base) + fit->OtherOffsetAt(p->tsc);
    const double off_ns = std::fabs(static_cast<double>(p->other) - predicted) /
                          fit->other_per_tick * 1e9 / tsc_hz_;
    if (off_ns > options_.step_threshold_ns) {
      correlator_.Reset();  // the NIC clock was stepped: start over
      ++status_.steps;
    }
  }
  if (correlator_.Add(*p) != ClockCorrelator::AddResult::kAdded) {
    ++status_.rejected;
  }
  return absl::OkStatus();
}

std::optional<core::ClockModel> NicClockTracker::Compose(
    const core::ClockModel& tsc_model, uint64_t tsc_now) const {
  const std::optional<CorrelatorFit>& fit = correlator_.fit();
  if (!fit || !(fit->other_per_tick > 0) || tsc_model.ns_per_tick_q32 == 0) {
    return std::nullopt;
  }
  const double ns_per_tsc =
      static_cast<double>(tsc_model.ns_per_tick_q32) / kQ32;
  const double ns_per_nic = ns_per_tsc / fit->other_per_tick;
  const double rel_unc = fit->RelativeRateUncertainty();
  const uint64_t newest = fit->tsc_base + fit->span_ticks;
  const double since_fit_ns =
      std::fabs(static_cast<double>(static_cast<int64_t>(tsc_now - newest))) *
      ns_per_tsc;
  // At the anchor: the points' scatter (3 sigma), the widest bracket, the
  // rate's uncertainty since the newest point, and rounding to a NIC tick.
  const double mapping_ns =
      3 * fit->residual_rms_other * ns_per_nic +
      static_cast<double>(fit->max_half_width_ticks) * ns_per_tsc +
      rel_unc * since_fit_ns + ns_per_nic;
  const double horizon_s =
      static_cast<double>(tsc_model.max_extrapolation_ns) * 1e-9;
  const std::optional<double>& drift = correlator_.stats().drift_ppb_per_s;
  const double growth_ppb = rel_unc * 1e9 +
                            (drift ? std::fabs(*drift) * horizon_s : 0.0) +
                            0.5 / kQ32 / ns_per_nic * 1e9;
  core::ClockModel m = tsc_model;
  m.raw_anchor = fit->OtherAt(tsc_now);
  m.tai_anchor = tsc_model.RawToTai(tsc_now);
  m.ns_per_tick_q32 = static_cast<uint64_t>(std::llround(ns_per_nic * kQ32));
  m.error_bound_ns += static_cast<int64_t>(std::ceil(mapping_ns));
  m.error_growth_ns_per_s += static_cast<int64_t>(std::ceil(growth_ppb));
  return m;
}

absl::Status NicClockTracker::Tick(int64_t mono_ns,
                                   const core::ClockModel& tsc_model,
                                   uint64_t tsc_now) {
  absl::Status status;
  const bool warming = correlator_.window_size() < options_.warmup_points;
  if (warming || mono_ns >= next_sample_mono_) {
    status = Sample();
    next_sample_mono_ = mono_ns + options_.sample_interval_ns;
  }
  if (std::optional<core::ClockModel> m = Compose(tsc_model, tsc_now)) {
    m->generation = ++generation_;
    out_->Write(*m);
    status_.published = true;
    status_.mapping_error_ns =
        static_cast<double>(m->error_bound_ns - tsc_model.error_bound_ns);
  }
  UpdateStatus();
  return status;
}

void NicClockTracker::UpdateStatus() {
  const std::optional<CorrelatorFit>& fit = correlator_.fit();
  const CorrelatorStats& st = correlator_.stats();
  status_.have_fit = fit.has_value();
  status_.window_points = correlator_.window_size();
  status_.points = st.points_added;
  status_.drift_ppb_per_s = st.drift_ppb_per_s;
  status_.max_abs_drift_ppb_per_s = st.max_abs_drift_ppb_per_s;
  if (fit && fit->other_per_tick > 0) {
    status_.ticks_per_second = fit->other_per_tick * tsc_hz_;
    status_.rate_uncertainty_ppb = fit->RelativeRateUncertainty() * 1e9;
    status_.residual_rms_ns =
        fit->residual_rms_other / fit->other_per_tick * 1e9 / tsc_hz_;
    status_.bracket_half_width_ns =
        static_cast<double>(fit->max_half_width_ticks) * 1e9 / tsc_hz_;
  }
}

}  // namespace zg::servo
