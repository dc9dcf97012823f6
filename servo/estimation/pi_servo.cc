// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/pi_servo.h"

#include <algorithm>
#include <cmath>

namespace zg::servo {

PiServo::PiServo(const ServoConfig& config) : Servo(config) {
  DoSyncInterval(config.sync_interval_s);
}

void PiServo::DoSyncInterval(double seconds) {
  const PiConstants& pi = config_.pi;
  kp_ = std::min(pi.kp_scale * std::pow(seconds, pi.kp_exponent),
                 pi.kp_norm_max / seconds);
  ki_ = std::min(pi.ki_scale * std::pow(seconds, pi.ki_exponent),
                 pi.ki_norm_max / seconds);
}

void PiServo::DoHoldover(double frequency_ppb) {
  drift_ppb_ = frequency_ppb;
  count_ = 2;
}

ServoState PiServo::DoSample(const ServoSample& sample, bool first_update) {
  switch (count_) {
    case 0:
      raw0_ = sample.raw_ticks;
      offset0_ns_ = sample.offset_ns;
      count_ = 1;
      return ServoState::kUnlocked;
    case 1:
      return EstimateFrequency(sample, first_update);
    default:
      break;
  }
  if (config_.step_threshold_ns > 0 &&
      std::fabs(sample.offset_ns) >
          static_cast<double>(config_.step_threshold_ns)) {
    // Start over: re-measure the frequency, then step (as linuxptp does).
    count_ = 0;
    return ServoState::kUnlocked;
  }
  const double ki_term = ki_ * sample.offset_ns;
  const double ppb = drift_ppb_ - kp_ * sample.offset_ns - ki_term;
  if (ppb == ClampFrequency(ppb))
    drift_ppb_ = ClampFrequency(drift_ppb_ - ki_term);
  ApplyFrequency(sample.raw_ticks, ppb);
  return ServoState::kLocked;
}

ServoState PiServo::EstimateFrequency(const ServoSample& sample,
                                      bool first_update) {
  const int64_t ticks = static_cast<int64_t>(sample.raw_ticks - raw0_);
  if (ticks <= 0) {  // out of order: keep the newer sample as the first
    raw0_ = sample.raw_ticks;
    offset0_ns_ = sample.offset_ns;
    return ServoState::kUnlocked;
  }
  // The model ran at one rate since raw0_; its elapsed time vs the truth's.
  const double model_ns = static_cast<double>(ticks) * model().ns_per_tick();
  const double min_interval_s = std::min(0.016 / ki_, 1000.0);
  if (model_ns * 1e-9 < min_interval_s) return ServoState::kUnlocked;
  const double true_ns = model_ns - (sample.offset_ns - offset0_ns_);
  const double rate = model().ns_per_tick() * true_ns / model_ns;
  drift_ppb_ = ClampFrequency((rate / config_.nominal_ns_per_tick - 1.0) * 1e9);
  ServoState state = ServoState::kLocked;
  if (ShouldStep(sample.offset_ns, first_update)) {
    StepModel(sample.raw_ticks, -sample.offset_ns);
    state = ServoState::kJump;
  }
  ApplyFrequency(sample.raw_ticks, drift_ppb_);
  count_ = 2;
  return state;
}

}  // namespace zg::servo
