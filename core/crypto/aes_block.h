// SPDX-License-Identifier: Apache-2.0
// AES-128 block primitives shared by core/crypto (AesSiv, AesCtrRandom): key
// expansion, block encryption and CTR keystream, each with an AES-NI path
// and a portable path that gives the same bytes. Not a public crypto API:
// use AesSiv or AesCtrRandom.
//
// Round keys are the FIPS-197 expanded key, 11 x 16 bytes in byte order
// (what AES-NI's aesenc takes, stored with _mm_store_si128), so a schedule
// expanded by either path is used by either path.
//
//   alignas(16) uint8_t rk[kAes128RoundKeyBytes];
//   aes::ExpandKey128(key16, rk);
//   aes::EncryptBlock(rk, in16, out16);
//
// The portable path looks bytes up in the S-box (not constant-time against
// cache-timing attackers); it is for CPUs without AES-NI and for tests.
#ifndef ZG_CORE_CRYPTO_AES_BLOCK_H_
#define ZG_CORE_CRYPTO_AES_BLOCK_H_

#include <cstddef>
#include <cstdint>

namespace zg::core::aes {

inline constexpr size_t kAesBlockSize = 16;
inline constexpr size_t kAes128RoundKeyBytes = 11 * 16;

// Whether the CPU has AES-NI (and SSE4.1) and this build uses it.
bool CpuHasAesNi();
// Whether the AES-NI path is used now: CpuHasAesNi() and not forced off.
bool UseAesNi();
// Test hook: force the portable path (true) or back to the default. Takes
// effect for calls that start after it returns; not for production.
void ForcePortableForTesting(bool force);
// Whether the CPU has VAES on AVX-512 (and AES-NI) and this build can use
// it: core/crypto/vaes_lanes.h, four blocks per instruction. Read from the
// CPU once, on the first call.
bool CpuHasVaes();
// Whether the lane engines of AesSiv and AesCmac128 use VAES now:
// UseAesNi(), CpuHasVaes() and not forced to the AES-NI lanes.
bool UseVaes();
// Test hook: force the AES-NI lanes where the CPU has VAES (true), or back
// to the default; as ForcePortableForTesting.
void ForceAesNiLanesForTesting(bool force);

// rk: kAes128RoundKeyBytes, 16-byte aligned.
void ExpandKey128(const uint8_t* key16, uint8_t* rk);
void EncryptBlock(const uint8_t* rk, const uint8_t* in16, uint8_t* out16);

// out[i] = in[i] ^ keystream for `len` bytes, the keystream being
// E(ctr), E(ctr + 1), ... with ctr a 128-bit big-endian counter whose low 64
// bits are incremented (the caller keeps them from wrapping). `in` may be
// `out`; in == nullptr writes the keystream itself.
void Ctr128(const uint8_t* rk, const uint8_t* ctr16, const uint8_t* in,
            uint8_t* out, size_t len);

// Portable implementations (always available; the dispatchers above pick).
void ExpandKey128Portable(const uint8_t* key16, uint8_t* rk);
void EncryptBlockPortable(const uint8_t* rk, const uint8_t* in16,
                          uint8_t* out16);

// x·2 in GF(2^128) (RFC 5297 dbl, the CMAC subkeys): in, out big-endian
// blocks (may be the same).
void DblPortable(const uint8_t* in16, uint8_t* out16);
// CMAC_rk(m[0..len)) (RFC 4493) with subkeys k1, k2 (CmacSubkeys), and
// `tail`, when not null, xored into the last 16 bytes of m first (S2V's
// xorend; then len >= 16).
void CmacPortable(const uint8_t* rk, const uint8_t* k1, const uint8_t* k2,
                  const uint8_t* m, size_t len, const uint8_t* tail,
                  uint8_t* mac16);
// The CMAC subkeys of rk: k1 = E(0)·2, k2 = k1·2.
void CmacSubkeysPortable(const uint8_t* rk, uint8_t* k1, uint8_t* k2);

}  // namespace zg::core::aes

#endif  // ZG_CORE_CRYPTO_AES_BLOCK_H_
