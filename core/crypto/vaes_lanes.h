// SPDX-License-Identifier: Apache-2.0
// The wide lane engine for core/crypto's .cc files only: the jobs of
// core/crypto/aesni_lanes_inl.h (MacLane CBC-MAC chains, CtrJob keystreams)
// run with VAES on AVX-512 registers, four AES blocks per instruction, each
// 128-bit lane under its own round keys, and up to kVaesSlots blocks in
// flight. Same inputs, same bytes as RunMacLanes and RunCtr.
//
// Compiled with a target attribute (vaes, avx512f/bw/vl), not for the whole
// build: callers pick it with aes::UseVaes() (core/crypto/aes_block.h),
// which reads the CPU's features once, and keep the AES-NI lanes otherwise.
//
//   const bool wide = aes::UseVaes();   // once per batch
//   vaes::RunMacLanesOn(wide, lanes, n);
#ifndef ZG_CORE_CRYPTO_VAES_LANES_H_
#define ZG_CORE_CRYPTO_VAES_LANES_H_

#include "core/crypto/aesni_lanes_inl.h"

#ifdef ZG_HAVE_AESNI

namespace zg::core::vaes {

// Vectors of four blocks in flight, and the chains they carry.
inline constexpr int kVaesGroups = 8;
inline constexpr int kVaesSlots = 4 * kVaesGroups;

// As aesni::RunMacLanes: lanes[i].x the result of each chain.
void RunMacLanes(aesni::MacLane* lanes, size_t n);
// As aesni::RunCtr.
void RunCtr(const aesni::CtrJob* jobs, size_t n);
// The AES-128 key schedules of key[0..n) (n <= 16; 16 bytes each) written
// to rk[0..n) (kAes128RoundKeyBytes each, 16-byte aligned): four keys
// expanded side by side per vector.
void ExpandKeys(const uint8_t* const* key, uint8_t* const* rk, size_t n);

// Fewer chains than this run on the AES-NI lanes even where the CPU has
// VAES: a lone message is latency-bound, and the wide engine's set-up
// (gathering lanes into vectors) made one 48-byte CMAC 2.4x slower.
inline constexpr size_t kVaesMinLanes = 4;

// The wide engine (wide: aes::UseVaes(), and enough chains) or the AES-NI
// lanes.
ZG_AESNI_INLINE void RunMacLanesOn(bool wide, aesni::MacLane* lanes, size_t n) {
  if (wide && n >= kVaesMinLanes) return vaes::RunMacLanes(lanes, n);
  aesni::RunMacLanes(lanes, n);
}
ZG_AESNI_INLINE void RunCtrOn(bool wide, const aesni::CtrJob* jobs, size_t n) {
  if (wide) return vaes::RunCtr(jobs, n);
  aesni::RunCtr(jobs, n);
}

}  // namespace zg::core::vaes

#endif  // ZG_HAVE_AESNI
#endif  // ZG_CORE_CRYPTO_VAES_LANES_H_
