// SPDX-License-Identifier: Apache-2.0
// Loading the leap-second table from a leap-seconds.list file, with the
// built-in table (core/time/leap_seconds.h) as the fallback. Never fails and
// never crashes: whatever goes wrong with the file becomes an operator-facing
// warning, and the best table available is returned.
//
// Called by the control thread at start-up (and on reload); the result feeds
// ClockModel::utc_offset_s / leap / leap_at through LeapTable::FillLeapFields.
//
//   LeapTableLoad load = LoadLeapTable(kDefaultLeapFilePath, now_utc);
//   for (const std::string& w : load.warnings) audit.Warn(w);
//   load.table.FillLeapFields(now_tai, &model);
//
// Which table: a valid, unexpired file is used as it is. A missing,
// unreadable, oversized or invalid (syntax, hash) file gives the built-in
// table. A valid but expired file is used only if it expires later than the
// built-in table; either way the warning says the table has expired.
#ifndef ZG_SERVO_LEAP_FILE_H_
#define ZG_SERVO_LEAP_FILE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "core/time/leap_seconds.h"
#include "core/time/time_types.h"

namespace zg::servo {

// Debian's tzdata ships the IERS file here.
inline constexpr char kDefaultLeapFilePath[] =
    "/usr/share/zoneinfo/leap-seconds.list";
// The real file is about 5 KiB; anything beyond this is not one.
inline constexpr size_t kMaxLeapFileBytes = size_t{1} << 20;

struct LeapTableLoad {
  core::LeapTable table = core::LeapTable::BuiltIn();
  // One line each, naming the file and what to do; empty when the file was
  // read, verified, current and consistent with the built-in table.
  std::vector<std::string> warnings;
};

// Reads and verifies `path`; `now` decides expiry.
LeapTableLoad LoadLeapTable(const std::string& path, core::UtcNs now);

}  // namespace zg::servo

#endif  // ZG_SERVO_LEAP_FILE_H_
