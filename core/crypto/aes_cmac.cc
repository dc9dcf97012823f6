// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/aes_cmac.h"

#include <cstring>

#include "core/crypto/aes_block.h"
#include "core/crypto/aesni_inl.h"
#include "core/crypto/aesni_lanes_inl.h"
#include "core/crypto/vaes_lanes.h"

namespace zg::core {
namespace {

#ifdef ZG_HAVE_AESNI

constexpr size_t kCmacsPerChunk = 32;

struct CmacKeysView {
  const uint8_t* rk;
  const uint8_t* k1;
  const uint8_t* k2;
};

ZG_AESNI void ComputeNi(const CmacKeysView* keys, const AesCmacOp* ops,
                        size_t n, bool wide) {
  aesni::MacLane lanes[kCmacsPerChunk];
  for (size_t i = 0; i < n; ++i) {
    lanes[i] = aesni::CmacLane(
        aesni::KeysAt(keys[i].rk), ops[i].data, ops[i].len,
        _mm_load_si128(reinterpret_cast<const __m128i*>(keys[i].k1)),
        _mm_load_si128(reinterpret_cast<const __m128i*>(keys[i].k2)));
  }
  vaes::RunMacLanesOn(wide, lanes, n);
  for (size_t i = 0; i < n; ++i) aesni::Store(ops[i].mac, lanes[i].x);
}

#endif  // ZG_HAVE_AESNI

}  // namespace

AesCmac128::AesCmac128() {
  std::memset(rk_, 0, sizeof(rk_));
  std::memset(k1_, 0, sizeof(k1_));
  std::memset(k2_, 0, sizeof(k2_));
}

AesCmac128::~AesCmac128() {
  // Not optimised away: the stores go through a volatile pointer.
  volatile uint8_t* p = rk_;
  for (size_t i = 0; i < sizeof(rk_); ++i) p[i] = 0;
  p = k1_;
  for (size_t i = 0; i < sizeof(k1_); ++i) p[i] = 0;
  p = k2_;
  for (size_t i = 0; i < sizeof(k2_); ++i) p[i] = 0;
}

void AesCmac128::SetKey(const uint8_t* key16) {
  aes::ExpandKey128(key16, rk_);
  uint8_t l[16] = {0};
  aes::EncryptBlock(rk_, l, l);
  aes::DblPortable(l, k1_);
  aes::DblPortable(k1_, k2_);
}

void AesCmac128::Compute(const uint8_t* data, size_t len, uint8_t* mac) const {
  const AesCmacOp op{this, data, len, mac};
  ComputeBatch({&op, 1});
}

void AesCmac128::ComputeBatch(std::span<const AesCmacOp> ops) {
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    const bool wide = aes::UseVaes();
    for (size_t at = 0; at < ops.size(); at += kCmacsPerChunk) {
      const size_t n =
          ops.size() - at < kCmacsPerChunk ? ops.size() - at : kCmacsPerChunk;
      CmacKeysView keys[kCmacsPerChunk];
      for (size_t i = 0; i < n; ++i) {
        const AesCmac128& k = *ops[at + i].key;
        keys[i] = {k.rk_, k.k1_, k.k2_};
      }
      ComputeNi(keys, ops.data() + at, n, wide);
    }
    return;
  }
#endif
  for (const AesCmacOp& op : ops) {
    const AesCmac128& k = *op.key;
    aes::CmacPortable(k.rk_, k.k1_, k.k2_, op.data, op.len, nullptr, op.mac);
  }
}

}  // namespace zg::core
