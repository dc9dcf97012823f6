// SPDX-License-Identifier: Apache-2.0
// Fuzzes the --ntp_ratelimit value parser (core/ntp/ntp_rate_limit.h) with
// arbitrary text: no crash, no sanitizer report; every accepted value is
// within chrony's ranges, formats and parses back to the same config, and
// gives a token bucket whose burst fits its 16 bits.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/ntp/ntp_rate_limit.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<NtpRateLimitConfig> c = ParseNtpRateLimit(text);
  if (!c.ok()) {
    ZG_FUZZ_CHECK(!c.status().message().empty());
    return 0;
  }
  ZG_FUZZ_CHECK(size <= kNtpRateLimitMaxBytes);
  ZG_FUZZ_CHECK(c->interval_log2 >= kNtpRateMinInterval &&
                c->interval_log2 <= kNtpRateMaxInterval);
  ZG_FUZZ_CHECK(c->burst >= kNtpRateMinBurst && c->burst <= kNtpRateMaxBurst);
  ZG_FUZZ_CHECK(c->leak_log2 >= kNtpRateMinLeak &&
                c->leak_log2 <= kNtpRateMaxLeak);
  absl::StatusOr<NtpRateLimitConfig> again =
      ParseNtpRateLimit(FormatNtpRateLimit(*c));
  ZG_FUZZ_CHECK(again.ok() && *again == *c);
  const NtpTokenBucket b = NtpTokenBucket::For(*c);
  ZG_FUZZ_CHECK(b.tokens_per_hit >= 1 && b.max_tokens >= b.tokens_per_hit);
  return 0;
}
