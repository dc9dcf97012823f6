// SPDX-License-Identifier: Apache-2.0
// PiServo: a proportional-integral servo on the raw-clock model, after
// linuxptp's pi.c. Behind servo/estimation/servo.h; created by MakeServo(kPi).
//
// The first two samples (at least 0.016 / ki seconds apart) measure the raw
// clock's frequency directly; from then on each offset o (ns) sets the model's
// frequency to drift - kp*o - ki*o and integrates drift -= ki*o (not while the
// output is clamped at max_frequency_ppb: no wind-up). Positive offsets mean
// the model is ahead, so it is slowed down.
//
//   PiServo servo(config);   // or MakeServo(config) with type = kPi
#ifndef ZG_SERVO_PI_SERVO_H_
#define ZG_SERVO_PI_SERVO_H_

#include <cstdint>

#include "servo/estimation/servo.h"

namespace zg::servo {

class PiServo final : public Servo {
 public:
  explicit PiServo(const ServoConfig& config);

  // The integral term: the raw clock's frequency (relative to nominal) that
  // the model needs, without the proportional phase correction.
  double FrequencyEstimatePpb() const override { return drift_ppb_; }
  double kp() const { return kp_; }  // ppb per ns of offset
  double ki() const { return ki_; }  // ppb per ns, integrated per sample

 private:
  ServoState DoSample(const ServoSample& sample, bool first_update) override;
  void DoReset() override { count_ = 0; }
  void DoHoldover(double frequency_ppb) override;
  void DoSyncInterval(double seconds) override;
  ServoState EstimateFrequency(const ServoSample& sample, bool first_update);

  int count_ = 0;  // 0: no sample, 1: one sample kept, 2: tracking
  uint64_t raw0_ = 0;
  double offset0_ns_ = 0;
  double drift_ppb_ = 0;
  double kp_ = 0;
  double ki_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_PI_SERVO_H_
