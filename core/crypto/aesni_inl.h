// SPDX-License-Identifier: Apache-2.0
// AES-NI inline helpers for core/crypto's .cc files only (aes_block.cc,
// aes_siv.cc, aes_cmac.cc): round-key loading, N blocks encrypted in lock step
// (the aesenc of independent blocks overlap in the pipeline), GF(2^128)
// doubling and the big-endian CTR counter. Every function carries
// ZG_AESNI (target aes + SSE4.1) so it inlines into the callers that carry
// it too; callers check aes::UseAesNi() first.
#ifndef ZG_CORE_CRYPTO_AESNI_INL_H_
#define ZG_CORE_CRYPTO_AESNI_INL_H_

#if (defined(__x86_64__) || defined(__i386__)) && !defined(ZG_NO_AESNI)
#define ZG_HAVE_AESNI 1
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define ZG_AESNI __attribute__((target("aes,ssse3,sse4.1")))
#define ZG_AESNI_INLINE \
  __attribute__((target("aes,ssse3,sse4.1"), always_inline)) inline

namespace zg::core::aesni {

struct Keys {
  __m128i k[11];
};

ZG_AESNI_INLINE void LoadKeys(const uint8_t* rk, Keys* keys) {
  for (int i = 0; i < 11; ++i) {
    keys->k[i] = _mm_load_si128(reinterpret_cast<const __m128i*>(rk) + i);
  }
}

ZG_AESNI_INLINE __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
ZG_AESNI_INLINE void Store(uint8_t* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

ZG_AESNI_INLINE __m128i Enc1(__m128i b, const Keys& k) {
  b = _mm_xor_si128(b, k.k[0]);
  for (int r = 1; r < 10; ++r) b = _mm_aesenc_si128(b, k.k[r]);
  return _mm_aesenclast_si128(b, k.k[10]);
}

// b[0..N) encrypted in lock step.
template <int N>
ZG_AESNI_INLINE void EncN(__m128i* b, const Keys& k) {
  for (int j = 0; j < N; ++j) b[j] = _mm_xor_si128(b[j], k.k[0]);
  for (int r = 1; r < 10; ++r) {
    for (int j = 0; j < N; ++j) b[j] = _mm_aesenc_si128(b[j], k.k[r]);
  }
  for (int j = 0; j < N; ++j) b[j] = _mm_aesenclast_si128(b[j], k.k[10]);
}

// One AES-128 key expansion step, next round key from `key`, with
// aesenclast instead of aeskeygenassist (slow on many Intel cores): the last
// word rotated and broadcast, so ShiftRows is a no-op and aesenclast leaves
// SubWord(RotWord(w3)) ^ rcon in every word.
ZG_AESNI_INLINE __m128i ExpandStep(__m128i key, int rcon) {
  const __m128i rot = _mm_set1_epi32(0x0c0f0e0d);
  const __m128i t =
      _mm_aesenclast_si128(_mm_shuffle_epi8(key, rot), _mm_set1_epi32(rcon));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  return _mm_xor_si128(key, t);
}

// Reverses the 16 bytes: a big-endian block <-> a little-endian integer.
ZG_AESNI_INLINE __m128i ByteSwap(__m128i v) {
  const __m128i rev =
      _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return _mm_shuffle_epi8(v, rev);
}

// AES-SIV's CTR counter (RFC 5297): V with bits 63 and 31 cleared, bit 7
// of bytes 8 and 12, the lowest bytes of 32-bit lanes 2 and 3.
ZG_AESNI_INLINE __m128i SivCounter(__m128i v) {
  const int clear = static_cast<int>(0xffffff7fu);
  return _mm_and_si128(v, _mm_set_epi32(clear, clear, -1, -1));
}

// x·2 in GF(2^128) (RFC 5297 dbl, CMAC subkeys): x a big-endian block.
ZG_AESNI_INLINE __m128i Dbl(__m128i x) {
  const __m128i v = ByteSwap(x);
  const __m128i carry = _mm_srli_epi64(v, 63);  // bit 63 of each half
  __m128i r = _mm_or_si128(_mm_slli_epi64(v, 1), _mm_slli_si128(carry, 8));
  const __m128i msb = _mm_srli_si128(carry, 8);  // bit 127 in lane 0
  const __m128i mask = _mm_sub_epi64(_mm_setzero_si128(), msb);
  r = _mm_xor_si128(r, _mm_and_si128(mask, _mm_set_epi64x(0, 0x87)));
  return ByteSwap(r);
}

// CTR counters: `le` is the counter block byte-swapped (a little-endian
// 128-bit integer whose lane 0 is the low 64 bits); block i of the stream is
// ByteSwap(le + i), the low 64 bits incremented without carry.
ZG_AESNI_INLINE __m128i CtrBlock(__m128i le, uint64_t i) {
  return ByteSwap(
      _mm_add_epi64(le, _mm_set_epi64x(0, static_cast<int64_t>(i))));
}

// Keystream blocks [first, first + N) xored into in (or written) at out.
template <int N>
ZG_AESNI_INLINE void CtrBlocks(const Keys& k, __m128i le, uint64_t first,
                               const uint8_t* in, uint8_t* out, size_t len) {
  __m128i b[N];
  for (int j = 0; j < N; ++j) b[j] = CtrBlock(le, first + j);
  EncN<N>(b, k);
  size_t j = 0;
  for (; j < static_cast<size_t>(N) && 16 * j + 16 <= len; ++j) {
    const __m128i x =
        in != nullptr ? _mm_xor_si128(b[j], Load(in + 16 * j)) : b[j];
    Store(out + 16 * j, x);
  }
  if (j < static_cast<size_t>(N) && 16 * j < len) {
    alignas(16) uint8_t ks[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(ks), b[j]);
    for (size_t i = 0; 16 * j + i < len; ++i) {
      out[16 * j + i] =
          static_cast<uint8_t>((in != nullptr ? in[16 * j + i] : 0) ^ ks[i]);
    }
  }
}

// CTR mode: out = in ^ E(ctr), E(ctr + 1), ... (in == nullptr: the
// keystream), 8 blocks at a time; ctr a big-endian block whose low 64 bits
// count.
ZG_AESNI_INLINE void Ctr(const Keys& k, __m128i ctr, const uint8_t* in,
                         uint8_t* out, size_t len) {
  const __m128i le = ByteSwap(ctr);
  uint64_t block = 0;
  for (; len >= 128; len -= 128, block += 8) {
    CtrBlocks<8>(k, le, block, in, out, 128);
    if (in != nullptr) in += 128;
    out += 128;
  }
  if (len > 64) {
    CtrBlocks<8>(k, le, block, in, out, len);
  } else if (len > 16) {
    CtrBlocks<4>(k, le, block, in, out, len);
  } else if (len > 0) {
    CtrBlocks<1>(k, le, block, in, out, len);
  }
}

}  // namespace zg::core::aesni

#endif  // x86
#endif  // ZG_CORE_CRYPTO_AESNI_INL_H_
