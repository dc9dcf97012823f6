// SPDX-License-Identifier: Apache-2.0
// The AES code paths a crypto test runs on, as a test parameter: the VAES
// lanes (skipped on CPUs without VAES and AVX-512), the AES-NI lanes (forced
// where the CPU has VAES) and the portable code, chosen with
// core/crypto/aes_block.h's test hooks and restored after each test.
//
//   class AesSivTest : public AesPathTest {};
//   TEST_P(AesSivTest, X) { ... }
//   INSTANTIATE_TEST_SUITE_P(Paths, AesSivTest, kAesPaths, AesPathName);
#ifndef ZG_TESTS_CORE_CRYPTO_AES_PATHS_H_
#define ZG_TESTS_CORE_CRYPTO_AES_PATHS_H_

#include <string>

#include "core/crypto/aes_block.h"
#include "gtest/gtest.h"

namespace zg::core {

enum class AesPath { kVaes, kAesNi, kPortable };

class AesPathTest : public ::testing::TestWithParam<AesPath> {
 protected:
  void SetUp() override {
    if (GetParam() == AesPath::kVaes && !aes::CpuHasVaes()) {
      GTEST_SKIP() << "no VAES with AVX-512";
    }
    if (GetParam() == AesPath::kAesNi && !aes::CpuHasAesNi()) {
      GTEST_SKIP() << "no AES-NI";
    }
    aes::ForcePortableForTesting(GetParam() == AesPath::kPortable);
    aes::ForceAesNiLanesForTesting(GetParam() == AesPath::kAesNi);
    ASSERT_EQ(aes::UseVaes(), GetParam() == AesPath::kVaes);
    ASSERT_EQ(aes::UseAesNi(), GetParam() != AesPath::kPortable);
  }
  void TearDown() override {
    aes::ForcePortableForTesting(false);
    aes::ForceAesNiLanesForTesting(false);
  }
};

inline const auto kAesPaths =
    ::testing::Values(AesPath::kVaes, AesPath::kAesNi, AesPath::kPortable);

inline std::string AesPathName(const ::testing::TestParamInfo<AesPath>& i) {
  switch (i.param) {
    case AesPath::kVaes:
      return "Vaes";
    case AesPath::kAesNi:
      return "AesNi";
    case AesPath::kPortable:
      break;
  }
  return "Portable";
}

}  // namespace zg::core

#endif  // ZG_TESTS_CORE_CRYPTO_AES_PATHS_H_
