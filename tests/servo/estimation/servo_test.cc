// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/servo.h"

#include <cmath>
#include <memory>

#include "gtest/gtest.h"
#include "servo/estimation/linreg_servo.h"
#include "servo/estimation/pi_servo.h"

namespace zg::servo {
namespace servo_test {
namespace {

constexpr double kHz = 1e9;  // 1 ns per tick nominal
const core::TaiNs kT0{1'700'000'037'000'000'000};

// A raw clock running `ppb` fast: raw ticks at true second t.
struct Truth {
  double ppb;
  uint64_t Raw(double t) const {
    return 5'000'000'000ULL +
           static_cast<uint64_t>(std::llround(kHz * t * (1 + ppb * 1e-9)));
  }
  core::TaiNs Tai(double t) const {
    return kT0 + static_cast<int64_t>(std::llround(t * 1e9));
  }
};

ServoConfig Config(ServoType type) {
  ServoConfig c;
  c.type = type;
  c.nominal_ns_per_tick = 1e9 / kHz;
  return c;
}

std::unique_ptr<Servo> Make(const ServoConfig& c) {
  auto s = MakeServo(c);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

// Feeds noiseless samples once a second from t = 1 to n; returns the last
// state.
ServoState Feed(Servo* servo, const Truth& truth, int from, int to,
                double noise_amplitude_ns = 0) {
  ServoState st = ServoState::kUnlocked;
  for (int t = from; t <= to; ++t) {
    const uint64_t raw = truth.Raw(t);
    const double noise = noise_amplitude_ns * ((t * 7919) % 13 - 6) / 6.0;
    const core::TaiNs ref = truth.Tai(t) + static_cast<int64_t>(noise);
    if (!servo->initialized()) {
      servo->Start(raw, ref, 10);
      st = servo->state();
      continue;
    }
    st = servo->Sample({raw, servo->model().OffsetNs(raw, ref), 10});
  }
  return st;
}

class ServoTypeTest : public ::testing::TestWithParam<ServoType> {};

TEST_P(ServoTypeTest, LearnsFrequencyAndPhaseOfAFastClock) {
  auto servo = Make(Config(GetParam()));
  const Truth truth{12'345.0};  // 12.3 ppm fast
  EXPECT_EQ(Feed(servo.get(), truth, 1, 1), ServoState::kJump);
  EXPECT_EQ(Feed(servo.get(), truth, 2, 120), ServoState::kLockedStable);
  // The model needs the rate nominal / (1 + y): about -12345 ppb.
  const double want_ppb = (1 / (1 + 12'345e-9) - 1) * 1e9;
  EXPECT_NEAR(servo->FrequencyEstimatePpb(), want_ppb, 0.05);
  EXPECT_NEAR(servo->frequency_ppb(), want_ppb, 0.05);
  EXPECT_NEAR(servo->model().OffsetNs(truth.Raw(120), truth.Tai(120)), 0, 1.0);
  // And predicts ahead: 10 s later without samples, still within 2 ns.
  EXPECT_NEAR(servo->model().OffsetNs(truth.Raw(130), truth.Tai(130)), 0, 2.0);
}

TEST_P(ServoTypeTest, FirstStepThresholdStepsOnlyOnce) {
  ServoConfig c = Config(GetParam());
  c.first_step_threshold_ns = 20'000;
  auto servo = Make(c);
  const Truth truth{0};
  Feed(servo.get(), truth, 1, 30);
  // A 100 us phase error right after Reset(): stepped on the first update.
  servo->Reset();
  bool jumped = false;
  for (int t = 31; t <= 40 && !jumped; ++t) {
    const core::TaiNs ref = truth.Tai(t) + 100'000;
    jumped =
        servo->Sample({truth.Raw(t), servo->model().OffsetNs(truth.Raw(t), ref),
                       10}) == ServoState::kJump;
  }
  EXPECT_TRUE(jumped);
  // Later phase errors beyond it are slewed, never stepped (step_threshold 0).
  for (int t = 41; t <= 60; ++t) {
    const core::TaiNs ref = truth.Tai(t) + 100'000 + (t >= 50 ? 50'000 : 0);
    EXPECT_NE(servo->Sample({truth.Raw(t),
                             servo->model().OffsetNs(truth.Raw(t), ref), 10}),
              ServoState::kJump)
        << t;
  }
}

TEST_P(ServoTypeTest, FrequencyIsClampedToMax) {
  ServoConfig c = Config(GetParam());
  c.max_frequency_ppb = 1'000;
  auto servo = Make(c);
  Feed(servo.get(), Truth{-50'000}, 1, 40);  // would need +50 ppm
  EXPECT_LE(servo->frequency_ppb(), 1'000 + 1e-6);
  EXPECT_LE(servo->FrequencyEstimatePpb(), 1'000 + 1e-6);
  EXPECT_NE(servo->state(), ServoState::kLockedStable);
}

TEST_P(ServoTypeTest, LockDetectionNeedsConsecutiveGoodSamples) {
  ServoConfig c = Config(GetParam());
  c.lock_threshold_ns = 100;
  c.lock_count = 5;
  c.unlock_count = 3;
  auto servo = Make(c);
  const Truth truth{0};
  Feed(servo.get(), truth, 1, 60);
  ASSERT_EQ(servo->state(), ServoState::kLockedStable);
  // Two bad samples (ever further off): still stable; the third unlocks.
  auto bad = [&](int t) {
    const core::TaiNs ref = truth.Tai(t) + 100'000 * (t - 60);
    return servo->Sample(
        {truth.Raw(t), servo->model().OffsetNs(truth.Raw(t), ref), 10});
  };
  EXPECT_EQ(bad(61), ServoState::kLockedStable);
  EXPECT_EQ(bad(62), ServoState::kLockedStable);
  EXPECT_EQ(bad(63), ServoState::kLocked);
}

TEST_P(ServoTypeTest, HoldoverRunsOnTheGivenFrequencyContinuously) {
  auto servo = Make(Config(GetParam()));
  const Truth truth{1'000};
  Feed(servo.get(), truth, 1, 60);
  const uint64_t raw = truth.Raw(60.5);
  const core::TaiNs before = servo->model().TaiAt(raw);
  servo->Holdover(raw, -999.001);
  EXPECT_EQ(servo->model().TaiAt(raw), before);
  EXPECT_NEAR(servo->frequency_ppb(), -999.001, 1e-6);
  EXPECT_NEAR(servo->FrequencyEstimatePpb(), -999.001, 1e-6);
  // Resumes tracking from there.
  Feed(servo.get(), truth, 70, 130);
  EXPECT_NEAR(servo->model().OffsetNs(truth.Raw(130), truth.Tai(130)), 0, 2.0);
}

TEST_P(ServoTypeTest, FiltersWhitePhaseNoise) {
  ServoConfig c = Config(GetParam());
  c.pi = SoftwarePi();  // linuxptp's constants for noisy time stamps
  auto servo = Make(c);
  const Truth truth{-3'000};
  Feed(servo.get(), truth, 1, 300, /*noise_amplitude_ns=*/50);
  const double want_ppb = (1 / (1 - 3'000e-9) - 1) * 1e9;
  EXPECT_NEAR(servo->FrequencyEstimatePpb(), want_ppb, 2.0);
  EXPECT_LT(std::fabs(servo->model().OffsetNs(truth.Raw(300), truth.Tai(300))),
            50.0);
}

INSTANTIATE_TEST_SUITE_P(Both, ServoTypeTest,
                         ::testing::Values(ServoType::kPi, ServoType::kLinreg),
                         [](const auto& info) {
                           return info.param == ServoType::kPi ? "Pi"
                                                               : "Linreg";
                         });

TEST(PiServoTest, GainsScaleWithSyncIntervalLikeLinuxptp) {
  ServoConfig c = Config(ServoType::kPi);
  PiServo pi(c);
  EXPECT_NEAR(pi.kp(), 0.7, 1e-12);
  EXPECT_NEAR(pi.ki(), 0.3, 1e-12);
  pi.SetSyncInterval(0.125);  // 8 Hz: kp = 0.7 * 0.125^-0.3, capped 0.7/0.125
  EXPECT_NEAR(pi.kp(), 0.7 * std::pow(0.125, -0.3), 1e-9);
  EXPECT_NEAR(pi.ki(), 0.3 * std::pow(0.125, 0.4), 1e-9);
  pi.SetSyncInterval(16);  // capped by norm_max / interval
  EXPECT_NEAR(pi.kp(), 0.7 / 16, 1e-12);
  EXPECT_NEAR(pi.ki(), 0.3 / 16, 1e-12);
}

TEST(LinregServoTest, WindowGrowsWhileTheClockIsStable) {
  LinregServo lr(Config(ServoType::kLinreg));
  Feed(&lr, Truth{500}, 1, 200, /*noise_amplitude_ns=*/20);
  EXPECT_EQ(lr.size_log2(), LinregServo::kMaxSizeLog2);
}

TEST(ServoConfigTest, RejectsBadConfiguration) {
  ServoConfig c = Config(ServoType::kPi);
  EXPECT_TRUE(ValidateServoConfig(c).ok());
  c.nominal_ns_per_tick = 0;
  EXPECT_FALSE(MakeServo(c).ok());
  c = Config(ServoType::kPi);
  c.sync_interval_s = 0;
  EXPECT_FALSE(ValidateServoConfig(c).ok());
  c = Config(ServoType::kPi);
  c.max_frequency_ppb = -1;
  EXPECT_FALSE(ValidateServoConfig(c).ok());
  c = Config(ServoType::kPi);
  c.lock_count = 0;
  EXPECT_FALSE(ValidateServoConfig(c).ok());
  c = Config(ServoType::kPi);
  c.pi.ki_scale = 0;
  EXPECT_FALSE(ValidateServoConfig(c).ok());
  EXPECT_STREQ(ServoStateName(ServoState::kLockedStable), "locked_stable");
}

}  // namespace
}  // namespace servo_test
}  // namespace zg::servo
