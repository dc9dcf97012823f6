// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/aes_block.h"

#include <array>
#include <atomic>
#include <cstring>

#include "core/crypto/aesni_inl.h"

#ifdef ZG_HAVE_AESNI
#include <cpuid.h>
#endif

namespace zg::core::aes {
namespace {

// --- Portable AES-128 (FIPS-197) ------------------------------------------

constexpr uint8_t Rotl8(uint8_t x, int s) {
  return static_cast<uint8_t>((x << s) | (x >> (8 - s)));
}

// The S-box computed from its definition (multiplicative inverse in GF(2^8)
// then the affine map), walking the field with generator 3.
constexpr std::array<uint8_t, 256> MakeSbox() {
  std::array<uint8_t, 256> s{};
  uint8_t p = 1, q = 1;
  do {
    p = static_cast<uint8_t>(p ^ (p << 1) ^ ((p & 0x80) ? 0x1b : 0));
    q = static_cast<uint8_t>(q ^ (q << 1));
    q = static_cast<uint8_t>(q ^ (q << 2));
    q = static_cast<uint8_t>(q ^ (q << 4));
    if (q & 0x80) q = static_cast<uint8_t>(q ^ 0x09);
    const uint8_t x = static_cast<uint8_t>(q ^ Rotl8(q, 1) ^ Rotl8(q, 2) ^
                                           Rotl8(q, 3) ^ Rotl8(q, 4));
    s[p] = static_cast<uint8_t>(x ^ 0x63);
  } while (p != 1);
  s[0] = 0x63;
  return s;
}
constexpr std::array<uint8_t, 256> kSbox = MakeSbox();
static_assert(kSbox[0x00] == 0x63 && kSbox[0x01] == 0x7c &&
              kSbox[0x53] == 0xed && kSbox[0xff] == 0x16);

constexpr uint8_t XTime(uint8_t x) {
  return static_cast<uint8_t>((x << 1) ^ ((x >> 7) * 0x1b));
}

std::atomic<bool> g_force_portable{false};
std::atomic<bool> g_force_aesni_lanes{false};

#ifdef ZG_HAVE_AESNI
// VAES, AVX-512 F, BW and VL (CPUID leaf 7), and the OS saving the opmask
// and zmm registers (XCR0 bits 1, 2, 5, 6, 7). Read with cpuid here:
// clang 14's __builtin_cpu_supports knows no "vaes".
bool CpuidHasVaesAvx512() {
  unsigned a, b, c, d;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) {
    return false;  // no OSXSAVE: no xgetbv
  }
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0xe6) != 0xe6) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool avx512f = (b & (1u << 16)) != 0;
  const bool avx512bw = (b & (1u << 30)) != 0;
  const bool avx512vl = (b & (1u << 31)) != 0;
  const bool vaes = (c & (1u << 9)) != 0;
  return avx512f && avx512bw && avx512vl && vaes;
}
#endif

}  // namespace

void ExpandKey128Portable(const uint8_t* key16, uint8_t* rk) {
  static constexpr uint8_t kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                        0x20, 0x40, 0x80, 0x1b, 0x36};
  std::memcpy(rk, key16, 16);
  for (int i = 4; i < 44; ++i) {
    uint8_t t[4];
    std::memcpy(t, rk + 4 * (i - 1), 4);
    if (i % 4 == 0) {
      const uint8_t t0 = t[0];
      t[0] = static_cast<uint8_t>(kSbox[t[1]] ^ kRcon[i / 4 - 1]);
      t[1] = kSbox[t[2]];
      t[2] = kSbox[t[3]];
      t[3] = kSbox[t0];
    }
    for (int j = 0; j < 4; ++j) {
      rk[4 * i + j] = static_cast<uint8_t>(rk[4 * (i - 4) + j] ^ t[j]);
    }
  }
}

void EncryptBlockPortable(const uint8_t* rk, const uint8_t* in16,
                          uint8_t* out16) {
  uint8_t s[16];
  for (int i = 0; i < 16; ++i) s[i] = static_cast<uint8_t>(in16[i] ^ rk[i]);
  for (int round = 1; round <= 10; ++round) {
    uint8_t t[16];
    // SubBytes and ShiftRows: byte (row r, column c) is s[r + 4c].
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r)
        t[r + 4 * c] = kSbox[s[r + 4 * ((c + r) % 4)]];
    }
    if (round < 10) {  // MixColumns
      for (int c = 0; c < 4; ++c) {
        const uint8_t a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2],
                      a3 = t[4 * c + 3];
        const uint8_t all = static_cast<uint8_t>(a0 ^ a1 ^ a2 ^ a3);
        t[4 * c] = static_cast<uint8_t>(a0 ^ all ^ XTime(a0 ^ a1));
        t[4 * c + 1] = static_cast<uint8_t>(a1 ^ all ^ XTime(a1 ^ a2));
        t[4 * c + 2] = static_cast<uint8_t>(a2 ^ all ^ XTime(a2 ^ a3));
        t[4 * c + 3] = static_cast<uint8_t>(a3 ^ all ^ XTime(a3 ^ a0));
      }
    }
    for (int i = 0; i < 16; ++i) {
      s[i] = static_cast<uint8_t>(t[i] ^ rk[16 * round + i]);
    }
  }
  std::memcpy(out16, s, 16);
}

void DblPortable(const uint8_t* in, uint8_t* out) {
  const uint8_t msb = in[0] >> 7;
  for (int i = 0; i < 15; ++i) {
    out[i] = static_cast<uint8_t>((in[i] << 1) | (in[i + 1] >> 7));
  }
  out[15] = static_cast<uint8_t>((in[15] << 1) ^ (0x87 * msb));
}

void CmacPortable(const uint8_t* rk, const uint8_t* k1, const uint8_t* k2,
                  const uint8_t* m, size_t len, const uint8_t* tail,
                  uint8_t* mac) {
  const size_t nblocks = len == 0 ? 1 : (len + 15) / 16;
  const size_t tail_at = tail != nullptr ? len - 16 : len;
  const bool complete = len != 0 && len % 16 == 0;
  uint8_t x[16] = {0};
  for (size_t b = 0; b < nblocks; ++b) {
    const bool last = b + 1 == nblocks;
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
    EncryptBlockPortable(rk, x, x);
  }
  std::memcpy(mac, x, 16);
}

void CmacSubkeysPortable(const uint8_t* rk, uint8_t* k1, uint8_t* k2) {
  uint8_t l[16] = {0};
  EncryptBlockPortable(rk, l, l);
  DblPortable(l, k1);
  DblPortable(k1, k2);
}

namespace {

void Ctr128Portable(const uint8_t* rk, const uint8_t* ctr16, const uint8_t* in,
                    uint8_t* out, size_t len) {
  uint8_t ctr[16];
  std::memcpy(ctr, ctr16, 16);
  uint64_t low = 0;
  for (int i = 0; i < 8; ++i) low = (low << 8) | ctr[8 + i];
  for (size_t off = 0; off < len; off += 16) {
    uint8_t ks[16];
    EncryptBlockPortable(rk, ctr, ks);
    const size_t n = len - off < 16 ? len - off : 16;
    for (size_t i = 0; i < n; ++i) {
      out[off + i] =
          static_cast<uint8_t>((in != nullptr ? in[off + i] : 0) ^ ks[i]);
    }
    ++low;
    for (int i = 0; i < 8; ++i) {
      ctr[15 - i] = static_cast<uint8_t>(low >> (8 * i));
    }
  }
}

#ifdef ZG_HAVE_AESNI

ZG_AESNI void ExpandKey128Ni(const uint8_t* key16, uint8_t* rk) {
  static constexpr int kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                    0x20, 0x40, 0x80, 0x1b, 0x36};
  __m128i* k = reinterpret_cast<__m128i*>(rk);
  __m128i t = aesni::Load(key16);
  _mm_store_si128(k, t);
  for (int i = 1; i < 11; ++i) {
    t = aesni::ExpandStep(t, kRcon[i - 1]);
    _mm_store_si128(k + i, t);
  }
}

ZG_AESNI void EncryptBlockNi(const uint8_t* rk, const uint8_t* in16,
                             uint8_t* out16) {
  aesni::Keys k;
  aesni::LoadKeys(rk, &k);
  aesni::Store(out16, aesni::Enc1(aesni::Load(in16), k));
}

ZG_AESNI void Ctr128Ni(const uint8_t* rk, const uint8_t* ctr16,
                       const uint8_t* in, uint8_t* out, size_t len) {
  aesni::Keys k;
  aesni::LoadKeys(rk, &k);
  aesni::Ctr(k, aesni::Load(ctr16), in, out, len);
}

#endif  // ZG_HAVE_AESNI

}  // namespace

bool CpuHasAesNi() {
#ifdef ZG_HAVE_AESNI
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1");
  }();
  return has;
#else
  return false;
#endif
}

bool UseAesNi() {
  return CpuHasAesNi() && !g_force_portable.load(std::memory_order_relaxed);
}

void ForcePortableForTesting(bool force) {
  g_force_portable.store(force, std::memory_order_relaxed);
}

bool CpuHasVaes() {
#ifdef ZG_HAVE_AESNI
  static const bool has = CpuHasAesNi() && CpuidHasVaesAvx512();
  return has;
#else
  return false;
#endif
}

bool UseVaes() {
  return CpuHasVaes() && !g_force_portable.load(std::memory_order_relaxed) &&
         !g_force_aesni_lanes.load(std::memory_order_relaxed);
}

void ForceAesNiLanesForTesting(bool force) {
  g_force_aesni_lanes.store(force, std::memory_order_relaxed);
}

void ExpandKey128(const uint8_t* key16, uint8_t* rk) {
#ifdef ZG_HAVE_AESNI
  if (UseAesNi()) return ExpandKey128Ni(key16, rk);
#endif
  ExpandKey128Portable(key16, rk);
}

void EncryptBlock(const uint8_t* rk, const uint8_t* in16, uint8_t* out16) {
#ifdef ZG_HAVE_AESNI
  if (UseAesNi()) return EncryptBlockNi(rk, in16, out16);
#endif
  EncryptBlockPortable(rk, in16, out16);
}

void Ctr128(const uint8_t* rk, const uint8_t* ctr16, const uint8_t* in,
            uint8_t* out, size_t len) {
#ifdef ZG_HAVE_AESNI
  if (UseAesNi()) return Ctr128Ni(rk, ctr16, in, out, len);
#endif
  Ctr128Portable(rk, ctr16, in, out, len);
}

}  // namespace zg::core::aes
