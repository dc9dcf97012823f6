// SPDX-License-Identifier: Apache-2.0
// Oscillator profiles and the holdover error they predict.
//
// When the reference is lost, the model keeps running on its last frequency
// estimate; the true error then grows from the error at the last sample by
//
//   bound(t) = bound0 + f_unc * t + 0.5 * a * t^2 + k * sqrt(q * t^3 / 3)
//              + c_T * dT * t
//
//   f_unc  the learned frequency's uncertainty (ppb), never below the
//          profile's floor (what the oscillator's short-term stability lets a
//          frequency measurement achieve);
//   a      aging, ppb per day (converted to ppb/s);
//   q      random-walk FM diffusion, ppb^2 per second: frequency wanders with
//          variance q*t, so phase wanders with variance q*t^3/3; k sigmas;
//   c_T*dT temperature coefficient (ppb/K) times the excursion the operator
//          expects while in holdover (K), taken as a worst-case step at t=0.
// ppb * s = ns, so every term is in ns.
//
// Built-in profiles (literature-typical datasheet values; 24 h bound with
// bound0 = 0, dT = 1 K, k = 3, f_unc at the floor — see doc/servo.md):
//   tcxo:     floor 1 ppb, aging 1 ppb/day, 2 ppb/K, q 1.16e-5   -> ~452 us
//   ocxo:     floor 0.05 ppb, aging 0.1 ppb/day, 0.02 ppb/K,
//             q 8.3e-9                                         -> ~14.4 us
//   rubidium: floor 0.002 ppb, aging 0.002 ppb/day, 0.001 ppb/K,
//             q 1.3e-10                                        -> ~0.85 us
// matching the design brief's anchors (TCXO ~450 us, OCXO 10-25 us, Rb ~1 us).
//
//   OscillatorProfile p = OcxoProfile();
//   HoldoverEnvironment env;                  // 1 K, 3 sigma
//   double ns = HoldoverBoundNs(p, env, /*bound0_ns=*/50, /*f_unc_ppb=*/0.1,
//                               /*tau_s=*/3600);
#ifndef ZG_SERVO_OSCILLATOR_H_
#define ZG_SERVO_OSCILLATOR_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::servo {

enum class OscillatorKind : uint8_t { kTcxo, kOcxo, kRubidium, kCustom };

// G.8275.1 frequency-source category of the oscillator in holdover (selects
// clockClass 140 / 150 / 160 out of holdover spec).
enum class FrequencyCategory : uint8_t {
  kCategory1 = 1,
  kCategory2,
  kCategory3
};

struct OscillatorProfile {
  OscillatorKind kind = OscillatorKind::kCustom;
  std::string name = "custom";
  double frequency_floor_ppb = 1.0;    // k-sigma, learnable at best
  double aging_ppb_per_day = 1.0;      // |d frequency / dt|
  double temperature_ppb_per_k = 1.0;  // |d frequency / d temperature|
  double random_walk_ppb2_per_s = 0;   // q
  FrequencyCategory category = FrequencyCategory::kCategory3;
};

OscillatorProfile TcxoProfile();
OscillatorProfile OcxoProfile();
OscillatorProfile RubidiumProfile();
// "tcxo", "ocxo" or "rubidium" (the built-ins; "custom" is built field by
// field and checked with ValidateOscillatorProfile).
absl::StatusOr<OscillatorProfile> OscillatorProfileByName(
    absl::string_view name);
absl::Status ValidateOscillatorProfile(const OscillatorProfile& profile);

struct HoldoverEnvironment {
  double temperature_excursion_k = 1.0;  // expected while in holdover
  double sigmas = 3.0;                   // k for the random terms
};

// The growth terms that do not depend on what was learned: aging, random
// walk and temperature, tau_s seconds after the last reference sample (ns).
double WanderNs(const OscillatorProfile& profile,
                const HoldoverEnvironment& env, double tau_s);

// The frequency uncertainty (ppb, k sigma) of a learned estimate:
// max(floor, t_k(dof) * stderr + aging over half the window + k sigma of the
// random walk over half the window), where t_k widens k for few points.
double LearnedFrequencyUncertaintyPpb(const OscillatorProfile& profile,
                                      const HoldoverEnvironment& env,
                                      double stderr_ppb, int dof,
                                      double span_s);

// bound0 + max(f_unc, floor) * tau + WanderNs(tau).
double HoldoverBoundNs(const OscillatorProfile& profile,
                       const HoldoverEnvironment& env, double bound0_ns,
                       double freq_uncertainty_ppb, double tau_s);

}  // namespace zg::servo

#endif  // ZG_SERVO_OSCILLATOR_H_
