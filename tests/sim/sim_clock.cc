// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/sim_clock.h"

#include <algorithm>
#include <cmath>

namespace zg::sim {

uint64_t SimRng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SimRng::Uniform() {
  return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53;
}

double SimRng::Gaussian() {
  if (have_spare_) {
    have_spare_ = false;
    return spare_;
  }
  const double u1 = Uniform();
  const double u2 = Uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2 * M_PI * u2);
  have_spare_ = true;
  return r * std::cos(2 * M_PI * u2);
}

SimOscillator::SimOscillator(const OscillatorParams& params, uint64_t seed)
    : params_(params), rng_(seed) {}

double SimOscillator::TemperaturePpb(double t_s) const {
  if (params_.temperature_step_at_s < 0 ||
      t_s < params_.temperature_step_at_s) {
    return 0;
  }
  return params_.temperature_ppb_per_k * params_.temperature_step_k;
}

double SimOscillator::FrequencyPpb() const {
  return params_.initial_ppb + params_.aging_ppb_per_day / 86400.0 * t_s_ +
         walk_ppb_ + TemperaturePpb(t_s_);
}

void SimOscillator::AdvanceTo(double t_s) {
  while (t_s_ < t_s) {
    double dt = std::min(1.0, t_s - t_s_);
    // Land exactly on a temperature step so the phase integral is exact.
    const double step = params_.temperature_step_at_s;
    if (step > t_s_ && step < t_s_ + dt) dt = step - t_s_;
    const double y0 = FrequencyPpb();
    walk_ppb_ +=
        std::sqrt(params_.random_walk_ppb2_per_s * dt) * rng_.Gaussian();
    t_s_ += dt;
    const double y1 =
        FrequencyPpb() - (TemperaturePpb(t_s_) - TemperaturePpb(t_s_ - dt));
    phase_ns_ += dt * (y0 + y1) / 2;
  }
}

core::TaiNs SimOscillator::TrueTai() const {
  return params_.tai_start + static_cast<int64_t>(std::llround(t_s_ * 1e9));
}

uint64_t SimOscillator::NowTicks() {
  const double ticks = params_.nominal_hz * (t_s_ + phase_ns_ * 1e-9);
  return params_.raw_start + static_cast<uint64_t>(std::llround(ticks));
}

SimReference::SimReference(const ReferenceParams& params, uint64_t seed)
    : params_(params), rng_(seed) {}

void SimReference::AddOutage(double from_s, double to_s) {
  outages_.emplace_back(from_s, to_s);
}

void SimReference::SetJump(double at_s, double jump_ns) {
  jump_at_s_ = at_s;
  jump_ns_ = jump_ns;
}

bool SimReference::Poll(SimOscillator& osc,
                        std::vector<servo::ReferenceSample>* out) {
  const double t = osc.now_s();
  for (const auto& [from, to] : outages_) {
    if (t >= from && t < to) return false;
  }
  const uint64_t raw = osc.NowTicks();
  const core::TaiNs truth = osc.TrueTai();
  for (int i = 0; i < std::max(1, params_.burst); ++i) {
    double err = params_.noise_ns * rng_.Gaussian();
    if (params_.outlier_probability > 0 &&
        rng_.Uniform() < params_.outlier_probability) {
      err += rng_.Uniform() < 0.5 ? -params_.outlier_ns : params_.outlier_ns;
      ++outliers_injected_;
    }
    if (jump_at_s_ >= 0 && t >= jump_at_s_) err += jump_ns_;
    servo::ReferenceSample s;
    s.raw_ticks = raw;
    s.reference_tai = truth + static_cast<int64_t>(std::llround(err));
    s.uncertainty_ns = params_.uncertainty_ns;
    s.taken_at = s.reference_tai;
    out->push_back(s);
  }
  return true;
}

}  // namespace zg::sim
