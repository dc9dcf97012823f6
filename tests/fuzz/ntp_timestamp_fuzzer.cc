// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTP/PTP time conversions: any 64-bit wire timestamp and pivot
// must convert without overflow (UBSan) and re-encode to the same wire value.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/time/time_types.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  if (size < 16) return 0;
  uint64_t wire, pivot_s;
  std::memcpy(&wire, data, 8);
  std::memcpy(&pivot_s, data + 8, 8);
  // Pivots within the int64 nanosecond range, less 70 years of margin: [-2e9,
  // 7e9) s.
  const int64_t pivot_ns =
      (static_cast<int64_t>(pivot_s % 9'000'000'000u) - 2'000'000'000) *
      kNanosPerSecond;
  const NtpTimestamp ts = NtpTimestamp::FromU64(wire);
  const UtcNs utc = NtpToUtc(ts, UtcNs{pivot_ns});
  const NtpTimestamp back = UtcToNtp(utc);
  // The fraction may round to the neighbouring nanosecond but seconds agree
  // unless the fraction rounded up into the next second.
  if (back.seconds != ts.seconds && back.seconds != ts.seconds + 1)
    __builtin_trap();
  const NtpDate date = UtcToNtpDate(utc);
  if (NtpDateToUtc(date) != utc) __builtin_trap();
  const PtpTimestamp p = TaiToPtp(TaiNs{utc.value});
  if (utc.value >= 0 && PtpToTai(p).value != utc.value) __builtin_trap();
  return 0;
}
