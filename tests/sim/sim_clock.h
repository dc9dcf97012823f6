// SPDX-License-Identifier: Apache-2.0
// Seeded models for simulation tests: a raw oscillator (implementing
// servo::RawClock) and a reference with noise, outliers, outages and jumps.
//
// Everything is driven by one simulated true time t (seconds since the start;
// true TAI = tai0 + t) and a SimRng seeded per run, so a seed reproduces a run
// bit for bit on any compiler (no <random> distributions).
//
// The oscillator's fractional frequency (ppb, positive = raw runs fast) is
//   y(t) = initial + aging * t + w(t) + c_T * dT * [t >= t_step]
// with w a random walk (variance q * t); raw ticks advance by
//   nominal_hz * (dt + integral of y dt * 1e-9).
//
//   SimOscillator osc(params, /*seed=*/7);
//   SimReference ref(ref_params, /*seed=*/8);
//   osc.AdvanceTo(10.0);
//   ReferenceSample s;
//   if (ref.Sample(osc, &s)) discipline->AddSamples(id, {&s, 1});
#ifndef ZG_TESTS_SIM_SIM_CLOCK_H_
#define ZG_TESTS_SIM_SIM_CLOCK_H_

#include <cstdint>
#include <vector>

#include "core/time/time_types.h"
#include "servo/sources/reference_source.h"

namespace zg::sim {

// splitmix64 with Box-Muller normals.
class SimRng {
 public:
  explicit SimRng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  double Uniform();  // (0, 1)
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  double Gaussian();  // N(0, 1)

 private:
  uint64_t state_;
  bool have_spare_ = false;
  double spare_ = 0;
};

struct OscillatorParams {
  double nominal_hz = 3e9;
  double initial_ppb = 0;
  double aging_ppb_per_day = 0;
  double random_walk_ppb2_per_s = 0;
  double temperature_ppb_per_k = 0;
  double temperature_step_at_s = -1;  // < 0: no step
  double temperature_step_k = 0;
  uint64_t raw_start = 1'234'567'890'123'456;
  core::TaiNs tai_start{1'700'000'037'000'000'000};
};

class SimOscillator : public servo::RawClock {
 public:
  SimOscillator(const OscillatorParams& params, uint64_t seed);

  // Moves true time forward to t_s (integration steps of at most 1 s).
  void AdvanceTo(double t_s);

  double now_s() const { return t_s_; }
  core::TaiNs TrueTai() const;
  double FrequencyPpb() const;  // y(now)
  const OscillatorParams& params() const { return params_; }

  uint64_t NowTicks() override;
  double NominalHz() const override { return params_.nominal_hz; }

 private:
  double TemperaturePpb(double t_s) const;

  OscillatorParams params_;
  SimRng rng_;
  double t_s_ = 0;
  double walk_ppb_ = 0;
  double phase_ns_ = 0;  // integral of y
};

struct ReferenceParams {
  double noise_ns = 20;            // Gaussian sigma
  int64_t uncertainty_ns = 60;     // what each sample claims
  double outlier_probability = 0;  // spikes that lie about their uncertainty
  double outlier_ns = 0;
  int burst = 1;  // samples per poll (noise drawn for each)
};

class SimReference {
 public:
  SimReference(const ReferenceParams& params, uint64_t seed);

  // No samples in [from_s, to_s).
  void AddOutage(double from_s, double to_s);
  // From at_s on, the reference reads jump_ns off the truth (a spoofer).
  void SetJump(double at_s, double jump_ns);

  // One poll at the oscillator's current time; false during an outage.
  bool Poll(SimOscillator& osc, std::vector<servo::ReferenceSample>* out);
  // Spikes injected so far.
  int outliers_injected() const { return outliers_injected_; }

 private:
  ReferenceParams params_;
  SimRng rng_;
  std::vector<std::pair<double, double>> outages_;
  double jump_at_s_ = -1;
  double jump_ns_ = 0;
  int outliers_injected_ = 0;
};

}  // namespace zg::sim

#endif  // ZG_TESTS_SIM_SIM_CLOCK_H_
