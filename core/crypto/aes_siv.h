// SPDX-License-Identifier: Apache-2.0
// AEAD_AES_SIV_CMAC_256 (RFC 5297; NTS AEAD algorithm 15, RFC 8915): the
// deterministic authenticated encryption that NTS uses for its cookies and
// its NTP authenticators.
//
// Written here rather than taken from nettle (siv_cmac_aes128, chrony's) or
// OpenSSL because a worker needs many seals and opens under many keys
// interleaved in one pass, which neither library's one-message API can do;
// bench/core/crypto/aes_siv_benchmark.cc compares it with both in the same
// run, every side re-keyed per message alike.
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
// AES-NI the blocks are AES-NI instructions: the CMAC chains of S2V (one
// per component) and the CTR blocks of every message of a batch run
// interleaved, eight blocks in flight (core/crypto/aesni_lanes_inl.h), so
// that a burst's requests or a reply's cookies cost little more than one;
// elsewhere a portable path gives the same bytes (tests compare both with
// OpenSSL's AES-128-SIV and nettle's).
//
//   AesSiv siv;
//   siv.SetKey(key32);
//   const AesSivInput ad[] = {{header, header_len}, {nonce, 16}};
//   siv.Seal(ad, plaintext, n, out);          // out: 16 + n bytes
//   if (!siv.Open(ad, out, 16 + n, plain)) reject;
//   // many at once: AesSiv::SealBatch(ops), OpenBatch(ops), SetKeyBatch
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

class AesSiv;

// S2V's state D after some leading components of the associated data
// (AesSiv::Prefix): where many messages under one key start with the same
// components (an NTS cookie's key id, one per period), their CMACs are
// computed once. A message with a prefix lists in `ad` only the
// components after it.
struct AesSivPrefix {
  alignas(16) uint8_t d[16] = {};
};

// One message of a batch: as the arguments of AesSiv::Seal / Open, and
// optionally the prefix of `siv` its components follow.
struct AesSivSealOp {
  const AesSiv* siv = nullptr;
  std::span<const AesSivInput> ad;
  const uint8_t* plaintext = nullptr;
  size_t len = 0;
  uint8_t* out = nullptr;  // 16 + len bytes
  const AesSivPrefix* prefix = nullptr;
};
struct AesSivOpenOp {
  const AesSiv* siv = nullptr;
  std::span<const AesSivInput> ad;
  const uint8_t* in = nullptr;  // V || C
  size_t in_len = 0;
  uint8_t* plaintext = nullptr;  // in_len - 16 bytes
  bool ok = false;               // written by OpenBatch
  const AesSivPrefix* prefix = nullptr;
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

  // S2V's state after `leading` (as the first components of a message's
  // associated data), for ops that share them.
  AesSivPrefix Prefix(std::span<const AesSivInput> leading) const;

  // Batches: every op as Seal / Open / SetKey would do it, the AES of all
  // of them interleaved. A batch of one key, one prefix (or none), one
  // 16-byte component and 64 bytes of plaintext each (the NTS cookie
  // shape) runs on VAES without the chain engine (vaes::SealSiv64). Ops must
  // not write where another op of the batch reads (in place within one op is
  // fine, as above). False (nothing sealed) when an op has more than
  // kAesSivMaxComponents.
  static bool SealBatch(std::span<const AesSivSealOp> ops);
  // Sets each op's ok (false also for too many components or in_len < 16).
  static void OpenBatch(std::span<AesSivOpenOp> ops);
  // sivs[i]->SetKey(keys[i]); the spans are as long as each other.
  static void SetKeyBatch(std::span<AesSiv* const> sivs,
                          std::span<const uint8_t* const> keys);

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
