// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/vaes_siv64.h"

#ifdef ZG_HAVE_AESNI

#include <immintrin.h>

#include "core/crypto/vaes_inl.h"
#include "core/crypto/vaes_lanes.h"

namespace zg::core::vaes {
namespace {

constexpr size_t kAesBlock = 16;

// Four 64-byte messages z[0..4) to their blocks: p[j] holds block j of
// message i in lane i.
ZG_VAES_INLINE void Transpose4(const __m512i* z, __m512i* p) {
  const __m512i t0 = ShuffleLanes<0x44>(z[0], z[1]);
  const __m512i t1 = ShuffleLanes<0xee>(z[0], z[1]);
  const __m512i t2 = ShuffleLanes<0x44>(z[2], z[3]);
  const __m512i t3 = ShuffleLanes<0xee>(z[2], z[3]);
  p[0] = ShuffleLanes<0x88>(t0, t2);
  p[1] = ShuffleLanes<0xdd>(t0, t2);
  p[2] = ShuffleLanes<0x88>(t1, t3);
  p[3] = ShuffleLanes<0xdd>(t1, t3);
}

// V of messages [0, n) (n <= 4 * G), message 4g + i in lane i of v[g];
// the lanes past n repeat message 0. S2V from D: CMAC(nonce) = E(nonce ^
// L·x) (one complete block), D' = dbl(D) ^ that, and V = CMAC(pt xorend
// D'), whose first three blocks do not wait for D'.
template <int G>
ZG_VAES_INLINE void MacSiv64(const __m512i* rk, __m512i k1, __m512i dbl_d,
                             const uint8_t* const* nonce,
                             const uint8_t* const* pt, int n, __m512i* v) {
  __m512i p[G][4];
  __m512i y[2 * G];  // [0, G): the nonces' CMACs; [G, 2G): the chains
  for (int g = 0; g < G; ++g) {
    const uint8_t* np[4];
    __m512i z[4];
    for (int i = 0; i < 4; ++i) {
      const int m = 4 * g + i < n ? 4 * g + i : 0;
      np[i] = nonce[m];
      z[i] = _mm512_loadu_si512(pt[m]);
    }
    Transpose4(z, p[g]);
    y[g] = _mm512_xor_si512(Load4(np), k1);
    y[G + g] = p[g][0];
  }
  EncShared<2 * G>(y, rk);
  for (int j = 1; j < 3; ++j) {
    for (int g = 0; g < G; ++g) y[G + g] = _mm512_xor_si512(y[G + g], p[g][j]);
    EncShared<G>(y + G, rk);
  }
  for (int g = 0; g < G; ++g) {
    // The last block: its bytes ^ D' ^ L·x (complete).
    const __m512i d = _mm512_xor_si512(dbl_d, y[g]);
    y[G + g] = _mm512_xor_si512(
        y[G + g], _mm512_xor_si512(p[g][3], _mm512_xor_si512(d, k1)));
  }
  EncShared<G>(y + G, rk);
  for (int g = 0; g < G; ++g) v[g] = y[G + g];
}

// MacSiv64's arguments, for WithCount8.
struct MacSiv64Call {
  const __m512i* rk;
  __m512i k1, dbl_d;
  const uint8_t* const* nonce;
  const uint8_t* const* pt;
  int n;
  __m512i* v;
  template <int G>
  ZG_VAES_INLINE void Run() const {
    MacSiv64<G>(rk, k1, dbl_d, nonce, pt, n, v);
  }
};

// Lane q of v[q / 4]: message q's V.
ZG_VAES_INLINE __m128i LaneOf(const __m512i* v, int q) {
  const __m512i g = v[q / 4];
  switch (q % 4) {
    case 0:
      return Extract<0>(g);
    case 1:
      return Extract<1>(g);
    case 2:
      return Extract<2>(g);
    default:
      return Extract<3>(g);
  }
}

// out[m][0..64) = in[m] ^ the CTR keystream from V's counter (bits 63 and
// 31 cleared) of v[m], for M messages, one vector each.
template <int M>
ZG_VAES_INLINE void Ctr64(const __m512i* rk, const __m128i* v,
                          const uint8_t* const* in, uint8_t* const* out) {
  __m512i y[M];
  for (int m = 0; m < M; ++m) {
    y[m] = CtrBlocks(CtrStart(aesni::SivCounter(v[m])));
  }
  EncShared<M>(y, rk);
  for (int m = 0; m < M; ++m) {
    _mm512_storeu_si512(out[m],
                        _mm512_xor_si512(y[m], _mm512_loadu_si512(in[m])));
  }
}

// Ctr64's arguments, for WithCount8.
struct Ctr64Call {
  const __m512i* rk;
  const __m128i* v;
  const uint8_t* const* in;
  uint8_t* const* out;
  template <int M>
  ZG_VAES_INLINE void Run() const {
    Ctr64<M>(rk, v, in, out);
  }
};
// Ctr64 for messages [0, n), eight at a time.
ZG_VAES_INLINE void Ctr64N(const __m512i* rk, const __m128i* v,
                           const uint8_t* const* in, uint8_t* const* out,
                           int n) {
  for (int at = 0; at < n; at += 8) {
    WithCount8(n - at, Ctr64Call{rk, v + at, in + at, out + at});
  }
}

// A call's key material, each in every lane.
struct KeyVectors {
  __m512i s2v[11], ctr[11];
  __m512i k1, dbl_d;
};
ZG_VAES_INLINE void Spread(const Siv64Keys& k, KeyVectors* kv) {
  BroadcastKeys(k.s2v, kv->s2v);
  BroadcastKeys(k.ctr, kv->ctr);
  kv->k1 = Broadcast(k.k1);
  kv->dbl_d = Broadcast(k.dbl_d);
}

}  // namespace

ZG_VAES void SealSiv64(const Siv64Keys& k, const Siv64Seal* ops, size_t n) {
  KeyVectors kv;
  Spread(k, &kv);
  const int c = static_cast<int>(n);
  const uint8_t* nonce[kVaesSlots];
  const uint8_t* pt[kVaesSlots];
  uint8_t* out[kVaesSlots];
  for (int m = 0; m < c; ++m) {
    nonce[m] = ops[m].nonce;
    pt[m] = ops[m].pt;
    out[m] = ops[m].out + kAesBlock;
  }
  __m512i v[kVaesGroups];
  WithCount8((c + 3) / 4,
             MacSiv64Call{kv.s2v, kv.k1, kv.dbl_d, nonce, pt, c, v});
  __m128i v1[kVaesSlots];
  for (int m = 0; m < c; ++m) {
    v1[m] = LaneOf(v, m);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(ops[m].out), v1[m]);
  }
  Ctr64N(kv.ctr, v1, pt, out, c);
}

ZG_VAES void OpenSiv64(const Siv64Keys& k, const Siv64Open* ops, size_t n,
                       bool* ok) {
  KeyVectors kv;
  Spread(k, &kv);
  const int c = static_cast<int>(n);
  const uint8_t* nonce[kVaesSlots];
  const uint8_t* ct[kVaesSlots];
  uint8_t* pt[kVaesSlots];
  __m128i v1[kVaesSlots];
  for (int m = 0; m < c; ++m) {
    nonce[m] = ops[m].nonce;
    ct[m] = ops[m].in + kAesBlock;
    pt[m] = ops[m].pt;
    // V before an in-place decryption.
    v1[m] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ops[m].in));
  }
  Ctr64N(kv.ctr, v1, ct, pt, c);
  __m512i v[kVaesGroups];
  WithCount8((c + 3) / 4,
             MacSiv64Call{kv.s2v, kv.k1, kv.dbl_d, nonce, pt, c, v});
  for (int m = 0; m < c; ++m) {
    const __m128i diff = _mm_xor_si128(LaneOf(v, m), v1[m]);
    ok[m] = _mm_testz_si128(diff, diff) != 0;  // constant time
  }
}

}  // namespace zg::core::vaes

#endif  // ZG_HAVE_AESNI
