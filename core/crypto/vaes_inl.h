// SPDX-License-Identifier: Apache-2.0
// VAES helpers for core/crypto's VAES .cc files only (vaes_lanes.cc,
// vaes_siv64.cc): the target attribute their functions carry (AVX-512 and
// VAES, for those functions alone: the build targets -march=corei7, and
// callers check aes::UseVaes() first) and the vector moves they share.
#ifndef ZG_CORE_CRYPTO_VAES_INL_H_
#define ZG_CORE_CRYPTO_VAES_INL_H_

#include "core/crypto/aesni_inl.h"

#ifdef ZG_HAVE_AESNI

#include <immintrin.h>

#include <cstdint>

#define ZG_VAES \
  __attribute__((target("aes,ssse3,sse4.1,vaes,avx512f,avx512bw,avx512vl")))
#define ZG_VAES_INLINE                                                      \
  __attribute__((target("aes,ssse3,sse4.1,vaes,avx512f,avx512bw,avx512vl"), \
                 always_inline)) inline

namespace zg::core::vaes {

// The blocks at p[0..4), one per lane.
ZG_VAES_INLINE __m512i Load4(const uint8_t* const* p) {
  __m512i v = _mm512_castsi128_si512(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[0])));
  v = _mm512_inserti32x4(
      v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[1])), 1);
  v = _mm512_inserti32x4(
      v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[2])), 2);
  return _mm512_inserti32x4(
      v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[3])), 3);
}

// The zero-masked forms of some intrinsics below, with every element
// kept: GCC 12's plain forms pass an undefined vector through, which its
// -Wmaybe-uninitialized takes for a read of one.
inline constexpr __mmask16 kAll = 0xffff;

// k in every lane.
ZG_VAES_INLINE __m512i Broadcast(const __m128i& k) {
  return _mm512_maskz_broadcast_i32x4(kAll, k);
}

// Lane q (an immediate) of v.
template <int Q>
ZG_VAES_INLINE __m128i Extract(__m512i v) {
  return _mm512_maskz_extracti32x4_epi32(static_cast<__mmask8>(0xf), v, Q);
}

// y[0..N) encrypted in lock step under one broadcast schedule rk[0..11).
template <int N>
ZG_VAES_INLINE void EncShared(__m512i* y, const __m512i* rk) {
  for (int j = 0; j < N; ++j) y[j] = _mm512_xor_si512(y[j], rk[0]);
  for (int r = 1; r < 10; ++r) {
    for (int j = 0; j < N; ++j) y[j] = _mm512_aesenc_epi128(y[j], rk[r]);
  }
  for (int j = 0; j < N; ++j) y[j] = _mm512_aesenclast_epi128(y[j], rk[10]);
}

// The 11 round keys of *k, each in every lane.
ZG_VAES_INLINE void BroadcastKeys(const aesni::Keys* k, __m512i* rk) {
  for (int r = 0; r < 11; ++r) rk[r] = Broadcast(k->k[r]);
}

// Lanes of a and b picked by Imm (vshufi64x2), in the zero-masked form.
template <int Imm>
ZG_VAES_INLINE __m512i ShuffleLanes(__m512i a, __m512i b) {
  return _mm512_maskz_shuffle_i64x2(static_cast<__mmask8>(0xff), a, b, Imm);
}

// CTR counter blocks four a vector (the low 64 bits count, as
// aesni::CtrBlock): CtrStart(ctr) the counters ctr + 0..3 as little-endian
// integers, one a lane; CtrBlocks(le) them as big-endian blocks;
// CtrNext(le) the next vector's, + 4.
ZG_VAES_INLINE __m512i ByteSwapLanes(__m512i v) {
  return _mm512_shuffle_epi8(
      v, Broadcast(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                14, 15)));
}
ZG_VAES_INLINE __m512i CtrStart(__m128i ctr) {
  return _mm512_add_epi64(ByteSwapLanes(Broadcast(ctr)),
                          _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0));
}
ZG_VAES_INLINE __m512i CtrBlocks(__m512i le) { return ByteSwapLanes(le); }
ZG_VAES_INLINE __m512i CtrNext(__m512i le) {
  return _mm512_add_epi64(le, _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4));
}

// f.template Run<N>() for N = n, 1 <= n <= 8 (larger n: 8): the engines'
// loops are unrolled per count of vectors, chosen once per batch.
template <class F>
ZG_VAES_INLINE void WithCount8(int n, const F& f) {
  switch (n) {
    case 1:
      return f.template Run<1>();
    case 2:
      return f.template Run<2>();
    case 3:
      return f.template Run<3>();
    case 4:
      return f.template Run<4>();
    case 5:
      return f.template Run<5>();
    case 6:
      return f.template Run<6>();
    case 7:
      return f.template Run<7>();
    default:
      return f.template Run<8>();
  }
}

}  // namespace zg::core::vaes

#endif  // ZG_HAVE_AESNI
#endif  // ZG_CORE_CRYPTO_VAES_INL_H_
