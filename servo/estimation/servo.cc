// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/servo.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "servo/estimation/linreg_servo.h"
#include "servo/estimation/pi_servo.h"

namespace zg::servo {

const char* ServoStateName(ServoState state) {
  switch (state) {
    case ServoState::kUnlocked:
      return "unlocked";
    case ServoState::kJump:
      return "jump";
    case ServoState::kLocked:
      return "locked";
    case ServoState::kLockedStable:
      return "locked_stable";
  }
  return "?";
}

PiConstants SoftwarePi() {
  PiConstants pi;
  pi.kp_scale = 0.1;
  pi.ki_scale = 0.001;
  return pi;
}

absl::Status ValidateServoConfig(const ServoConfig& c) {
  if (!(c.nominal_ns_per_tick > 0) || !std::isfinite(c.nominal_ns_per_tick)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "servo: nominal_ns_per_tick must be positive (got %g); set it to "
        "1e9 / the raw clock's nominal frequency in Hz",
        c.nominal_ns_per_tick));
  }
  if (!(c.sync_interval_s > 0) || c.sync_interval_s > 3600) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "servo: sync_interval_s must be in (0, 3600] s (got %g)",
        c.sync_interval_s));
  }
  if (c.first_step_threshold_ns < 0 || c.step_threshold_ns < 0) {
    return absl::InvalidArgumentError(
        "servo: step thresholds must be >= 0 ns (0 disables stepping)");
  }
  if (!(c.max_frequency_ppb > 0) || c.max_frequency_ppb > 1e8) {
    return absl::InvalidArgumentError(
        absl::StrFormat("servo: max_frequency_ppb must be in (0, 1e8] (got %g)",
                        c.max_frequency_ppb));
  }
  if (c.lock_threshold_ns < 0 || c.lock_count < 1 || c.unlock_count < 1) {
    return absl::InvalidArgumentError(
        "servo: lock_threshold_ns must be >= 0 and lock_count, unlock_count "
        ">= 1");
  }
  const PiConstants& pi = c.pi;
  if (!(pi.kp_scale > 0) || !(pi.ki_scale > 0) || !(pi.kp_norm_max > 0) ||
      !(pi.ki_norm_max > 0)) {
    return absl::InvalidArgumentError(
        "servo: PI scales and norm_max values must be positive");
  }
  return absl::OkStatus();
}

Servo::Servo(const ServoConfig& config)
    : config_(config), model_(0, core::TaiNs{0}, config.nominal_ns_per_tick) {}

double Servo::frequency_ppb() const {
  return (model_.ns_per_tick() / config_.nominal_ns_per_tick - 1.0) * 1e9;
}

double Servo::ClampFrequency(double ppb) const {
  const double m = config_.max_frequency_ppb;
  if (std::isnan(ppb)) return 0.0;  // a degenerate fit: back to nominal
  return ppb > m ? m : (ppb < -m ? -m : ppb);
}

double Servo::ApplyFrequency(uint64_t raw, double frequency_ppb) {
  const double ppb = ClampFrequency(frequency_ppb);
  model_.SetRate(raw, config_.nominal_ns_per_tick * (1.0 + ppb * 1e-9));
  return ppb;
}

bool Servo::ShouldStep(double offset_ns, bool first_update) const {
  const double a = std::fabs(offset_ns);
  if (first_update && config_.first_step_threshold_ns > 0 &&
      a > static_cast<double>(config_.first_step_threshold_ns)) {
    return true;
  }
  return config_.step_threshold_ns > 0 &&
         a > static_cast<double>(config_.step_threshold_ns);
}

void Servo::Start(uint64_t raw, core::TaiNs reference, int64_t uncertainty_ns) {
  model_ = RateModel(raw, reference, model_.ns_per_tick());
  initialized_ = true;
  DoSample({raw, 0.0, uncertainty_ns}, /*first_update=*/true);
  in_threshold_ = out_of_threshold_ = 0;
  state_ = ServoState::kJump;
}

ServoState Servo::Sample(const ServoSample& sample) {
  if (!initialized_) {
    // Nothing to step from: the first sample defines the model's phase.
    model_.Step(sample.raw_ticks, -sample.offset_ns);
    initialized_ = true;
    ServoSample zeroed = sample;
    zeroed.offset_ns = 0;
    DoSample(zeroed, /*first_update=*/true);
    in_threshold_ = out_of_threshold_ = 0;
    state_ = ServoState::kJump;
    return state_;
  }
  const ServoState raw_state = DoSample(sample, first_update_);
  state_ = UpdateLock(raw_state, sample);
  if (raw_state != ServoState::kUnlocked) first_update_ = false;
  return state_;
}

ServoState Servo::UpdateLock(ServoState raw_state, const ServoSample& sample) {
  if (raw_state != ServoState::kLocked) {
    in_threshold_ = out_of_threshold_ = 0;
    return raw_state;
  }
  const bool inside =
      std::fabs(sample.offset_ns) <=
      static_cast<double>(config_.lock_threshold_ns + sample.uncertainty_ns);
  if (state_ == ServoState::kLockedStable) {
    out_of_threshold_ = inside ? 0 : out_of_threshold_ + 1;
    if (out_of_threshold_ < config_.unlock_count) {
      return ServoState::kLockedStable;
    }
    in_threshold_ = out_of_threshold_ = 0;
    return ServoState::kLocked;
  }
  in_threshold_ = inside ? in_threshold_ + 1 : 0;
  if (in_threshold_ >= config_.lock_count) {
    out_of_threshold_ = 0;
    return ServoState::kLockedStable;
  }
  return ServoState::kLocked;
}

void Servo::Reset() {
  DoReset();
  first_update_ = true;
  state_ = ServoState::kUnlocked;
  in_threshold_ = out_of_threshold_ = 0;
}

void Servo::Holdover(uint64_t raw, double frequency_ppb) {
  DoHoldover(ApplyFrequency(raw, frequency_ppb));
}

void Servo::ResetLock() {
  state_ = ServoState::kUnlocked;
  in_threshold_ = out_of_threshold_ = 0;
}

void Servo::SetSyncInterval(double seconds) {
  if (!(seconds > 0)) return;
  config_.sync_interval_s = seconds;
  DoSyncInterval(seconds);
}

absl::StatusOr<std::unique_ptr<Servo>> MakeServo(const ServoConfig& config) {
  if (absl::Status s = ValidateServoConfig(config); !s.ok()) return s;
  switch (config.type) {
    case ServoType::kPi:
      return std::unique_ptr<Servo>(new PiServo(config));
    case ServoType::kLinreg:
      return std::unique_ptr<Servo>(new LinregServo(config));
  }
  return absl::InvalidArgumentError("servo: unknown servo type");
}

}  // namespace zg::servo
