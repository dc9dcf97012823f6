// SPDX-License-Identifier: Apache-2.0
// Fuzzes the client-side reply parser zg-loadgen uses (ParseNtpServerReply)
// and the header parser on arbitrary bytes and client clocks. Properties: no
// read past len (exact-size heap copy under ASan), no signed overflow (UBSan)
// for any client clock, and a reply it accepts has consistent times: the
// delay and offset are what the four timestamps say.
//
// Input layout: bytes 0..7 the client's receive time t4 (seconds, any int64
// folded to a wide range incl. out of range), 8..15 the request's transmit
// timestamp; the rest is the reply.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  if (size < 16 || size > 2016) return 0;
  int64_t t4_raw;
  uint64_t t1_raw;
  std::memcpy(&t4_raw, data, 8);
  std::memcpy(&t1_raw, data + 8, 8);
  // Mostly inside the supported pivot range, sometimes any int64 at all.
  const UtcNs t4 = (t4_raw & 1)
                       ? UtcNs{t4_raw}
                       : UtcNs{(t4_raw % 9'000'000'000) * kNanosPerSecond};
  const uint32_t len = static_cast<uint32_t>(size - 16);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[len == 0 ? 1 : len]);
  if (len > 0) std::memcpy(buf.get(), data + 16, len);
  const uint8_t* p = len == 0 ? nullptr : buf.get();

  // Use the reply's own origin half of the time so the deeper checks run.
  NtpTimestamp t1 = NtpTimestamp::FromU64(t1_raw);
  if ((t1_raw & 1) && len >= kNtpHeaderSize)
    t1 = LoadNtpTimestamp(p + kNtpOffsetOriginTime);

  NtpClientSample s;
  const NtpReplyStatus st = ParseNtpServerReply(p, len, t1, t4, &s);
  if (static_cast<size_t>(st) >= static_cast<size_t>(NtpReplyStatus::kCount))
    __builtin_trap();
  if (NtpReplyStatusName(st)[0] == '\0') __builtin_trap();
  if (st == NtpReplyStatus::kOk || st == NtpReplyStatus::kUnsynchronized) {
    if (s.t4 != t4) __builtin_trap();
    if (s.delay_ns != (s.t4 - s.t1) - (s.t3 - s.t2)) __builtin_trap();
    const __int128 twice = static_cast<__int128>(s.t2 - s.t1) + (s.t3 - s.t4);
    if (static_cast<__int128>(s.offset_ns) != twice / 2) __builtin_trap();
    // Each timestamp within 2^31 s (68 years), plus a second of rounding,
    // of t4.
    constexpr int64_t kMaxNs = ((int64_t{1} << 31) + 1) * kNanosPerSecond;
    for (UtcNs t : {s.t1, s.t2, s.t3}) {
      const int64_t d = t - t4;
      if (d > kMaxNs || d < -kMaxNs) __builtin_trap();
    }
  }
  NtpHeader h;
  if (ParseNtpHeader(p, len, &h)) {
    uint8_t out[kNtpHeaderSize];
    SerializeNtpHeader(h, out);
    if (std::memcmp(out, p, kNtpHeaderSize) != 0) __builtin_trap();
    (void)NtpKissName(ClassifyNtpKiss(h));
  }
  return 0;
}
