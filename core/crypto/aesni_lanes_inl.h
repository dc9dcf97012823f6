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

// Byte-shuffle tables for padded blocks built in registers: a partial
// block copied to a buffer and loaded back would stall the load (a store
// cannot forward to a wider load), once per message.
//   down[n]  the last n of 16 bytes to the front, zeros after (pshufb)
//   up[n]    the 16 - n first bytes moved up by n, zeros before
//   pad[n]   0x80 at byte n
//   small[n] for 8 <= n < 16: bytes of (p[0..8) || p[n-8..n)) to
//            p[0..n) and zeros; for 4 <= n < 8 the same with
//            (p[0..4) || p[n-4..n) || 0)
struct PadTables {
  alignas(16) uint8_t down[16][16];
  alignas(16) uint8_t up[16][16];
  alignas(16) uint8_t pad[16][16];
  alignas(16) uint8_t small[16][16];
};
inline constexpr PadTables MakePadTables() {
  PadTables t{};
  for (int n = 0; n < 16; ++n) {
    for (int i = 0; i < 16; ++i) {
      t.down[n][i] = static_cast<uint8_t>(i < n ? 16 - n + i : 0x80);
      t.up[n][i] = static_cast<uint8_t>(i >= n ? i - n : 0x80);
      t.pad[n][i] = static_cast<uint8_t>(i == n ? 0x80 : 0);
      uint8_t src = 0x80;
      if (n >= 8 && i < n) src = static_cast<uint8_t>(i < 8 ? i : i + 16 - n);
      if (n >= 4 && n < 8 && i < n) {
        src = static_cast<uint8_t>(i < 4 ? i : i + 8 - n);
      }
      t.small[n][i] = src;
    }
  }
  return t;
}
inline constexpr PadTables kPadTables = MakePadTables();

ZG_AESNI_INLINE __m128i Table(const uint8_t (&row)[16]) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(row));
}

// p[0..n) for n < 16, zeros after, without reading past p + n.
ZG_AESNI_INLINE __m128i LoadShort(const uint8_t* p, size_t n) {
  if (n >= 8) {
    uint64_t lo, hi;
    std::memcpy(&lo, p, 8);
    std::memcpy(&hi, p + n - 8, 8);
    return _mm_shuffle_epi8(
        _mm_set_epi64x(static_cast<int64_t>(hi), static_cast<int64_t>(lo)),
        Table(kPadTables.small[n]));
  }
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return _mm_shuffle_epi8(
        _mm_set_epi32(0, 0, static_cast<int>(hi), static_cast<int>(lo)),
        Table(kPadTables.small[n]));
  }
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t{p[i]} << (8 * i);
  return _mm_cvtsi32_si128(static_cast<int>(v));
}

// The last n < 16 bytes of m[0..len), padded (0x80, zeros): CMAC's
// incomplete final block.
ZG_AESNI_INLINE __m128i PaddedTail(const uint8_t* m, size_t len, size_t n) {
  const __m128i bytes = len >= 16 ? _mm_shuffle_epi8(Load(m + len - 16),
                                                     Table(kPadTables.down[n]))
                                  : LoadShort(m + len - n, n);
  return _mm_or_si128(bytes, Table(kPadTables.pad[n]));
}

// v's bytes moved up by n < 16 (byte i to i + n), zeros below.
ZG_AESNI_INLINE __m128i ShiftUp(__m128i v, size_t n) {
  return _mm_shuffle_epi8(v, Table(kPadTables.up[n]));
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
                      : _mm_xor_si128(PaddedTail(m, len, tail), k2);
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
