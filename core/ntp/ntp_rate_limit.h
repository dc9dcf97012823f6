// SPDX-License-Identifier: Apache-2.0
// The NTP per-client rate limit as chrony's `ratelimit` directive defines it
// (chrony clientlog.c, conf.c): a token bucket per client address that
// allows one reply per 2^interval seconds on average, bursts of `burst`
// replies, and answers 1 in 2^leak of the requests past the bucket anyway,
// so a spoofer flooding with a victim's address cannot black-hole the
// victim. This file holds the configuration, the flag-value parser and the
// bucket arithmetic; the per-client table that applies it is
// core/ntp/ntp_client_table.h.
//
//   --ntp_ratelimit=interval=-2,burst=16      (leak: chrony's default 2)
//
//   ZG_ASSIGN_OR_RETURN(NtpRateLimitConfig rl, ParseNtpRateLimit(text));
//   const NtpTokenBucket bucket = NtpTokenBucket::For(rl);
#ifndef ZG_CORE_NTP_NTP_RATE_LIMIT_H_
#define ZG_CORE_NTP_NTP_RATE_LIMIT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace zg::core {

// chrony's limits (clientlog.c MIN/MAX_LIMIT_INTERVAL, MIN/MAX_LIMIT_BURST,
// MIN/MAX_LEAK_RATE); chrony clamps silently, we reject with the range.
inline constexpr int kNtpRateMinInterval = -19;  // 2^-19 s: ~524k/s
inline constexpr int kNtpRateMaxInterval = 12;   // 2^12 s: ~68 min
inline constexpr int kNtpRateMinBurst = 1;
inline constexpr int kNtpRateMaxBurst = 255;
inline constexpr int kNtpRateMinLeak = 1;
inline constexpr int kNtpRateMaxLeak = 4;
// Longest accepted flag value (the parser's input bound).
inline constexpr size_t kNtpRateLimitMaxBytes = 256;

struct NtpRateLimitConfig {
  // chrony's defaults (conf.c ntp_ratelimit_*): interval 3 (one reply per
  // 8 s), burst 8, leak 2 (1 in 4 excess requests answered).
  int interval_log2 = 3;
  int burst = 8;
  int leak_log2 = 2;

  friend bool operator==(const NtpRateLimitConfig&,
                         const NtpRateLimitConfig&) = default;
};

// Parses "interval=I,burst=B,leak=L": keys in any order, each at most once,
// omitted keys take chrony's defaults, "" is all defaults. Integers only,
// within the ranges above. Errors say which key and what range.
absl::StatusOr<NtpRateLimitConfig> ParseNtpRateLimit(absl::string_view text);

// "interval=3,burst=8,leak=2": parses back to the same config.
std::string FormatNtpRateLimit(const NtpRateLimitConfig& config);

// chrony's fixed-point token bucket (clientlog.c set_bucket_params): time is
// counted in 2^-4 s units (TS_FRAC = 4); a reply costs `tokens_per_hit`,
// the bucket holds `max_tokens` = tokens_per_hit * burst (16 bits), and
// `token_shift` scales elapsed time into tokens so both fit; a negative
// shift is chrony's coarse mode for intervals below 2^-4 s (each elapsed
// 1/16 s unit buys 2^-shift tokens of 1 each).
struct NtpTokenBucket {
  static constexpr int kTimeFracBits = 4;  // chrony TS_FRAC
  uint16_t max_tokens = 0;
  uint16_t tokens_per_hit = 0;
  int8_t token_shift = 0;

  static NtpTokenBucket For(const NtpRateLimitConfig& config);
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_RATE_LIMIT_H_
