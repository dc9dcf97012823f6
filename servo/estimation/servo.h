// SPDX-License-Identifier: Apache-2.0
// Servo: turns measurements of the raw clock against a reference into a model
// of the raw clock (a RateModel: anchor + rate), like linuxptp's servo.h with
// pi.c and linreg.c behind it — except that nothing is steered. linuxptp's
// servo returns a frequency adjustment for a hardware clock; ours applies it to
// the model it owns, so "adjust the clock" means "re-anchor the model with a
// new rate", continuously.
//
// Each sample is (raw ticks, offset of the model vs the reference at those
// ticks, the reference's uncertainty). The servo answers with a state:
//   kUnlocked      not enough samples yet (the model runs on its old rate)
//   kJump          the model's phase was just stepped (start-up only, unless
//                  step_threshold_ns is configured)
//   kLocked        tracking
//   kLockedStable  tracking, and the last `lock_count` samples were all within
//                  lock_threshold_ns (+ their uncertainty) of the model —
//                  what the holdover state machine calls LOCKED
//
//   ServoConfig cfg;
//   cfg.nominal_ns_per_tick = 1e9 / raw_clock.NominalHz();
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<Servo> servo, MakeServo(cfg));
//   double off = servo->model().OffsetNs(s.raw_ticks, s.reference_tai);
//   ServoState st = servo->Sample({s.raw_ticks, off, s.uncertainty_ns});
//   TaiNs t = servo->model().TaiAt(raw_now);
#ifndef ZG_SERVO_SERVO_H_
#define ZG_SERVO_SERVO_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/estimation/rate_model.h"

namespace zg::servo {

enum class ServoState : uint8_t { kUnlocked, kJump, kLocked, kLockedStable };
const char* ServoStateName(ServoState state);

enum class ServoType : uint8_t { kPi, kLinreg };

// PI gains as functions of the sync interval I (seconds), as in linuxptp:
//   kp = min(kp_scale * I^kp_exponent, kp_norm_max / I)   [1/s]
//   ki = min(ki_scale * I^ki_exponent, ki_norm_max / I)   [1/s^2 * s]
// so that a correction in ppb is kp * offset_ns. linuxptp's hardware
// time-stamping defaults (0.7, 0.3) are the defaults here; SoftwarePi() gives
// its software ones (0.1, 0.001) for noisy references.
struct PiConstants {
  double kp_scale = 0.7;
  double kp_exponent = -0.3;
  double kp_norm_max = 0.7;
  double ki_scale = 0.3;
  double ki_exponent = 0.4;
  double ki_norm_max = 0.3;
};
PiConstants SoftwarePi();

struct ServoConfig {
  ServoType type = ServoType::kLinreg;  // see doc/servo.md for PI vs linreg
  // Nominal rate of the raw clock, ns per tick (1e9 / RawClock::NominalHz()).
  // Frequencies below are relative to it.
  double nominal_ns_per_tick = 0;
  // Expected spacing of samples, seconds.
  double sync_interval_s = 1.0;
  // After Reset(), step the model on the first frequency-bearing update if
  // |offset| exceeds this (0: never). The very first sample of a new servo
  // always sets the model's phase (there is nothing to step from).
  int64_t first_step_threshold_ns = 20'000;
  // Step whenever |offset| exceeds this (0: never; explicit configuration).
  int64_t step_threshold_ns = 0;
  // Bound on the model's frequency relative to nominal, ppb.
  double max_frequency_ppb = 500'000;
  // Lock detection: kLockedStable after `lock_count` consecutive samples with
  // |offset| <= lock_threshold_ns + uncertainty; back to kLocked after
  // `unlock_count` consecutive samples outside.
  int64_t lock_threshold_ns = 100;
  int lock_count = 8;
  int unlock_count = 4;
  PiConstants pi;
};

absl::Status ValidateServoConfig(const ServoConfig& config);

struct ServoSample {
  uint64_t raw_ticks = 0;
  double offset_ns = 0;        // model(raw_ticks) - reference
  int64_t uncertainty_ns = 0;  // of the reference
};

class Servo {
 public:
  virtual ~Servo() = default;
  Servo(const Servo&) = delete;
  Servo& operator=(const Servo&) = delete;

  // Sets the model's phase exactly: at `raw` it reads `reference` (kJump).
  // The first call of a new servo; Sample() before Start() instead steps the
  // default model (raw 0 = TAI 0) by -offset, which loses precision when the
  // offset is large.
  void Start(uint64_t raw, core::TaiNs reference, int64_t uncertainty_ns);

  // Feeds one sample (time-ordered); updates the model; returns the state.
  ServoState Sample(const ServoSample& sample);

  // Forgets the frequency history (keeps the model's phase and rate): the
  // next updates re-estimate frequency and may step (first_step_threshold).
  void Reset();

  // Holdover (or coasting over a missed sample): from `raw` on, the model
  // runs at `frequency_ppb` (relative to nominal) with no phase correction.
  // Samples after it resume tracking from that frequency. Lock detection is
  // kept: a short gap does not unlock; call ResetLock() for a real outage.
  void Holdover(uint64_t raw, double frequency_ppb);
  // Lock detection starts over (state kUnlocked until the next sample).
  void ResetLock();

  void SetSyncInterval(double seconds);

  const RateModel& model() const { return model_; }
  const ServoConfig& config() const { return config_; }
  ServoState state() const { return state_; }
  bool initialized() const { return initialized_; }
  // The model's current frequency relative to nominal, ppb (includes any
  // phase-correcting slew).
  double frequency_ppb() const;
  // The servo's best estimate of the raw clock's frequency relative to
  // nominal, without phase correction, ppb.
  virtual double FrequencyEstimatePpb() const = 0;

 protected:
  explicit Servo(const ServoConfig& config);

  // One update, after the common first-sample handling. `first_update` is
  // true until the servo has produced its first frequency (JUMP or LOCKED)
  // since creation or Reset(). Returns kUnlocked, kJump or kLocked.
  virtual ServoState DoSample(const ServoSample& sample, bool first_update) = 0;
  virtual void DoReset() = 0;
  virtual void DoHoldover(double frequency_ppb) = 0;
  virtual void DoSyncInterval(double seconds) = 0;

  // For implementations: set the model's frequency (clamped to
  // max_frequency_ppb) from `raw` on; returns the frequency applied.
  double ApplyFrequency(uint64_t raw, double frequency_ppb);
  void StepModel(uint64_t raw, double delta_ns) { model_.Step(raw, delta_ns); }
  double ClampFrequency(double ppb) const;
  // Whether |offset| calls for a step now.
  bool ShouldStep(double offset_ns, bool first_update) const;

  ServoConfig config_;

 private:
  // Lock detection on the measured offsets (see ServoConfig).
  ServoState UpdateLock(ServoState raw_state, const ServoSample& sample);

  RateModel model_;
  ServoState state_ = ServoState::kUnlocked;
  bool initialized_ = false;
  bool first_update_ = true;
  int in_threshold_ = 0;
  int out_of_threshold_ = 0;
};

// Creates the servo named by config.type; checks the configuration.
absl::StatusOr<std::unique_ptr<Servo>> MakeServo(const ServoConfig& config);

}  // namespace zg::servo

#endif  // ZG_SERVO_SERVO_H_
