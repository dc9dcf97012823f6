// SPDX-License-Identifier: Apache-2.0
// Tests of AES-128-CMAC (core/crypto/aes_cmac.h) on every path (the VAES
// and AES-NI lanes where the CPU has them, the portable code), each forced
// by the test hooks. Expected
// values come from RFC 4493 section 4's examples, OpenSSL 3's CMAC and
// nettle's cmac_aes128 (chrony's), on random
// keys and lengths 0..300; batches under many keys must give what single
// calls give.
#include "core/crypto/aes_cmac.h"

#define OPENSSL_SUPPRESS_DEPRECATED
#include <nettle/cmac.h>
#include <openssl/cmac.h>
#include <openssl/evp.h>

#include <random>
#include <string>
#include <vector>

#include "core/crypto/aes_block.h"
#include "gtest/gtest.h"
#include "tests/core/crypto/aes_paths.h"
#include "tests/util/hex.h"

namespace zg::core {
namespace {

using Bytes = std::vector<uint8_t>;

std::string ToHex(const Bytes& b) { return testutil::ToHex(b); }

Bytes Mac(const AesCmac128& cmac, const Bytes& m) {
  Bytes mac(16);
  cmac.Compute(m.data(), m.size(), mac.data());
  return mac;
}

Bytes OpensslCmac(const Bytes& key, const Bytes& m) {
  CMAC_CTX* ctx = CMAC_CTX_new();
  EXPECT_EQ(CMAC_Init(ctx, key.data(), 16, EVP_aes_128_cbc(), nullptr), 1);
  EXPECT_EQ(CMAC_Update(ctx, m.data(), m.size()), 1);
  Bytes mac(16);
  size_t n = 0;
  EXPECT_EQ(CMAC_Final(ctx, mac.data(), &n), 1);
  CMAC_CTX_free(ctx);
  return mac;
}

class AesCmacTest : public AesPathTest {};

TEST_P(AesCmacTest, Rfc4493Examples) {
  const Bytes key = testutil::FromHex("2b7e151628aed2a6abf7158809cf4f3c");
  const Bytes m = testutil::FromHex(
      "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
      "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710");
  AesCmac128 cmac;
  cmac.SetKey(key.data());
  EXPECT_EQ(ToHex(Mac(cmac, {})), "bb1d6929e95937287fa37d129b756746");
  EXPECT_EQ(ToHex(Mac(cmac, Bytes(m.begin(), m.begin() + 16))),
            "070a16b46b4d4144f79bdd9dd04a287c");
  EXPECT_EQ(ToHex(Mac(cmac, Bytes(m.begin(), m.begin() + 40))),
            "dfa66747de9ae63030ca32611497c827");
  EXPECT_EQ(ToHex(Mac(cmac, m)), "51f0bebf7e3b9d92fc49741779363cfe");
}

TEST_P(AesCmacTest, MatchesOpensslAndNettleOnRandomInputs) {
  std::mt19937 rng(4493);
  for (size_t len = 0; len <= 300; ++len) {
    Bytes key(16), m(len);
    for (uint8_t& x : key) x = static_cast<uint8_t>(rng());
    for (uint8_t& x : m) x = static_cast<uint8_t>(rng());
    AesCmac128 cmac;
    cmac.SetKey(key.data());
    const Bytes ours = Mac(cmac, m);
    ASSERT_EQ(ToHex(ours), ToHex(OpensslCmac(key, m))) << "len " << len;
    cmac_aes128_ctx ctx;
    cmac_aes128_set_key(&ctx, key.data());
    cmac_aes128_update(&ctx, m.size(), m.data());
    Bytes theirs(16);
    cmac_aes128_digest(&ctx, 16, theirs.data());
    ASSERT_EQ(ToHex(ours), ToHex(theirs)) << "len " << len;
  }
}

TEST_P(AesCmacTest, BatchUnderManyKeysMatchesSingleCalls) {
  std::mt19937 rng(8573);
  constexpr size_t kKeys = 7, kOps = 70;  // more than one chunk
  std::vector<AesCmac128> keys(kKeys);
  std::vector<Bytes> raw(kKeys);
  for (size_t k = 0; k < kKeys; ++k) {
    raw[k].resize(16);
    for (uint8_t& x : raw[k]) x = static_cast<uint8_t>(rng());
    keys[k].SetKey(raw[k].data());
  }
  std::vector<Bytes> msgs(kOps), macs(kOps, Bytes(16));
  std::vector<AesCmacOp> ops(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    msgs[i].resize(rng() % 120);
    for (uint8_t& x : msgs[i]) x = static_cast<uint8_t>(rng());
    ops[i] = {&keys[i % kKeys], msgs[i].data(), msgs[i].size(), macs[i].data()};
  }
  AesCmac128::ComputeBatch(ops);
  for (size_t i = 0; i < kOps; ++i) {
    EXPECT_EQ(ToHex(macs[i]), ToHex(OpensslCmac(raw[i % kKeys], msgs[i])))
        << "op " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, AesCmacTest, kAesPaths, AesPathName);

}  // namespace
}  // namespace zg::core
