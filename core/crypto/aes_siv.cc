// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/aes_siv.h"

#include <cstring>

#include "core/crypto/aes_block.h"
#include "core/crypto/aesni_inl.h"

namespace zg::core {
namespace {

// --- Portable path ----------------------------------------------------------

void DblPortable(const uint8_t* in, uint8_t* out) {
  const uint8_t msb = in[0] >> 7;
  for (int i = 0; i < 15; ++i) {
    out[i] = static_cast<uint8_t>((in[i] << 1) | (in[i + 1] >> 7));
  }
  out[15] = static_cast<uint8_t>((in[15] << 1) ^ (0x87 * msb));
}

// CMAC_K(M) (RFC 4493) with `tail`, when not null, xored into the last 16
// bytes of M first (S2V's xorend; then len >= 16).
void CmacPortable(const uint8_t* rk, const uint8_t* k1, const uint8_t* k2,
                  const uint8_t* m, size_t len, const uint8_t* tail,
                  uint8_t* mac) {
  const size_t nblocks = len == 0 ? 1 : (len + 15) / 16;
  const size_t tail_at = tail != nullptr ? len - 16 : len;
  uint8_t x[16] = {0};
  for (size_t b = 0; b < nblocks; ++b) {
    const bool last = b + 1 == nblocks;
    const bool complete = len != 0 && len % 16 == 0;
    for (size_t i = 0; i < 16; ++i) {
      const size_t at = 16 * b + i;
      uint8_t byte = 0;
      if (at < len) {
        byte = m[at];
        if (at >= tail_at)
          byte = static_cast<uint8_t>(byte ^ tail[at - tail_at]);
      } else if (at == len) {
        byte = 0x80;
      }
      if (last) byte = static_cast<uint8_t>(byte ^ (complete ? k1[i] : k2[i]));
      x[i] = static_cast<uint8_t>(x[i] ^ byte);
    }
    aes::EncryptBlockPortable(rk, x, x);
  }
  std::memcpy(mac, x, 16);
}

struct SivKeys {
  const uint8_t* s2v_rk;
  const uint8_t* ctr_rk;
  const uint8_t* k1;
  const uint8_t* k2;
  const uint8_t* zero;
};

// RFC 5297 S2V over ad[0..n) then the plaintext.
void S2vPortable(const SivKeys& k, std::span<const AesSivInput> ad,
                 const uint8_t* pt, size_t len, uint8_t* v) {
  uint8_t d[16], mac[16];
  std::memcpy(d, k.zero, 16);
  for (const AesSivInput& c : ad) {
    CmacPortable(k.s2v_rk, k.k1, k.k2, c.data, c.len, nullptr, mac);
    DblPortable(d, d);
    for (int i = 0; i < 16; ++i) d[i] = static_cast<uint8_t>(d[i] ^ mac[i]);
  }
  if (len >= 16) {
    CmacPortable(k.s2v_rk, k.k1, k.k2, pt, len, d, v);
    return;
  }
  uint8_t t[16] = {0};
  DblPortable(d, d);
  if (len != 0) std::memcpy(t, pt, len);
  t[len] = 0x80;
  for (int i = 0; i < 16; ++i) t[i] = static_cast<uint8_t>(t[i] ^ d[i]);
  CmacPortable(k.s2v_rk, k.k1, k.k2, t, 16, nullptr, v);
}

// The CTR counter: V with bits 63 and 31 (of the 128-bit block) cleared.
void SivCounter(const uint8_t* v, uint8_t* q) {
  std::memcpy(q, v, 16);
  q[8] &= 0x7f;
  q[12] &= 0x7f;
}

bool TagsEqual(const uint8_t* a, const uint8_t* b) {
  uint8_t diff = 0;
  for (int i = 0; i < 16; ++i)
    diff = static_cast<uint8_t>(diff | (a[i] ^ b[i]));
  // Keep the compiler from turning the OR chain into an early exit.
  __asm__("" : "+r"(diff));
  return diff == 0;
}

#ifdef ZG_HAVE_AESNI

// --- AES-NI path: S2V's CMACs in lock step ---------------------------------

// One CMAC being computed: `raw` blocks at p absorbed as they are, then (when
// has_last) the final block `last`, already padded and xored with its
// subkey. x is the chaining value.
struct Lane {
  const uint8_t* p;
  size_t raw;
  size_t steps;  // raw + has_last
  __m128i last;
  __m128i x;
};

ZG_AESNI_INLINE __m128i PaddedBlock(const uint8_t* p, size_t n) {
  alignas(16) uint8_t b[16] = {0};
  if (n != 0) std::memcpy(b, p, n);
  b[n] = 0x80;
  return _mm_load_si128(reinterpret_cast<const __m128i*>(b));
}

// The final block of CMAC over m[0..len): its last (possibly empty) block,
// xored with K1 when complete, else padded and xored with K2.
ZG_AESNI_INLINE Lane CmacLane(const uint8_t* m, size_t len, __m128i k1,
                              __m128i k2) {
  Lane l;
  const size_t nblocks = len == 0 ? 1 : (len + 15) / 16;
  l.p = m;
  l.raw = nblocks - 1;
  l.steps = nblocks;
  const size_t tail = len - 16 * l.raw;
  l.last = tail == 16 ? _mm_xor_si128(aesni::Load(m + 16 * l.raw), k1)
                      : _mm_xor_si128(PaddedBlock(m + 16 * l.raw, tail), k2);
  l.x = _mm_setzero_si128();
  return l;
}

ZG_AESNI_INLINE __m128i LaneInput(const Lane& l, size_t step) {
  const __m128i m = step < l.raw ? aesni::Load(l.p + 16 * step) : l.last;
  return _mm_xor_si128(l.x, m);
}

// Runs every lane to its end, the lanes of a step encrypted together.
ZG_AESNI_INLINE void RunLanes(Lane* lanes, size_t n, const aesni::Keys& k) {
  size_t max_steps = 0;
  for (size_t i = 0; i < n; ++i) {
    if (lanes[i].steps > max_steps) max_steps = lanes[i].steps;
  }
  for (size_t s = 0; s < max_steps; ++s) {
    Lane* active[kAesSivMaxComponents + 1];
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      if (s < lanes[i].steps) active[m++] = &lanes[i];
    }
    for (size_t g = 0; g < m; g += 4) {
      if (m - g == 1) {
        active[g]->x = aesni::Enc1(LaneInput(*active[g], s), k);
        continue;
      }
      __m128i b[4];
      for (size_t j = 0; j < 4; ++j) {
        b[j] = g + j < m ? LaneInput(*active[g + j], s) : _mm_setzero_si128();
      }
      aesni::EncN<4>(b, k);
      for (size_t j = 0; j < 4 && g + j < m; ++j) active[g + j]->x = b[j];
    }
  }
}

ZG_AESNI_INLINE __m128i S2vNi(const SivKeys& sk, const aesni::Keys& k,
                              std::span<const AesSivInput> ad,
                              const uint8_t* pt, size_t len) {
  const __m128i k1 = _mm_load_si128(reinterpret_cast<const __m128i*>(sk.k1));
  const __m128i k2 = _mm_load_si128(reinterpret_cast<const __m128i*>(sk.k2));
  Lane lanes[kAesSivMaxComponents + 1];
  size_t n = 0;
  for (const AesSivInput& c : ad) lanes[n++] = CmacLane(c.data, c.len, k1, k2);
  // The plaintext's blocks before its last 16 bytes do not depend on D:
  // their CMAC chain runs with the AD lanes.
  const size_t prefix = len >= 16 ? (len - 16) / 16 : 0;
  Lane* pl = &lanes[n];
  pl->p = pt;
  pl->raw = prefix;
  pl->steps = prefix;
  pl->x = _mm_setzero_si128();
  RunLanes(lanes, n + 1, k);

  __m128i d = _mm_load_si128(reinterpret_cast<const __m128i*>(sk.zero));
  for (size_t i = 0; i < n; ++i) d = _mm_xor_si128(aesni::Dbl(d), lanes[i].x);

  __m128i x = pl->x;
  if (len < 16) {
    const __m128i t = _mm_xor_si128(aesni::Dbl(d), PaddedBlock(pt, len));
    x = aesni::Enc1(_mm_xor_si128(t, k1), k);
  } else {
    // T's blocks from `prefix` on: the rest of pt with D xored into its
    // last 16 bytes (16..31 bytes: one complete block, or two with a
    // partial last one).
    const size_t rest = len - 16 * prefix;
    alignas(16) uint8_t t[48] = {0};
    std::memcpy(t, pt + 16 * prefix, rest);
    const __m128i end = _mm_xor_si128(aesni::Load(t + rest - 16), d);
    aesni::Store(t + rest - 16, end);
    if (rest == 16) {
      x = aesni::Enc1(_mm_xor_si128(x, _mm_xor_si128(aesni::Load(t), k1)), k);
    } else {
      x = aesni::Enc1(_mm_xor_si128(x, aesni::Load(t)), k);
      const __m128i last = _mm_xor_si128(PaddedBlock(t + 16, rest - 16), k2);
      x = aesni::Enc1(_mm_xor_si128(x, last), k);
    }
  }
  return x;
}

// V with bits 63 and 31 cleared: the CTR counter.
ZG_AESNI_INLINE __m128i SivCounterNi(__m128i v) {
  // Bit 7 of bytes 8 and 12: the lowest bytes of 32-bit lanes 2 and 3.
  const int clear = static_cast<int>(0xffffff7fu);
  return _mm_and_si128(v, _mm_set_epi32(clear, clear, -1, -1));
}

ZG_AESNI void SealNi(const SivKeys& sk, std::span<const AesSivInput> ad,
                     const uint8_t* pt, size_t len, uint8_t* out) {
  aesni::Keys k;
  aesni::LoadKeys(sk.s2v_rk, &k);
  const __m128i v = S2vNi(sk, k, ad, pt, len);
  aesni::LoadKeys(sk.ctr_rk, &k);
  aesni::Store(out, v);
  aesni::Ctr(k, SivCounterNi(v), pt, out + 16, len);
}

ZG_AESNI bool OpenNi(const SivKeys& sk, std::span<const AesSivInput> ad,
                     const uint8_t* in, size_t len, uint8_t* pt) {
  aesni::Keys k;
  aesni::LoadKeys(sk.ctr_rk, &k);
  const __m128i v = aesni::Load(in);  // before an in-place decryption
  aesni::Ctr(k, SivCounterNi(v), in + 16, pt, len);
  aesni::LoadKeys(sk.s2v_rk, &k);
  const __m128i diff = _mm_xor_si128(S2vNi(sk, k, ad, pt, len), v);
  return _mm_testz_si128(diff, diff) != 0;  // constant time
}

// SetKey: both schedules, L = E_K1(0), the CMAC subkeys L·x and L·x², and
// CMAC_K1(0^128) = E_K1(L·x).
ZG_AESNI void SetKeyNi(const uint8_t* key, uint8_t* s2v_rk, uint8_t* ctr_rk,
                       uint8_t* k1, uint8_t* k2, uint8_t* zero) {
  aesni::Keys a, b;
  aesni::ExpandTwo(key, &a, &b);
  for (int i = 0; i < 11; ++i) {
    _mm_store_si128(reinterpret_cast<__m128i*>(s2v_rk) + i, a.k[i]);
    _mm_store_si128(reinterpret_cast<__m128i*>(ctr_rk) + i, b.k[i]);
  }
  const __m128i l = aesni::Enc1(_mm_setzero_si128(), a);
  const __m128i s1 = aesni::Dbl(l);
  _mm_store_si128(reinterpret_cast<__m128i*>(k1), s1);
  _mm_store_si128(reinterpret_cast<__m128i*>(k2), aesni::Dbl(s1));
  _mm_store_si128(reinterpret_cast<__m128i*>(zero), aesni::Enc1(s1, a));
}

#endif  // ZG_HAVE_AESNI

}  // namespace

AesSiv::AesSiv() {
  std::memset(s2v_rk_, 0, sizeof(s2v_rk_));
  std::memset(ctr_rk_, 0, sizeof(ctr_rk_));
  std::memset(cmac_k1_, 0, sizeof(cmac_k1_));
  std::memset(cmac_k2_, 0, sizeof(cmac_k2_));
  std::memset(s2v_zero_, 0, sizeof(s2v_zero_));
}

void AesSiv::SetKey(const uint8_t* key) {
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    return SetKeyNi(key, s2v_rk_, ctr_rk_, cmac_k1_, cmac_k2_, s2v_zero_);
  }
#endif
  aes::ExpandKey128Portable(key, s2v_rk_);
  aes::ExpandKey128Portable(key + 16, ctr_rk_);
  uint8_t l[16] = {0};
  aes::EncryptBlockPortable(s2v_rk_, l, l);
  DblPortable(l, cmac_k1_);
  DblPortable(cmac_k1_, cmac_k2_);
  aes::EncryptBlockPortable(s2v_rk_, cmac_k1_, s2v_zero_);
}

bool AesSiv::Seal(std::span<const AesSivInput> ad, const uint8_t* plaintext,
                  size_t len, uint8_t* out) const {
  if (ad.size() > kAesSivMaxComponents) return false;
  const SivKeys k{s2v_rk_, ctr_rk_, cmac_k1_, cmac_k2_, s2v_zero_};
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    SealNi(k, ad, plaintext, len, out);
    return true;
  }
#endif
  uint8_t v[16], q[16];
  S2vPortable(k, ad, plaintext, len, v);
  SivCounter(v, q);
  std::memcpy(out, v, 16);
  aes::Ctr128(ctr_rk_, q, plaintext, out + 16, len);
  return true;
}

bool AesSiv::Open(std::span<const AesSivInput> ad, const uint8_t* in,
                  size_t in_len, uint8_t* plaintext) const {
  if (ad.size() > kAesSivMaxComponents || in_len < kAesSivTagSize) {
    return false;
  }
  const size_t len = in_len - kAesSivTagSize;
  const SivKeys k{s2v_rk_, ctr_rk_, cmac_k1_, cmac_k2_, s2v_zero_};
  bool ok;
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    ok = OpenNi(k, ad, in, len, plaintext);
  } else  // NOLINT(readability/braces)
#endif
  {
    uint8_t v[16], q[16], t[16];
    std::memcpy(v, in, 16);  // before an in-place decryption
    SivCounter(v, q);
    aes::Ctr128(ctr_rk_, q, in + 16, plaintext, len);
    S2vPortable(k, ad, plaintext, len, t);
    ok = TagsEqual(t, v);
  }
  if (!ok && len != 0) std::memset(plaintext, 0, len);
  return ok;
}

bool AesSiv::UsesAesNi() { return aes::UseAesNi(); }

}  // namespace zg::core
