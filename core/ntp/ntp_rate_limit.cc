// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_rate_limit.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace zg::core {
namespace {

struct Key {
  absl::string_view name;
  int NtpRateLimitConfig::*field;
  int min, max;
  absl::string_view unit;
};
constexpr Key kKeys[] = {
    {"interval", &NtpRateLimitConfig::interval_log2, kNtpRateMinInterval,
     kNtpRateMaxInterval, "log2 seconds between replies"},
    {"burst", &NtpRateLimitConfig::burst, kNtpRateMinBurst, kNtpRateMaxBurst,
     "replies"},
    {"leak", &NtpRateLimitConfig::leak_log2, kNtpRateMinLeak, kNtpRateMaxLeak,
     "log2: 1 in 2^leak excess requests answered"},
};

absl::Status ParseItem(absl::string_view item, NtpRateLimitConfig& config,
                       unsigned& seen) {
  const size_t eq = item.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", item,
                     "' is not KEY=VALUE (keys: interval, burst, "
                     "leak)"));
  }
  const absl::string_view name = item.substr(0, eq);
  const absl::string_view value = item.substr(eq + 1);
  for (size_t k = 0; k < std::size(kKeys); ++k) {
    const Key& key = kKeys[k];
    if (name != key.name) continue;
    if (seen & (1u << k)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", name, "' given twice"));
    }
    seen |= 1u << k;
    int v = 0;
    if (value.empty() || value.size() > 4 || !absl::SimpleAtoi(value, &v) ||
        value.front() == '+') {
      return absl::InvalidArgumentError(absl::StrCat(
          name, "='", value, "' is not an integer (", key.unit, ")"));
    }
    if (v < key.min || v > key.max) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, "=", v, " is out of range [", key.min, ", ",
                       key.max, "] (", key.unit, ")"));
    }
    config.*key.field = v;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown key '", name, "' (keys: interval, burst, leak)"));
}

}  // namespace

absl::StatusOr<NtpRateLimitConfig> ParseNtpRateLimit(absl::string_view text) {
  NtpRateLimitConfig config;
  if (text.size() > kNtpRateLimitMaxBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("rate limit spec is ", text.size(), " bytes; at most ",
                     kNtpRateLimitMaxBytes));
  }
  if (text.empty()) return config;
  unsigned seen = 0;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    if (absl::Status s = ParseItem(item, config, seen); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ntp_ratelimit='", text, "': ", s.message(),
                       "; expected interval=I,burst=B,leak=L"));
    }
  }
  return config;
}

std::string FormatNtpRateLimit(const NtpRateLimitConfig& c) {
  return absl::StrCat("interval=", c.interval_log2, ",burst=", c.burst,
                      ",leak=", c.leak_log2);
}

NtpTokenBucket NtpTokenBucket::For(const NtpRateLimitConfig& config) {
  // chrony clientlog.c set_bucket_params, with its clamps.
  const int interval = std::clamp(config.interval_log2, kNtpRateMinInterval,
                                  kNtpRateMaxInterval);
  unsigned burst = static_cast<unsigned>(
      std::clamp(config.burst, kNtpRateMinBurst, kNtpRateMaxBurst));
  int shift = 0;
  if (interval >= -kTimeFracBits) {
    // The smallest shift with which the bucket fits in 16 bits.
    for (shift = 0; shift < interval + kTimeFracBits; ++shift) {
      if ((burst << (kTimeFracBits + interval - shift)) < (1u << 16)) break;
    }
  } else {
    shift = interval + kTimeFracBits;  // coarse limiting
    burst = std::max(1u << -shift, burst);
  }
  // In coarse mode the exponent is 0: one token per hit.
  const int hit_log2 = std::max(kTimeFracBits + interval - shift, 0);
  NtpTokenBucket b;
  b.tokens_per_hit = static_cast<uint16_t>(1u << hit_log2);
  b.max_tokens = static_cast<uint16_t>(b.tokens_per_hit * burst);
  b.token_shift = static_cast<int8_t>(shift);
  return b;
}

}  // namespace zg::core
