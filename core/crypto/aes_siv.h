// SPDX-License-Identifier: Apache-2.0
// AEAD_AES_SIV_CMAC_256 (RFC 5297; NTS AEAD algorithm 15, RFC 8915): the
// deterministic authenticated encryption that NTS uses for its cookies and
// its NTP authenticators.
//
// The 32-byte key is K1 || K2, both AES-128: K1 keys S2V (CMAC over the
// associated-data components, the nonce and the plaintext), K2 keys CTR
// mode. The output is V (16-byte synthetic IV, the tag) || C (as long as
// the plaintext), in RFC 5297's order.
//
// An AesSiv holds both prepared key schedules (and CMAC's subkeys and
// S2V's CMAC(0)), so a call allocates nothing, takes no lock and makes no
// syscall: cookies are sealed and opened under the period key of a
// prepared AesSiv, and per request the NTS keys a cookie carries are
// prepared with SetKey (a key expansion, tens of ns). Where the CPU has
// AES-NI the blocks are AES-NI instructions, the independent CMACs of S2V
// interleaved and CTR pipelined; elsewhere a portable path gives the same
// bytes (tests compare both with OpenSSL's AES-128-SIV).
//
//   AesSiv siv;
//   siv.SetKey(key32);
//   const AesSivInput ad[] = {{header, header_len}, {nonce, 16}};
//   siv.Seal(ad, plaintext, n, out);          // out: 16 + n bytes
//   if (!siv.Open(ad, out, 16 + n, plain)) reject;
#ifndef ZG_CORE_CRYPTO_AES_SIV_H_
#define ZG_CORE_CRYPTO_AES_SIV_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace zg::core {

inline constexpr size_t kAesSivKeySize = 32;  // K1 || K2
inline constexpr size_t kAesSivTagSize = 16;  // V
// RFC 5297 allows 126 components; NTS uses at most 2 (AD, nonce).
inline constexpr size_t kAesSivMaxComponents = 8;

// One associated-data component of S2V (the nonce is the last one, as the
// RFC 5116 AEAD interface of RFC 5297 section 7 puts it).
struct AesSivInput {
  const uint8_t* data = nullptr;
  size_t len = 0;
};

class AesSiv {
 public:
  AesSiv();
  // Prepares both key schedules and S2V's constants from key[0..32).
  void SetKey(const uint8_t* key);

  // out[0..16) = V, out[16..16+len) = C. ad.size() <= kAesSivMaxComponents
  // (false otherwise). `out` and `plaintext` do not overlap, except in
  // place: plaintext == out + 16.
  bool Seal(std::span<const AesSivInput> ad, const uint8_t* plaintext,
            size_t len, uint8_t* out) const;
  // in[0..16) = V, in[16..in_len) = C; writes in_len - 16 bytes of
  // plaintext to `plaintext` (may be in + 16: in place) and returns true
  // only when V verifies (constant-time compare). On false the plaintext
  // buffer holds garbage the caller must not use.
  bool Open(std::span<const AesSivInput> ad, const uint8_t* in, size_t in_len,
            uint8_t* plaintext) const;

  // Whether this build and CPU use the AES-NI path.
  static bool UsesAesNi();

 private:
  // Expanded AES-128 keys (11 round keys each) for K1 (S2V) and K2 (CTR),
  // CMAC subkeys K1·x and K1·x² of K1, and CMAC_K1(0^128) for S2V.
  alignas(16) uint8_t s2v_rk_[11 * 16];
  alignas(16) uint8_t ctr_rk_[11 * 16];
  alignas(16) uint8_t cmac_k1_[16];
  alignas(16) uint8_t cmac_k2_[16];
  alignas(16) uint8_t s2v_zero_[16];
};

}  // namespace zg::core

#endif  // ZG_CORE_CRYPTO_AES_SIV_H_
