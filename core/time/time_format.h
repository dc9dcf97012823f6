// SPDX-License-Identifier: Apache-2.0
// Human-readable formatting of zeitgeber timestamps, for logs, audit records
// and test failure messages (never on the hot path).
//
//   FormatUtc(UtcNs{0}) == "1970-01-01T00:00:00.000000000Z"
#ifndef ZG_CORE_TIME_TIME_FORMAT_H_
#define ZG_CORE_TIME_TIME_FORMAT_H_

#include <ostream>
#include <string>

#include "core/time/time_types.h"

namespace zg::core {

// RFC 3339 with nanoseconds, e.g. "2036-02-07T06:28:16.000000000Z".
std::string FormatUtc(UtcNs t);
// The same calendar rendering of a TAI instant, suffixed " TAI".
std::string FormatTai(TaiNs t);

// gtest/ostream printers.
std::ostream& operator<<(std::ostream& os, TaiNs t);
std::ostream& operator<<(std::ostream& os, UtcNs t);
std::ostream& operator<<(std::ostream& os, NtpTimestamp t);
std::ostream& operator<<(std::ostream& os, PtpTimestamp t);

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TIME_FORMAT_H_
