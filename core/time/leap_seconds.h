// SPDX-License-Identifier: Apache-2.0
// Leap seconds: the IERS/IETF leap-seconds.list file, TAI-UTC at any instant,
// UTC <-> TAI conversion, and the leap warnings NTP and PTP announce.
//
// A LeapTable is immutable once built: parsed (and its SHA-1 verified) from
// the text of a leap-seconds.list, or the built-in copy compiled into
// zeitgeber. Pure: no I/O here (servo/leap/leap_file.h reads the file). Built
// and queried by the control thread; workers only see what it copies into the
// ClockModel (FillLeapFields).
//
//   ZG_ASSIGN_OR_RETURN(LeapTable table, LeapTable::Parse(file_text));
//   if (table.IsExpired(now_utc)) { /* warn: the file may miss a leap */ }
//   const TaiNs now_tai = table.UtcToTai(now_utc);
//   table.FillLeapFields(now_tai, &model);   // utc_offset_s, leap, leap_at
//
// Conventions (doc/time.md): an entry says "from UTC midnight `utc` on,
// TAI-UTC is n". A positive leap inserts 23:59:60 before that midnight and a
// negative one removes 23:59:59. UtcNs counts like POSIX, so it cannot name
// 23:59:60: TaiToUtc repeats 23:59:59 during an inserted second (as Linux
// does), and UtcToTai maps the removed 23:59:59 of a negative leap to the
// following midnight. Before the first entry the first entry's offset applies
// (UTC before 1972 had no integer TAI-UTC; zeitgeber does not serve it).
#ifndef ZG_CORE_TIME_LEAP_SECONDS_H_
#define ZG_CORE_TIME_LEAP_SECONDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// One line of the table: from UTC midnight `utc` on, TAI-UTC is
// `tai_minus_utc_s`.
struct LeapEntry {
  UtcNs utc;
  int32_t tai_minus_utc_s = 0;
  friend constexpr bool operator==(LeapEntry, LeapEntry) = default;
};

// A leap second, as the queries report it.
struct LeapEvent {
  UtcNs utc;  // the UTC midnight ending the day that has the leap second
  TaiNs tai;  // when TAI-UTC changes: ClockModel::leap_at (for an insertion,
              // the start of 23:59:60; for a deletion, the TAI instant of the
              // new midnight, where 23:59:59 would have begun)
  LeapPending kind = LeapPending::kNone;  // kInsert (+1 s) or kDelete (-1 s)
  int32_t offset_before_s = 0;            // TAI-UTC before `tai`
  int32_t offset_after_s = 0;             // TAI-UTC from `tai` on
  constexpr int direction() const {
    return kind == LeapPending::kInsert ? 1 : -1;
  }
  friend constexpr bool operator==(const LeapEvent&,
                                   const LeapEvent&) = default;
};

// IEEE 1588 flagField leap bits (header octet 1, bits 0 and 1).
struct PtpLeapFlags {
  bool leap61 = false;  // the last minute of the current UTC day has 61 s
  bool leap59 = false;  // ... has 59 s
  friend constexpr bool operator==(PtpLeapFlags, PtpLeapFlags) = default;
};

// The built-in table's provenance: the IERS leap-seconds.list updated
// 2025-07-07 (#$ 3960835200), which expires 2026-06-28T00:00:00Z
// (#@ 3991593600). It lists every leap second from 1972 to 2017-01-01
// (TAI-UTC 10..37).
inline constexpr UtcNs kBuiltInLeapLastUpdate{1'751'846'400 * kNanosPerSecond};
inline constexpr UtcNs kBuiltInLeapExpiry{1'782'604'800 * kNanosPerSecond};

// Whether Parse checks the #h SHA-1 line. Production code always requires it;
// skipping is for the fuzzer (so mutated inputs reach the table queries) and
// for hand-written test tables.
enum class LeapHashCheck : uint8_t { kRequire, kSkipForTesting };

class LeapTable {
 public:
  // Limits on what Parse/Create accept.
  static constexpr size_t kMaxEntries = 1000;
  static constexpr int64_t kMaxNtpSeconds = 9'999'999'999;  // ~2216
  static constexpr int32_t kMaxTaiMinusUtcS = 999;

  // Parses and verifies a leap-seconds.list (IERS/IETF/NIST format):
  //   "#$ <NTP seconds>"   last update          (exactly one)
  //   "#@ <NTP seconds>"   expiry               (exactly one)
  //   "<NTP seconds> <TAI-UTC> [# comment]"     data lines, one per leap
  //   "#h <5 hex words>"   SHA-1 of the digits of the $, @ and data lines
  //                        (data lines up to their '#'), in file order
  // Other lines starting with '#', and blank lines, are comments. Errors name
  // the line and what was expected; a hash mismatch is an error.
  static absl::StatusOr<LeapTable> Parse(
      absl::string_view text, LeapHashCheck check = LeapHashCheck::kRequire);

  // A table from entries (sorted; UTC midnights; TAI-UTC steps of exactly
  // +-1 s). For tests and synthetic scenarios.
  static absl::StatusOr<LeapTable> Create(std::vector<LeapEntry> entries,
                                          UtcNs last_update, UtcNs expiry);

  // The compiled-in table (see kBuiltInLeapExpiry).
  static LeapTable BuiltIn();

  const std::vector<LeapEntry>& entries() const { return entries_; }
  UtcNs last_update() const { return last_update_; }
  UtcNs expiry() const { return expiry_; }
  bool is_built_in() const { return built_in_; }
  // Past its expiry a table may miss announced leaps (the file must be
  // refreshed); its queries still answer from what it lists.
  bool IsExpired(UtcNs now) const { return now >= expiry_; }
  // One line for logs: "TAI-UTC 37 s since 2017-01-01, 28 entries, updated
  // 2025-07-07, expires 2026-06-28".
  std::string Describe() const;

  // TAI-UTC in seconds at a UTC or TAI instant. At TAI it is exact during a
  // leap second (the new offset from LeapEvent::tai on).
  int32_t TaiMinusUtc(UtcNs t) const;
  int32_t TaiMinusUtc(TaiNs t) const;

  // Conversions (saturating at the int64 range). UtcToTai is non-decreasing;
  // TaiToUtc steps back 1 s at an inserted leap (23:59:59 repeats).
  TaiNs UtcToTai(UtcNs t) const;
  UtcNs TaiToUtc(TaiNs t) const;

  // The first leap strictly after `t` (by LeapEvent::utc for a UtcNs, by
  // LeapEvent::tai for a TaiNs), if the table lists one.
  std::optional<LeapEvent> NextLeap(UtcNs t) const;
  std::optional<LeapEvent> NextLeap(TaiNs t) const;

  // What is announced at `t`: the next leap when it is at most one day
  // (kLeapAnnounceWindowNs) ahead, as ClockModel::LeapAnnouncedAt decides.
  LeapPending LeapAnnouncedAt(TaiNs t) const;
  // The NTP leap indicator (kNoWarning, kLastMinute61 or kLastMinute59;
  // never kUnsynchronized: that is the clock's state, not the table's).
  NtpLeapIndicator NtpLeapIndicatorAt(TaiNs t) const;
  PtpLeapFlags PtpLeapFlagsAt(TaiNs t) const;

  // Sets model->utc_offset_s (TAI-UTC at `now`), ->leap and ->leap_at (the
  // next leap after `now`, or kNone). The model then converts correctly for
  // every instant from `now` until the leap after that one.
  void FillLeapFields(TaiNs now, ClockModel* model) const;

 private:
  LeapTable() = default;
  // Validates and builds; `where(i)` names entry i in error messages.
  template <typename Where>
  static absl::StatusOr<LeapTable> Build(std::vector<LeapEntry> entries,
                                         UtcNs last_update, UtcNs expiry,
                                         const Where& where);
  LeapEvent EventAt(size_t i) const;  // i >= 1

  std::vector<LeapEntry> entries_;  // sorted by utc
  std::vector<TaiNs> tai_starts_;   // per entry: TAI instant its offset starts
  UtcNs last_update_;
  UtcNs expiry_;
  bool built_in_ = false;
};

}  // namespace zg::core

#endif  // ZG_CORE_TIME_LEAP_SECONDS_H_
