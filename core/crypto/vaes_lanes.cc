// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/vaes_lanes.h"

#ifdef ZG_HAVE_AESNI

#include <immintrin.h>

#include <cstdint>

#include "core/crypto/vaes_inl.h"

namespace zg::core::vaes {
namespace {

using aesni::CtrJob;
using aesni::Keys;
using aesni::MacLane;

// Round key r of four key schedules, one per lane (one broadcast where
// they are the same schedule).
ZG_VAES_INLINE void GatherKeys(const Keys* const* k, __m512i* rk) {
  if (k[0] == k[1] && k[0] == k[2] && k[0] == k[3]) {
    for (int r = 0; r < 11; ++r) rk[r] = Broadcast(k[0]->k[r]);
    return;
  }
  for (int r = 0; r < 11; ++r) {
    __m512i v = _mm512_castsi128_si512(k[0]->k[r]);
    v = _mm512_inserti32x4(v, k[1]->k[r], 1);
    v = _mm512_inserti32x4(v, k[2]->k[r], 2);
    rk[r] = _mm512_inserti32x4(v, k[3]->k[r], 3);
  }
}

// A MacBatch whose chains all absorb at least this many blocks of their
// own runs those steps first, without the per-step bookkeeping.
inline constexpr size_t kMinUniformSteps = 16;

// Rounds 1..9 of y[0..NG), vector g under rk[g] (KV == NG) or all under
// rk[0] (KV == 1).
template <int NG, int KV>
ZG_VAES_INLINE void MiddleRounds(__m512i* y, const __m512i (*rk)[11]) {
  for (int r = 1; r < 10; ++r) {
    for (int g = 0; g < NG; ++g) {
      y[g] = _mm512_aesenc_epi128(y[g], rk[KV == 1 ? 0 : g][r]);
    }
  }
}

// Chains l[0..count) (count <= 4 * NG, every one with steps), chain j in
// lane j % 4 of vector j / 4, all NG vectors stepped together until the
// longest chain ends; a chain that has ended keeps its x (masked), so
// chains of like lengths side by side waste least. Lanes past count run
// lane 0's chain again and are dropped. Chains are shorter than 2^32
// blocks (packets).
template <int NG, bool kShared>
ZG_VAES_INLINE void MacBatch(MacLane* const* l, int count) {
  constexpr int kSlots = 4 * NG;
  // Slot arrays padded to whole vectors of 8, updated 8 at a time.
  constexpr int kPadded = (kSlots + 7) / 8 * 8;
  __m512i x[NG], steps[NG];
  // Round keys per vector; kShared (one key for the whole batch): vector
  // 0's serve every vector.
  constexpr int kKeyVectors = kShared ? 1 : NG;
  __m512i rk[kKeyVectors][11];
  if constexpr (kShared) {
    for (int r = 0; r < 11; ++r) rk[0][r] = Broadcast(l[0]->keys->k[r]);
  }
  alignas(64) const uint8_t* src[kPadded];  // the block each chain absorbs next
  alignas(64) const uint8_t* last[kPadded];  // &lane->last
  alignas(64) size_t raw[kPadded];
  uint32_t max_steps = 0;
  size_t min_raw = SIZE_MAX;  // of the chains whose lanes are stepped
  // Lane q of every vector: steps[g]'s 32-bit element g * 4 + q.
  const __m512i spread =
      _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
  for (int g = 0; g < NG; ++g) {
    const MacLane* q[4];
    for (int i = 0; i < 4; ++i) q[i] = l[4 * g + i < count ? 4 * g + i : 0];
    const Keys* k[4] = {q[0]->keys, q[1]->keys, q[2]->keys, q[3]->keys};
    if constexpr (!kShared) GatherKeys(k, rk[g]);
    __m512i v = _mm512_castsi128_si512(q[0]->x);
    v = _mm512_inserti32x4(v, q[1]->x, 1);
    v = _mm512_inserti32x4(v, q[2]->x, 2);
    x[g] = _mm512_inserti32x4(v, q[3]->x, 3);
    uint32_t st[4];
    for (int i = 0; i < 4; ++i) {
      const int j = 4 * g + i;
      st[i] = j < count ? static_cast<uint32_t>(q[i]->steps) : 0;
      if (st[i] > max_steps) max_steps = st[i];
      last[j] = reinterpret_cast<const uint8_t*>(&q[i]->last);
      raw[j] = q[i]->raw;
      if (raw[j] < min_raw) min_raw = raw[j];
      src[j] = q[i]->raw != 0 ? q[i]->p : last[j];
    }
    steps[g] = _mm512_maskz_permutexvar_epi32(
        kAll, spread,
        _mm512_castsi128_si512(
            _mm_set_epi32(static_cast<int>(st[3]), static_cast<int>(st[2]),
                          static_cast<int>(st[1]), static_cast<int>(st[0]))));
  }
  for (int j = kSlots; j < kPadded; ++j) {
    src[j] = last[j] = last[0];
    raw[j] = 0;
  }
  // While every chain still absorbs its own blocks, block s of each is at
  // src + 16 s and none ends: those steps skip the per-step bookkeeping.
  // Worth it for long chains only (a burst's request authenticators and
  // replies, 50 blocks and more with 8 cookies): for short ones the extra
  // pass cost more than it saved (aes_siv_benchmark's batches of 32).
  const size_t uniform = min_raw >= kMinUniformSteps ? min_raw : 0;
  for (size_t s = 0; s < uniform; ++s) {
    __m512i y[NG];
    for (int g = 0; g < NG; ++g) {
      const uint8_t* p[4] = {src[4 * g] + 16 * s, src[4 * g + 1] + 16 * s,
                             src[4 * g + 2] + 16 * s, src[4 * g + 3] + 16 * s};
      y[g] = _mm512_xor_si512(
          x[g], _mm512_xor_si512(Load4(p), rk[kShared ? 0 : g][0]));
    }
    MiddleRounds<NG, kKeyVectors>(y, rk);
    for (int g = 0; g < NG; ++g)
      x[g] = _mm512_aesenclast_epi128(y[g], rk[kShared ? 0 : g][10]);
  }
  if (uniform != 0) {
    for (int j = 0; j < kSlots; ++j) {
      src[j] = raw[j] > uniform ? src[j] + 16 * uniform : last[j];
    }
  }
  // The chains' next block pointers, 8 a vector, kept in registers.
  constexpr int kPtrVectors = kPadded / 8;
  __m512i at[kPtrVectors];
  for (int v = 0; v < kPtrVectors; ++v) at[v] = _mm512_load_si512(&src[8 * v]);
  for (uint32_t s = static_cast<uint32_t>(uniform); s < max_steps; ++s) {
    __m512i y[NG];
    for (int g = 0; g < NG; ++g) {
      // Vector g's four pointers: qwords 4 * (g % 2) .. + 3 of at[g / 2].
      __m128i lo, hi;
      if (g % 2 == 0) {
        lo = Extract<0>(at[g / 2]);
        hi = Extract<1>(at[g / 2]);
      } else {
        lo = Extract<2>(at[g / 2]);
        hi = Extract<3>(at[g / 2]);
      }
      const uint8_t* p[4] = {
          reinterpret_cast<const uint8_t*>(_mm_cvtsi128_si64(lo)),
          reinterpret_cast<const uint8_t*>(_mm_extract_epi64(lo, 1)),
          reinterpret_cast<const uint8_t*>(_mm_cvtsi128_si64(hi)),
          reinterpret_cast<const uint8_t*>(_mm_extract_epi64(hi, 1))};
      y[g] = _mm512_xor_si512(
          x[g], _mm512_xor_si512(Load4(p), rk[kShared ? 0 : g][0]));
    }
    MiddleRounds<NG, kKeyVectors>(y, rk);
    const __m512i next = _mm512_set1_epi64(static_cast<int64_t>(s) + 1);
    const __m512i block = _mm512_set1_epi64(16);
    for (int v = 0; v < kPtrVectors; ++v) {
      const __mmask8 more =
          _mm512_cmpgt_epu64_mask(_mm512_load_si512(&raw[8 * v]), next);
      at[v] = _mm512_mask_add_epi64(_mm512_load_si512(&last[8 * v]), more,
                                    at[v], block);
    }
    const __m512i now = _mm512_set1_epi32(static_cast<int>(s));
    for (int g = 0; g < NG; ++g) {
      y[g] = _mm512_aesenclast_epi128(y[g], rk[kShared ? 0 : g][10]);
      x[g] = _mm512_mask_mov_epi32(x[g], _mm512_cmpgt_epu32_mask(steps[g], now),
                                   y[g]);
    }
  }

  for (int g = 0; g < NG; ++g) {
    const int j = 4 * g;
    if (j < count) l[j]->x = Extract<0>(x[g]);
    if (j + 1 < count) l[j + 1]->x = Extract<1>(x[g]);
    if (j + 2 < count) l[j + 2]->x = Extract<2>(x[g]);
    if (j + 3 < count) l[j + 3]->x = Extract<3>(x[g]);
  }
}

// MacBatch's arguments, for WithCount8.
template <bool kShared>
struct MacBatchCall {
  MacLane* const* batch;
  int count;
  template <int NG>
  ZG_VAES_INLINE void Run() const {
    MacBatch<NG, kShared>(batch, count);
  }
};

template <bool kShared>
ZG_VAES_INLINE void MacBatchN(MacLane* const* batch, int count) {
  static_assert(kVaesGroups == 8);
  WithCount8((count + 3) / 4, MacBatchCall<kShared>{batch, count});
}

// Chains batch[0..count) under one key or several.
ZG_VAES_INLINE void MacBatchAny(MacLane* const* batch, int count) {
  bool shared = true;
  for (int j = 1; j < count; ++j) {
    shared = shared && batch[j]->keys == batch[0]->keys;
  }
  if (shared) return MacBatchN<true>(batch, count);
  MacBatchN<false>(batch, count);
}

}  // namespace

ZG_VAES void RunMacLanes(MacLane* lanes, size_t n) {
  MacLane* batch[kVaesSlots];
  int count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (lanes[i].steps == 0) continue;  // keeps its x
    batch[count++] = &lanes[i];
    if (count == kVaesSlots) {
      MacBatchAny(batch, count);
      count = 0;
    }
  }
  if (count != 0) MacBatchAny(batch, count);
}

namespace {

// Keystream vectors gathered across jobs: four counter blocks of one job
// each, kVaesGroups of them encrypted together, each under its job's
// round keys (broadcast as the rounds take them).
struct CtrVectors {
  __m512i x[kVaesGroups];
  const Keys* keys[kVaesGroups];
  const uint8_t* in[kVaesGroups];
  uint8_t* out[kVaesGroups];
  size_t bytes[kVaesGroups];  // 1..64
  int m = 0;
};

template <int NG>
ZG_VAES_INLINE void EncCtr(CtrVectors& c) {
  __m512i y[NG];
  for (int g = 0; g < NG; ++g) {
    y[g] = _mm512_xor_si512(c.x[g], Broadcast(c.keys[g]->k[0]));
  }
  for (int r = 1; r < 10; ++r) {
    for (int g = 0; g < NG; ++g) {
      y[g] = _mm512_aesenc_epi128(y[g], Broadcast(c.keys[g]->k[r]));
    }
  }
  for (int g = 0; g < NG; ++g) {
    c.x[g] = _mm512_aesenclast_epi128(y[g], Broadcast(c.keys[g]->k[10]));
  }
}

// EncCtr for WithCount8.
struct EncCtrCall {
  CtrVectors& c;
  template <int NG>
  ZG_VAES_INLINE void Run() const {
    EncCtr<NG>(c);
  }
};

ZG_VAES_INLINE void FlushCtr(CtrVectors& c) {
  static_assert(kVaesGroups == 8);
  WithCount8(c.m, EncCtrCall{c});
  for (int g = 0; g < c.m; ++g) {
    if (c.bytes[g] == 64) {
      __m512i v = c.x[g];
      if (c.in[g] != nullptr) {
        v = _mm512_xor_si512(v, _mm512_loadu_si512(c.in[g]));
      }
      _mm512_storeu_si512(c.out[g], v);
      continue;
    }
    // Masked: neither reads nor writes a byte past the job's end.
    const __mmask64 m = (uint64_t{1} << c.bytes[g]) - 1;
    __m512i v = c.x[g];
    if (c.in[g] != nullptr) {
      v = _mm512_xor_si512(v, _mm512_maskz_loadu_epi8(m, c.in[g]));
    }
    _mm512_mask_storeu_epi8(c.out[g], m, v);
  }
  c.m = 0;
}

}  // namespace

ZG_VAES void RunCtr(const CtrJob* jobs, size_t n) {
  CtrVectors c;
  for (size_t i = 0; i < n; ++i) {
    const CtrJob& job = jobs[i];
    __m512i le = CtrStart(job.ctr);
    size_t off = 0;
    // A long job's whole runs of eight vectors (a reply's cookies) under
    // its own keys, broadcast once, without the gathering below.
    if (job.len >= 8 * 64) {
      __m512i rk[11];
      BroadcastKeys(job.keys, rk);
      for (; job.len - off >= 8 * 64; off += 8 * 64) {
        __m512i y[8];
        for (int g = 0; g < 8; ++g) {
          y[g] = CtrBlocks(le);
          le = CtrNext(le);
        }
        EncShared<8>(y, rk);
        for (int g = 0; g < 8; ++g) {
          const size_t at = off + 64 * g;
          if (job.in != nullptr) {
            y[g] = _mm512_xor_si512(y[g], _mm512_loadu_si512(job.in + at));
          }
          _mm512_storeu_si512(job.out + at, y[g]);
        }
      }
    }
    for (; off < job.len; off += 64) {
      const int g = c.m;
      c.x[g] = CtrBlocks(le);
      le = CtrNext(le);
      c.keys[g] = job.keys;
      c.in[g] = job.in != nullptr ? job.in + off : nullptr;
      c.out[g] = job.out + off;
      c.bytes[g] = job.len - off < 64 ? job.len - off : 64;
      if (++c.m == kVaesGroups) FlushCtr(c);
    }
  }
  if (c.m != 0) FlushCtr(c);
}

namespace {

// aesni::ExpandStep on four keys, one per lane.
ZG_VAES_INLINE __m512i ExpandStep4(__m512i key, int rcon) {
  const __m512i rot = _mm512_set1_epi32(0x0c0f0e0d);
  const __m512i t = _mm512_aesenclast_epi128(_mm512_shuffle_epi8(key, rot),
                                             _mm512_set1_epi32(rcon));
  key = _mm512_xor_si512(key, _mm512_bslli_epi128(key, 4));
  key = _mm512_xor_si512(key, _mm512_bslli_epi128(key, 4));
  key = _mm512_xor_si512(key, _mm512_bslli_epi128(key, 4));
  return _mm512_xor_si512(key, t);
}

// Lane i of v to rk[i] + 16 * r for the lanes i < n.
ZG_VAES_INLINE void StoreLanes(__m512i v, uint8_t* const* rk, size_t n, int r) {
  auto at = [&](size_t i) {
    return reinterpret_cast<__m128i*>(rk[i] + 16 * r);
  };
  _mm_store_si128(at(0), Extract<0>(v));
  if (n > 1) _mm_store_si128(at(1), Extract<1>(v));
  if (n > 2) _mm_store_si128(at(2), Extract<2>(v));
  if (n > 3) _mm_store_si128(at(3), Extract<3>(v));
}

}  // namespace

namespace {

// Keys key[0..n) (n <= 4 * NV), four a vector, key 0 again in the lanes
// past n.
template <int NV>
ZG_VAES_INLINE void ExpandVectors(const uint8_t* const* key, uint8_t* const* rk,
                                  size_t n) {
  static constexpr int kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                    0x20, 0x40, 0x80, 0x1b, 0x36};
  __m512i k[NV];
  size_t lanes[NV];
  for (int v = 0; v < NV; ++v) {
    const uint8_t* at[4];
    for (size_t i = 0; i < 4; ++i) {
      at[i] = key[4 * v + i < n ? 4 * v + i : 0];
    }
    k[v] = Load4(at);
    lanes[v] = n - 4 * v < 4 ? n - 4 * v : 4;
    StoreLanes(k[v], rk + 4 * v, lanes[v], 0);
  }
  for (int r = 1; r < 11; ++r) {
    for (int v = 0; v < NV; ++v) {
      k[v] = ExpandStep4(k[v], kRcon[r - 1]);
      StoreLanes(k[v], rk + 4 * v, lanes[v], r);
    }
  }
}

}  // namespace

ZG_VAES void ExpandKeys(const uint8_t* const* key, uint8_t* const* rk,
                        size_t n) {
  switch ((n + 3) / 4) {
    case 0:
      return;
    case 1:
      return ExpandVectors<1>(key, rk, n);
    case 2:
      return ExpandVectors<2>(key, rk, n);
    case 3:
      return ExpandVectors<3>(key, rk, n);
    default:
      return ExpandVectors<4>(key, rk, n);
  }
}

}  // namespace zg::core::vaes

#endif  // ZG_HAVE_AESNI
