// SPDX-License-Identifier: Apache-2.0
// Deterministic Gaussian noise for unit tests (splitmix64 + Box-Muller), the
// same on every compiler.
//
//   TestNoise noise(42);
//   double n = noise.Next();  // N(0, 1)
#ifndef ZG_TESTS_SERVO_TEST_NOISE_H_
#define ZG_TESTS_SERVO_TEST_NOISE_H_

#include <cmath>
#include <cstdint>

namespace zg::servo {

class TestNoise {
 public:
  explicit TestNoise(uint64_t seed) : s_(seed) {}
  double Next() {
    const double u1 = Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

 private:
  double Uniform() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 0.5) * 0x1.0p-53;
  }
  uint64_t s_;
};

}  // namespace zg::servo

#endif  // ZG_TESTS_SERVO_TEST_NOISE_H_
