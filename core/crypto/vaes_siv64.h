// SPDX-License-Identifier: Apache-2.0
// AES-SIV (core/crypto/aes_siv.h) of the NTS cookie's shape on VAES, for
// AesSiv's batches only: messages under one key whose S2V's last component
// is a 16-byte nonce and whose plaintext is 64 bytes (the cookie's keys;
// its key id, the component before the nonce, is folded into `dbl_d` once
// per period: core/nts/nts_cookie.h). They run without the chain engine's
// gathering (core/crypto/vaes_lanes.h): four messages a vector, their
// plaintexts transposed into it, every step the same for all, a chunk's
// AES rounds interleaved. About 11 ns a cookie in a burst's batch against
// 54 on the chain engine (bench/core/crypto/aes_siv_benchmark.cc).
//
//   vaes::Siv64Keys k = {...};          // once per key (and prefix)
//   vaes::SealSiv64(k, ops, n);         // where aes::UseVaes()
#ifndef ZG_CORE_CRYPTO_VAES_SIV64_H_
#define ZG_CORE_CRYPTO_VAES_SIV64_H_

#include <cstddef>
#include <cstdint>

#include "core/crypto/aesni_inl.h"

#ifdef ZG_HAVE_AESNI

namespace zg::core::vaes {

inline constexpr size_t kSiv64Bytes = 64;
struct Siv64Keys {
  const aesni::Keys* s2v;  // K1's schedule (S2V)
  const aesni::Keys* ctr;  // K2's (CTR)
  __m128i k1;              // CMAC subkey L·x under K1
  __m128i dbl_d;           // dbl(D), D: S2V's state before the nonce
};
struct Siv64Seal {
  const uint8_t* nonce;  // 16 bytes
  const uint8_t* pt;     // 64 bytes; may be out + 16 (in place)
  uint8_t* out;          // V || C, 80 bytes
};
struct Siv64Open {
  const uint8_t* nonce;  // 16 bytes
  const uint8_t* in;     // V || C, 80 bytes
  uint8_t* pt;           // 64 bytes; may be in + 16 (in place)
};
// Every op sealed (1 <= n <= kVaesSlots); no op writes where another
// reads.
void SealSiv64(const Siv64Keys& k, const Siv64Seal* ops, size_t n);
// Every op decrypted (1 <= n <= kVaesSlots), ok[i] whether its V verifies
// (constant time); the plaintext of a failed op is garbage the caller
// clears.
void OpenSiv64(const Siv64Keys& k, const Siv64Open* ops, size_t n, bool* ok);

}  // namespace zg::core::vaes

#endif  // ZG_HAVE_AESNI
#endif  // ZG_CORE_CRYPTO_VAES_SIV64_H_
