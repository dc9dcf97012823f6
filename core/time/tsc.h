// SPDX-License-Identifier: Apache-2.0
// Reading the CPU's time-stamp counter: the software raw clock of the data
// plane. An instruction, not I/O, so it lives in core/.
//
// The TSC must be invariant (constant_tsc + nonstop_tsc in /proc/cpuinfo);
// servo/tsc_calibration.h measures its frequency and ClockModel maps its ticks
// to TAI.
//
//   uint64_t t0 = zg::core::ReadTsc();
#ifndef ZG_CORE_TIME_TSC_H_
#define ZG_CORE_TIME_TSC_H_

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace zg::core {

// Raw TSC ticks. Not serialising: cheap, may be reordered with nearby loads.
inline uint64_t ReadTsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
#error "zeitgeber needs an invariant cycle counter (x86 TSC or arm64 CNTVCT)"
#endif
}

// Raw TSC ticks, ordered after every earlier instruction (RDTSCP): for
// bracketing a reference read in calibration.
inline uint64_t ReadTscOrdered() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned int aux;
  return __rdtscp(&aux);
#else
  return ReadTsc();
#endif
}

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TSC_H_
