// SPDX-License-Identifier: Apache-2.0
#include "servo/holdover/oscillator.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "servo/estimation/linear_fit.h"

namespace zg::servo {

constexpr double kSecondsPerDay = 86400.0;

// Sources for the numbers (typical datasheet values, rounded):
//  - TCXO: residual temperature curve ~+-0.5 ppm over -40..85 C (a few ppb/K
//    locally), aging ~1 ppm/year in the first year (~3 ppb/day, 1 ppb/day
//    after burn-in); short-term stability ~1e-10..1e-9 at 1..100 s.
//  - OCXO (single oven, SC-cut): +-1..5 ppb over -20..70 C (~0.02..0.05
//    ppb/K), aging 0.05..0.5 ppb/day, ADEV ~1e-11 at 1..100 s.
//  - Rubidium: +-1e-10 over the operating range (~1e-12/K), aging
//    ~5e-11/month (~0.002 ppb/day), ADEV ~1e-12 at 100 s.
// The random-walk coefficients are chosen so that the 3-sigma random-walk
// term is about a third of the 24 h budget, as in published holdover
// budgets for each class.
OscillatorProfile TcxoProfile() {
  OscillatorProfile p;
  p.kind = OscillatorKind::kTcxo;
  p.name = "tcxo";
  p.frequency_floor_ppb = 1.0;
  p.aging_ppb_per_day = 1.0;
  p.temperature_ppb_per_k = 2.0;
  p.random_walk_ppb2_per_s = 1.16e-5;
  p.category = FrequencyCategory::kCategory3;
  return p;
}

OscillatorProfile OcxoProfile() {
  OscillatorProfile p;
  p.kind = OscillatorKind::kOcxo;
  p.name = "ocxo";
  p.frequency_floor_ppb = 0.05;
  p.aging_ppb_per_day = 0.1;
  p.temperature_ppb_per_k = 0.02;
  p.random_walk_ppb2_per_s = 8.3e-9;
  p.category = FrequencyCategory::kCategory2;
  return p;
}

OscillatorProfile RubidiumProfile() {
  OscillatorProfile p;
  p.kind = OscillatorKind::kRubidium;
  p.name = "rubidium";
  p.frequency_floor_ppb = 0.002;
  p.aging_ppb_per_day = 0.002;
  p.temperature_ppb_per_k = 0.001;
  p.random_walk_ppb2_per_s = 1.3e-10;
  p.category = FrequencyCategory::kCategory1;
  return p;
}

absl::StatusOr<OscillatorProfile> OscillatorProfileByName(
    absl::string_view name) {
  if (name == "tcxo") return TcxoProfile();
  if (name == "ocxo") return OcxoProfile();
  if (name == "rubidium") return RubidiumProfile();
  return absl::InvalidArgumentError(absl::StrFormat(
      "unknown oscillator profile '%s': use tcxo, ocxo, rubidium, or a "
      "custom profile with every field set",
      name));
}

absl::Status ValidateOscillatorProfile(const OscillatorProfile& p) {
  const double fields[] = {p.frequency_floor_ppb, p.aging_ppb_per_day,
                           p.temperature_ppb_per_k, p.random_walk_ppb2_per_s};
  for (double f : fields) {
    if (!(f >= 0) || !std::isfinite(f)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "oscillator profile '%s': every coefficient must be finite and "
          ">= 0",
          p.name));
    }
  }
  if (!(p.frequency_floor_ppb > 0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "oscillator profile '%s': frequency_floor_ppb must be > 0 (no "
        "oscillator's frequency is known exactly)",
        p.name));
  }
  return absl::OkStatus();
}

double WanderNs(const OscillatorProfile& p, const HoldoverEnvironment& env,
                double tau_s) {
  if (!(tau_s > 0)) return 0.0;
  const double aging_ppb_per_s = p.aging_ppb_per_day / kSecondsPerDay;
  const double aging = 0.5 * aging_ppb_per_s * tau_s * tau_s;
  const double rw = env.sigmas * std::sqrt(p.random_walk_ppb2_per_s * tau_s *
                                           tau_s * tau_s / 3);
  const double temp =
      p.temperature_ppb_per_k * env.temperature_excursion_k * tau_s;
  return aging + rw + temp;
}

double LearnedFrequencyUncertaintyPpb(const OscillatorProfile& p,
                                      const HoldoverEnvironment& env,
                                      double stderr_ppb, int dof,
                                      double span_s) {
  const double half = std::max(0.0, span_s) / 2;
  const double statistical = StudentT(env.sigmas, dof) * stderr_ppb;
  const double aging_bias = p.aging_ppb_per_day / kSecondsPerDay * half;
  const double walk_bias =
      env.sigmas * std::sqrt(p.random_walk_ppb2_per_s * half);
  return std::max(p.frequency_floor_ppb, statistical + aging_bias + walk_bias);
}

double HoldoverBoundNs(const OscillatorProfile& p,
                       const HoldoverEnvironment& env, double bound0_ns,
                       double freq_uncertainty_ppb, double tau_s) {
  const double t = std::max(0.0, tau_s);
  return bound0_ns + std::max(freq_uncertainty_ppb, p.frequency_floor_ppb) * t +
         WanderNs(p, env, t);
}

}  // namespace zg::servo
