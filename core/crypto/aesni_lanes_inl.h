// SPDX-License-Identifier: Apache-2.0
// AES-NI lane engine for core/crypto's .cc files only (aes_siv.cc,
// aes_cmac.cc): many independent CBC-MAC chains (the CMACs of S2V, NTP's
// AES-CMAC) and CTR keystream blocks, each under its own AES-128 key,
// encrypted up to kLaneWidth at a time in lock step. One chain is
// latency-bound (each block waits for the one before: about 40 cycles);
// eight independent ones fill the AES unit's pipeline, so a burst's
// requests, or a reply's cookies, cost about what one costs alone.
//
//   MacLane lanes[n] = {...};       // keys, blocks, chaining value
//   RunMacLanes(lanes, n);          // lanes[i].x: each chain's result
//   CtrJob jobs[m] = {...};
//   RunCtr(jobs, m);
#ifndef ZG_CORE_CRYPTO_AESNI_LANES_INL_H_
#define ZG_CORE_CRYPTO_AESNI_LANES_INL_H_

#include "core/crypto/aesni_inl.h"

#ifdef ZG_HAVE_AESNI

#include <cstring>

namespace zg::core::aesni {

// Blocks in flight: enough to hide aesenc's latency (4 cycles, 1-2 issued
// a cycle on the cores we run on), few enough for the 16 xmm registers.
inline constexpr int kLaneWidth = 8;

// The expanded key at rk (kAes128RoundKeyBytes, 16-byte aligned), as Keys.
ZG_AESNI_INLINE const Keys* KeysAt(const uint8_t* rk) {
  return reinterpret_cast<const Keys*>(rk);
}

// b[j] encrypted under *k[j], N blocks in lock step.
template <int N>
ZG_AESNI_INLINE void EncLanes(__m128i* b, const Keys* const* k) {
  for (int j = 0; j < N; ++j) b[j] = _mm_xor_si128(b[j], k[j]->k[0]);
  for (int r = 1; r < 10; ++r) {
    for (int j = 0; j < N; ++j) b[j] = _mm_aesenc_si128(b[j], k[j]->k[r]);
  }
  for (int j = 0; j < N; ++j) b[j] = _mm_aesenclast_si128(b[j], k[j]->k[10]);
}

ZG_AESNI_INLINE void EncLanesN(__m128i* b, const Keys* const* k, int n) {
  switch (n) {
    case 1:
      return EncLanes<1>(b, k);
    case 2:
      return EncLanes<2>(b, k);
    case 3:
      return EncLanes<3>(b, k);
    case 4:
      return EncLanes<4>(b, k);
    case 5:
      return EncLanes<5>(b, k);
    case 6:
      return EncLanes<6>(b, k);
    case 7:
      return EncLanes<7>(b, k);
    default:
      return EncLanes<8>(b, k);
  }
}

// A padded final block: p[0..n) (n < 16), 0x80, zeros.
ZG_AESNI_INLINE __m128i PaddedBlock(const uint8_t* p, size_t n) {
  alignas(16) uint8_t b[16] = {0};
  if (n != 0) std::memcpy(b, p, n);
  b[n] = 0x80;
  return _mm_load_si128(reinterpret_cast<const __m128i*>(b));
}

// One CBC-MAC chain: `raw` blocks read at p absorbed as they are, then
// (when steps == raw + 1) the final block `last`, already padded and xored
// with its subkey. x: the chaining value, its start, then the result.
struct MacLane {
  const Keys* keys;
  const uint8_t* p;
  size_t raw;
  size_t steps;
  __m128i last;
  __m128i x;
};

// The lane of CMAC_keys(m[0..len)) (RFC 4493), subkeys k1 (complete last
// block) and k2 (padded), from a zero chaining value.
ZG_AESNI_INLINE MacLane CmacLane(const Keys* keys, const uint8_t* m, size_t len,
                                 __m128i k1, __m128i k2) {
  MacLane l;
  const size_t nblocks = len == 0 ? 1 : (len + 15) / 16;
  l.keys = keys;
  l.p = m;
  l.raw = nblocks - 1;
  l.steps = nblocks;
  const size_t tail = len - 16 * l.raw;
  l.last = tail == 16 ? _mm_xor_si128(Load(m + 16 * l.raw), k1)
                      : _mm_xor_si128(PaddedBlock(m + 16 * l.raw, tail), k2);
  l.x = _mm_setzero_si128();
  return l;
}

// Runs lanes[0..n) to their ends, kLaneWidth at a time: a lane that ends
// gives its place to the next one, so long and short chains share the
// pipeline. A lane of 0 steps keeps its x.
ZG_AESNI_INLINE void RunMacLanes(MacLane* lanes, size_t n) {
  MacLane* slot[kLaneWidth];
  size_t step[kLaneWidth];
  int active = 0;
  size_t next = 0;
  auto refill = [&](int j) {
    while (next < n) {
      MacLane* l = &lanes[next++];
      if (l->steps == 0) continue;
      slot[j] = l;
      step[j] = 0;
      return true;
    }
    return false;
  };
  while (active < kLaneWidth && refill(active)) ++active;
  while (active > 0) {
    __m128i b[kLaneWidth];
    const Keys* k[kLaneWidth];
    for (int j = 0; j < active; ++j) {
      const MacLane& l = *slot[j];
      const __m128i m = step[j] < l.raw ? Load(l.p + 16 * step[j]) : l.last;
      b[j] = _mm_xor_si128(l.x, m);
      k[j] = l.keys;
    }
    EncLanesN(b, k, active);
    for (int j = 0; j < active; ++j) {
      slot[j]->x = b[j];
      ++step[j];
    }
    for (int j = 0; j < active;) {
      if (step[j] < slot[j]->steps || refill(j)) {
        ++j;
        continue;
      }
      --active;
      slot[j] = slot[active];
      step[j] = step[active];
    }
  }
}

// out[0..len) = in ^ E_keys(ctr), E_keys(ctr + 1), ... (in == nullptr: the
// keystream); ctr a big-endian block whose low 64 bits count.
struct CtrJob {
  const Keys* keys;
  __m128i ctr;
  const uint8_t* in;
  uint8_t* out;
  size_t len;
};

// Keystream blocks gathered across jobs, encrypted kLaneWidth at a time.
struct CtrBatch {
  __m128i b[kLaneWidth];
  const Keys* k[kLaneWidth];
  const uint8_t* in[kLaneWidth];
  uint8_t* out[kLaneWidth];
  size_t bytes[kLaneWidth];
  int m = 0;
};

ZG_AESNI_INLINE void FlushCtr(CtrBatch& c) {
  EncLanesN(c.b, c.k, c.m);
  for (int j = 0; j < c.m; ++j) {
    if (c.bytes[j] == 16) {
      Store(c.out[j],
            c.in[j] != nullptr ? _mm_xor_si128(c.b[j], Load(c.in[j])) : c.b[j]);
      continue;
    }
    alignas(16) uint8_t ks[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(ks), c.b[j]);
    for (size_t i = 0; i < c.bytes[j]; ++i) {
      c.out[j][i] =
          static_cast<uint8_t>((c.in[j] != nullptr ? c.in[j][i] : 0) ^ ks[i]);
    }
  }
  c.m = 0;
}

// Every job's keystream, kLaneWidth blocks at a time across jobs.
ZG_AESNI_INLINE void RunCtr(const CtrJob* jobs, size_t n) {
  CtrBatch c;
  for (size_t i = 0; i < n; ++i) {
    const CtrJob& job = jobs[i];
    const __m128i le = ByteSwap(job.ctr);
    for (size_t off = 0, block = 0; off < job.len; off += 16, ++block) {
      c.b[c.m] = CtrBlock(le, block);
      c.k[c.m] = job.keys;
      c.in[c.m] = job.in != nullptr ? job.in + off : nullptr;
      c.out[c.m] = job.out + off;
      c.bytes[c.m] = job.len - off < 16 ? job.len - off : 16;
      if (++c.m == kLaneWidth) FlushCtr(c);
    }
  }
  if (c.m != 0) FlushCtr(c);
}

}  // namespace zg::core::aesni

#endif  // ZG_HAVE_AESNI
#endif  // ZG_CORE_CRYPTO_AESNI_LANES_INL_H_
