// SPDX-License-Identifier: Apache-2.0
// Tests of the NTS nonce CSPRNG (core/crypto/aes_ctr_random.h): seeded from
// the OS it differs per instance and looks uniform; from a fixed seed it is
// AES-128-CTR (checked against the portable block code), whatever the Fill
// sizes, and it rekeys itself after 2^20 blocks.
#include "core/crypto/aes_ctr_random.h"

#include <cstring>
#include <vector>

#include "core/crypto/aes_block.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Seed(uint8_t base) {
  Bytes s(AesCtrRandom::kSeedSize);
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(base + i);
  return s;
}

Bytes Draw(AesCtrRandom& r, size_t n) {
  Bytes b(n);
  r.Fill(b.data(), n);
  return b;
}

TEST(AesCtrRandomTest, FromOsInstancesDifferAndAreNotZero) {
  absl::StatusOr<AesCtrRandom> a = AesCtrRandom::FromOs();
  absl::StatusOr<AesCtrRandom> b = AesCtrRandom::FromOs();
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const Bytes x = Draw(*a, 64), y = Draw(*b, 64);
  EXPECT_NE(x, y);
  EXPECT_NE(x, Bytes(64, 0));
  EXPECT_NE(x, Draw(*a, 64));
}

TEST(AesCtrRandomTest, BytesLookUniform) {
  absl::StatusOr<AesCtrRandom> r = AesCtrRandom::FromOs();
  ASSERT_TRUE(r.ok());
  constexpr size_t kN = 1 << 20;
  const Bytes b = Draw(*r, kN);
  double count[256] = {0};
  for (uint8_t x : b) ++count[x];
  double chi2 = 0;
  const double expect = kN / 256.0;
  for (double c : count) chi2 += (c - expect) * (c - expect) / expect;
  // 255 degrees of freedom: mean 255, sd 22.6; p(chi2 > 400) ~ 1e-8.
  EXPECT_LT(chi2, 400) << chi2;
  EXPECT_GT(chi2, 150) << chi2;
  // And as many one bits as zero bits.
  size_t ones = 0;
  for (uint8_t x : b) ones += static_cast<size_t>(__builtin_popcount(x));
  EXPECT_NEAR(static_cast<double>(ones) / (8.0 * kN), 0.5, 0.002);
}

TEST(AesCtrRandomTest, IsAes128CtrOfTheSeed) {
  const Bytes seed = Seed(0x30);
  AesCtrRandom r(seed.data());
  alignas(16) uint8_t rk[aes::kAes128RoundKeyBytes];
  aes::ExpandKey128Portable(seed.data(), rk);
  Bytes ctr(seed.begin() + 16, seed.end());
  for (int block = 0; block < 40; ++block) {
    uint8_t want[16];
    aes::EncryptBlockPortable(rk, ctr.data(), want);
    EXPECT_EQ(Draw(r, 16), Bytes(want, want + 16)) << block;
    for (int i = 15; i >= 8 && ++ctr[i] == 0; --i) {
    }
  }
}

TEST(AesCtrRandomTest, DeterministicWhateverTheFillSizes) {
  const Bytes seed = Seed(7);
  AesCtrRandom a(seed.data()), b(seed.data());
  const Bytes whole = Draw(a, 5000);
  Bytes pieces;
  size_t n = 0;
  for (size_t i = 1; pieces.size() < whole.size(); ++i) {
    n = std::min(i * 7 % 300, whole.size() - pieces.size());
    const Bytes p = Draw(b, n);
    pieces.insert(pieces.end(), p.begin(), p.end());
  }
  EXPECT_EQ(pieces, whole);
  AesCtrRandom c(Seed(8).data());
  EXPECT_NE(Draw(c, 64), Bytes(whole.begin(), whole.begin() + 64));
}

TEST(AesCtrRandomTest, RekeysAfter2To20Blocks) {
  const Bytes seed = Seed(1);
  AesCtrRandom a(seed.data()), b(seed.data());
  constexpr size_t kBefore = AesCtrRandom::kRekeyBlocks * 16;
  Bytes big(kBefore);
  a.Fill(big.data(), big.size());
  b.Fill(big.data(), big.size());
  const Bytes after = Draw(a, 64);
  EXPECT_EQ(after, Draw(b, 64));  // still deterministic
  // Not the plain CTR continuation under the first key.
  alignas(16) uint8_t rk[aes::kAes128RoundKeyBytes];
  aes::ExpandKey128Portable(seed.data(), rk);
  Bytes ctr(seed.begin() + 16, seed.end());
  Bytes cont(64);
  uint64_t low = 0;
  for (int i = 8; i < 16; ++i) low = (low << 8) | ctr[i];
  low += AesCtrRandom::kRekeyBlocks;
  for (int i = 15; i >= 8; --i, low >>= 8) ctr[i] = static_cast<uint8_t>(low);
  aes::Ctr128(rk, ctr.data(), nullptr, cont.data(), cont.size());
  EXPECT_NE(after, cont);
}

TEST(AesCtrRandomTest, MoveKeepsTheStreamAndWipesTheSource) {
  const Bytes seed = Seed(3);
  AesCtrRandom a(seed.data()), ref(seed.data());
  Draw(a, 10);
  Draw(ref, 10);
  AesCtrRandom b(std::move(a));
  EXPECT_EQ(Draw(b, 100), Draw(ref, 100));
}

}  // namespace
}  // namespace zg::core
