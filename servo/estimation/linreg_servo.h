// SPDX-License-Identifier: Apache-2.0
// LinregServo: an adaptive servo on the raw-clock model by weighted linear
// regression, after linuxptp's linreg.c. Behind servo/estimation/servo.h;
// created by MakeServo(kLinreg).
//
// It keeps the last 64 (raw ticks, reference TAI) points — physical truths,
// independent of what the model did — and fits lines through the newest 4, 8,
// 16, 32 and 64 of them (weights 1 / uncertainty^2). Each size's line predicts
// the next point; an exponential average of that prediction error picks the
// size (the largest among those within 5 % of the best), so the window grows
// while the oscillator is stable and shrinks when it wanders. The model then
// takes the fitted rate plus a slew that removes its phase error against the
// line over 1 (sizes up to 16) or log2(size)/2 sync intervals.
//
//   LinregServo servo(config);   // or MakeServo(config) with type = kLinreg
#ifndef ZG_SERVO_LINREG_SERVO_H_
#define ZG_SERVO_LINREG_SERVO_H_

#include <cstdint>

#include "servo/estimation/servo.h"

namespace zg::servo {

class LinregServo final : public Servo {
 public:
  static constexpr int kMinSizeLog2 = 2;
  static constexpr int kMaxSizeLog2 = 6;
  static constexpr int kMaxPoints = 1 << kMaxSizeLog2;
  // A gap of more than this many sync intervals restarts the window.
  static constexpr double kMaxGapIntervals = 8;

  explicit LinregServo(const ServoConfig& config);

  // The fitted rate of the chosen window, relative to nominal.
  double FrequencyEstimatePpb() const override { return slope_ppb_; }
  // log2 of the window in use (0 before there are 4 points).
  int size_log2() const { return best_size_log2_; }

 private:
  struct Point {
    uint64_t raw = 0;
    double y = 0;  // reference TAI - base_tai_ns_, ns
    double w = 1;
  };
  struct SizeResult {
    bool valid = false;
    uint64_t raw0 = 0;  // where the line was evaluated
    double y0 = 0;      // line value there (ns above base_tai_ns_)
    double rate = 0;    // ns per tick
    double err = 0;     // average |prediction error|, ns
    int err_updates = 0;
  };

  ServoState DoSample(const ServoSample& sample, bool first_update) override;
  void DoReset() override;
  void DoHoldover(double frequency_ppb) override;
  void DoSyncInterval(double) override {}

  void AddPoint(const ServoSample& sample);
  void Regress();
  int BestSize() const;

  Point points_[kMaxPoints];
  int num_points_ = 0;
  int newest_ = -1;
  int64_t base_tai_ns_ = 0;
  SizeResult results_[kMaxSizeLog2 - kMinSizeLog2 + 1];
  int best_size_log2_ = 0;
  double slope_ppb_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_LINREG_SERVO_H_
