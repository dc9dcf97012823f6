// SPDX-License-Identifier: Apache-2.0
#include "core/net/checksum.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <atomic>
#include <bit>
#include <cstring>

namespace zg::core {
namespace {

// Host-order sum of the data, not folded. The ones' complement sum of 32-bit
// words is congruent (mod 0xFFFF) to that of their 16-bit halves, in the
// host's byte order (RFC 1071 2.B: byte-order independence), so 32-bit loads
// go into four 64-bit accumulators: no carries to propagate, no dependency
// between neighbouring adds. Each accumulator gains < 2^32 per 16 bytes, so
// none can overflow for len < 2^32.
inline uint64_t SumNative(const uint8_t* p, uint32_t len) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  while (len >= 16) {
    a += Load32(p);
    b += Load32(p + 4);
    c += Load32(p + 8);
    d += Load32(p + 12);
    p += 16;
    len -= 16;
  }
  if (len & 8) {
    a += Load32(p);
    b += Load32(p + 4);
    p += 8;
  }
  // Only a byte's lane within its 16-bit word matters; a last odd byte is the
  // first (most significant on the wire) byte of its word.
  if (len & 4) {
    c += Load32(p);
    p += 4;
  }
  if (len & 2) {
    d += Load16(p);
    p += 2;
  }
  if (len & 1) {
    a += std::endian::native == std::endian::little ? uint64_t{p[0]}
                                                    : uint64_t{p[0]} << 8;
  }
  return (a + b) + (c + d);
}

#if defined(__x86_64__)

// Sums at least this long take the AVX2 loop (a shorter one, an NTP
// header, gains nothing from it).
constexpr uint32_t kWideSumMin = 64;

// SumNative on AVX2: each 32-byte load split into its eight 32-bit words,
// zero-extended into four 64-bit lanes twice (a mask and a shift: no
// shuffle), the same sum of 32-bit words. A lane gains < 2^32 per 32
// bytes, so none overflows for len < 2^32. About twice the scalar loop's
// bytes per cycle (bench/core/net/checksum_benchmark.cc).
__attribute__((target("avx2"))) uint64_t SumNativeAvx2(const uint8_t* p,
                                                       uint32_t len) {
  const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
  __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
  for (; len >= 32; p += 32, len -= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    lo = _mm256_add_epi64(lo, _mm256_and_si256(v, low32));
    hi = _mm256_add_epi64(hi, _mm256_srli_epi64(v, 32));
  }
  const __m256i s = _mm256_add_epi64(lo, hi);
  const __m128i t =
      _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(t)) +
         static_cast<uint64_t>(_mm_extract_epi64(t, 1)) + SumNative(p, len);
}

bool CpuHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

// Read once, at start; the test hook clears it.
std::atomic<bool> g_wide_sum{CpuHasAvx2()};

#endif

}  // namespace

uint16_t OnesComplementSum(const uint8_t* data, uint32_t len,
                           uint16_t initial) {
#if defined(__x86_64__)
  const uint64_t sum =
      len >= kWideSumMin && g_wide_sum.load(std::memory_order_relaxed)
          ? SumNativeAvx2(data, len)
          : SumNative(data, len);
#else
  const uint64_t sum = SumNative(data, len);
#endif
  const uint16_t s = HostToBe16(checksum_internal::Fold64(sum));
  return OnesComplementAdd(s, initial);
}

namespace checksum_internal {

bool UsesWideSum() {
#if defined(__x86_64__)
  return g_wide_sum.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void ForceScalarSumForTesting(bool force) {
#if defined(__x86_64__)
  g_wide_sum.store(!force && CpuHasAvx2(), std::memory_order_relaxed);
#else
  (void)force;
#endif
}

}  // namespace checksum_internal

uint16_t Ipv4HeaderChecksum(const uint8_t* header, uint32_t header_len) {
  return L4Checksum(0, header, header_len, ipv4::kChecksum);
}

bool Ipv4HeaderChecksumValidSlow(const uint8_t* header, uint32_t header_len) {
  return OnesComplementSum(header, header_len) == 0xFFFF;
}

uint16_t PseudoHeaderSumV6(const uint8_t* src16, const uint8_t* dst16,
                           uint8_t next_header, uint32_t l4_len) {
  const uint16_t addr_sum = HostToBe16(
      checksum_internal::Fold64(SumNative(src16, 16) + SumNative(dst16, 16)));
  // Upper-layer length (32 bits) and next header (low byte of a 32-bit word).
  return OnesComplementAdd(
      OnesComplementAdd(addr_sum, static_cast<uint16_t>(l4_len >> 16)),
      OnesComplementAdd(static_cast<uint16_t>(l4_len), next_header));
}

uint16_t L4Checksum(uint16_t pseudo_sum, const uint8_t* l4, uint32_t l4_len,
                    uint32_t checksum_offset) {
  // Sum everything, then take the current checksum field back out:
  // S - f == S + ~f in ones' complement arithmetic.
  const uint16_t with_field = OnesComplementSum(l4, l4_len, pseudo_sum);
  const uint16_t field = LoadBe16(l4 + checksum_offset);
  // The operands are never both 0 (with_field is 0 only if the field is 0),
  // so the sum is in [1, 0xFFFF] as a fold of the data without the field is.
  return static_cast<uint16_t>(
      ~OnesComplementAdd(with_field, static_cast<uint16_t>(~field)));
}

uint16_t ChecksumUpdateBytes(uint16_t checksum, uint32_t offset,
                             const uint8_t* old_bytes, const uint8_t* new_bytes,
                             uint32_t len) {
  uint16_t old_sum = OnesComplementSum(old_bytes, len);
  uint16_t new_sum = OnesComplementSum(new_bytes, len);
  if (offset & 1) {
    // A range starting at an odd offset contributes its sum byte-swapped.
    old_sum = static_cast<uint16_t>(old_sum << 8 | old_sum >> 8);
    new_sum = static_cast<uint16_t>(new_sum << 8 | new_sum >> 8);
  }
  return ChecksumUpdate16(checksum, old_sum, new_sum);
}

}  // namespace zg::core
