// SPDX-License-Identifier: Apache-2.0
#include "core/time/time_format.h"

#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace zg::core {
namespace {

std::string FormatCalendar(int64_t ns_since_1970, const char* suffix) {
  const int64_t s = FloorDiv(ns_since_1970, kNanosPerSecond);
  const int64_t ns = FloorMod(ns_since_1970, kNanosPerSecond);
  const absl::CivilSecond cs =
      absl::ToCivilSecond(absl::FromUnixSeconds(s), absl::UTCTimeZone());
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%09d%s", cs.year(),
                         cs.month(), cs.day(), cs.hour(), cs.minute(),
                         cs.second(), ns, suffix);
}

}  // namespace

std::string FormatUtc(UtcNs t) { return FormatCalendar(t.value, "Z"); }
std::string FormatTai(TaiNs t) { return FormatCalendar(t.value, " TAI"); }

std::ostream& operator<<(std::ostream& os, TaiNs t) {
  return os << FormatTai(t);
}
std::ostream& operator<<(std::ostream& os, UtcNs t) {
  return os << FormatUtc(t);
}
std::ostream& operator<<(std::ostream& os, NtpTimestamp t) {
  return os << absl::StrFormat("ntp(%u.%08x)", t.seconds, t.fraction);
}
std::ostream& operator<<(std::ostream& os, PtpTimestamp t) {
  return os << absl::StrFormat("ptp(%u.%09u)", t.seconds, t.nanoseconds);
}

}  // namespace zg::core
