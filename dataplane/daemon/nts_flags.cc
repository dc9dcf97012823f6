#include "dataplane/daemon/nts_flags.h"

#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "core/base/status_macros.h"
#include "core/nts/nts_server.h"

ABSL_FLAG(std::string, nts_master_key, "",
          "NTS cookie master key file (>= 32 random bytes, e.g. `head -c 32 "
          "/dev/urandom`, or their hex; readable by its owner only). Every "
          "server sharing it accepts the others' cookies. Reloaded on "
          "SIGHUP. Unset: NTS off, NTS requests dropped.");
ABSL_FLAG(std::string, nts_key_period, "86400",
          "Period of the NTS cookie keys derived from --nts_master_key: "
          "seconds or a duration (24h). All servers of a fleet must agree.");
ABSL_FLAG(std::string, nts_key_window, "2,1",
          "PAST,FUTURE: cookie-key periods accepted before and after the "
          "current one (0..16 each).");
ABSL_FLAG(int32_t, nts_max_cookies_per_reply, 8,
          "New NTS cookies in a reply at most (1..8): one per cookie and "
          "placeholder the request carries, up to this.");

namespace zg::dataplane {

absl::StatusOr<uint64_t> ParseNtsKeyPeriod(const std::string& value) {
  uint64_t seconds = 0;
  if (!absl::SimpleAtoi(value, &seconds)) {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d) ||
        d != absl::Seconds(absl::ToInt64Seconds(d))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--nts_key_period=", value,
          ": want whole seconds (86400) or a duration (24h, 3600s)"));
    }
    seconds = static_cast<uint64_t>(absl::ToInt64Seconds(d));
  }
  // Up to 10 years, so that period numbers and boundaries stay far from
  // any overflow.
  if (seconds < 1 || seconds > 10ull * 366 * 86400) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_key_period=", value, ": must be 1 s .. 10 years"));
  }
  return seconds;
}

absl::StatusOr<std::pair<uint32_t, uint32_t>> ParseNtsKeyWindow(
    const std::string& value) {
  const std::vector<std::string> parts = absl::StrSplit(value, ',');
  uint32_t past = 0, future = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &past) ||
      !absl::SimpleAtoi(parts[1], &future) || past > 16 || future > 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_key_window=", value,
        ": want PAST,FUTURE periods accepted, each 0..16 (default 2,1)"));
  }
  return std::pair{past, future};
}

absl::StatusOr<NtsConfig> ReadNtsFlags() {
  NtsConfig c;
  c.master_key = absl::GetFlag(FLAGS_nts_master_key);
  ZG_ASSIGN_OR_RETURN(c.keystore.period_s,
                      ParseNtsKeyPeriod(absl::GetFlag(FLAGS_nts_key_period)));
  ZG_ASSIGN_OR_RETURN(auto window,
                      ParseNtsKeyWindow(absl::GetFlag(FLAGS_nts_key_window)));
  c.keystore.window_past = window.first;
  c.keystore.window_future = window.second;
  const int32_t cookies = absl::GetFlag(FLAGS_nts_max_cookies_per_reply);
  if (cookies < 1 ||
      cookies > static_cast<int32_t>(core::kNtsMaxReplyCookies)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_max_cookies_per_reply=", cookies, ": must be 1..",
                     core::kNtsMaxReplyCookies));
  }
  c.max_cookies_per_reply = static_cast<uint32_t>(cookies);
  return c;
}

}  // namespace zg::dataplane
