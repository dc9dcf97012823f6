// SPDX-License-Identifier: Apache-2.0
// Fuzzes the leap-seconds.list parser (core/time/leap_seconds.h). Any bytes
// must parse or fail with a message, without crashes or UB (ASan/UBSan); every
// table that parses must answer consistently: TAI-UTC steps by exactly 1 s at
// each leap, UtcToTai never goes backwards, the conversions round-trip, and a
// ClockModel filled from the table converts as the table does.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "core/time/clock_model.h"
#include "core/time/leap_seconds.h"

namespace {

using zg::core::ClockModel;
using zg::core::kNanosPerSecond;
using zg::core::kSecondsPerDay;
using zg::core::LeapEvent;
using zg::core::LeapPending;
using zg::core::LeapTable;
using zg::core::NtpLeapIndicator;
using zg::core::TaiNs;
using zg::core::UtcNs;

constexpr int64_t kS = kNanosPerSecond;
constexpr int64_t kDay = kSecondsPerDay * kS;

void Require(bool ok) {
  if (!ok) __builtin_trap();
}

// One leap: the offsets on both sides, and the UTC and TAI instants.
void CheckEvent(const LeapTable& t, const LeapEvent& e) {
  Require(e.offset_after_s - e.offset_before_s == e.direction());
  Require((e.kind == LeapPending::kInsert) == (e.direction() == 1));
  Require(t.TaiMinusUtc(e.tai - 1) == e.offset_before_s);
  Require(t.TaiMinusUtc(e.tai) == e.offset_after_s);
  Require(t.TaiMinusUtc(e.utc - 1) == e.offset_before_s);
  Require(t.TaiMinusUtc(e.utc) == e.offset_after_s);
  Require(t.NextLeap(e.utc - 1) == e);
  Require(t.NextLeap(e.tai - 1) == e);
  Require(t.UtcToTai(e.utc) == e.tai + (e.direction() == 1 ? kS : 0));
}

// UTC instants around a leap: UtcToTai is non-decreasing and round-trips
// except in the second a negative leap removes.
void CheckUtcSweep(const LeapTable& t, const LeapEvent& e) {
  TaiNs prev{INT64_MIN};
  for (int64_t d = -2 * kS; d <= 2 * kS; d += kS / 4) {
    const UtcNs u = e.utc + d;
    const TaiNs tai = t.UtcToTai(u);
    Require(tai >= prev);
    prev = tai;
    const bool removed = e.kind == LeapPending::kDelete && d >= -kS && d < 0;
    if (!removed) Require(t.TaiToUtc(tai) == u);
  }
}

// TAI instants around a leap: UTC advances with TAI except for the 1 s step
// back (insertion) or forward (deletion) at the leap.
void CheckTaiSweep(const LeapTable& t, const LeapEvent& e) {
  constexpr int64_t kStep = kS / 4;
  UtcNs prev = t.TaiToUtc(e.tai - 2 * kS - kStep);
  for (int64_t d = -2 * kS; d <= 2 * kS; d += kStep) {
    const TaiNs tai = e.tai + d;
    const UtcNs u = t.TaiToUtc(tai);
    const int64_t advance = u - prev;
    prev = u;
    if (d == 0) {
      Require(advance == kStep - e.direction() * kS);
    } else {
      Require(advance == kStep);
    }
    const bool repeated = e.kind == LeapPending::kInsert && d >= 0 && d < kS;
    Require(t.UtcToTai(u) == (repeated ? tai - kS : tai));
  }
}

// A ClockModel filled before the leap converts and announces as the table.
void CheckModel(const LeapTable& t, const LeapEvent& e, TaiNs earliest) {
  TaiNs now = e.tai - kDay - kS;
  if (now < earliest) now = earliest;
  ClockModel m;
  t.FillLeapFields(now, &m);
  Require(m.leap == e.kind && m.leap_at == e.tai);
  const TaiNs points[] = {
      now,   e.tai - kDay - 1, e.tai - kDay, e.tai - 2 * kS, e.tai - 1,
      e.tai, e.tai + kS / 2,   e.tai + kS,   e.tai + 2 * kS};
  for (TaiNs x : points) {
    if (x < now) continue;
    Require(m.TaiToUtc(x) == t.TaiToUtc(x));
    // After e the model announces nothing; the table may already announce
    // a leap on the following day.
    if (x < e.tai) Require(m.LeapAnnouncedAt(x) == t.LeapAnnouncedAt(x));
    if (x >= e.tai) Require(m.LeapAnnouncedAt(x) == LeapPending::kNone);
    const NtpLeapIndicator li = t.NtpLeapIndicatorAt(x);
    const zg::core::PtpLeapFlags flags = t.PtpLeapFlagsAt(x);
    Require(flags.leap61 == (li == NtpLeapIndicator::kLastMinute61));
    Require(flags.leap59 == (li == NtpLeapIndicator::kLastMinute59));
  }
  Require(t.LeapAnnouncedAt(e.tai - 1) == e.kind);
}

void CheckTable(const LeapTable& t) {
  Require(!t.entries().empty());
  Require(t.last_update() < t.expiry());
  Require(t.IsExpired(t.expiry()) && !t.IsExpired(t.expiry() - 1));
  Require(!t.Describe().empty());
  // Extremes saturate instead of overflowing.
  (void)t.UtcToTai(UtcNs{INT64_MIN});
  (void)t.UtcToTai(UtcNs{INT64_MAX});
  (void)t.TaiToUtc(TaiNs{INT64_MIN});
  (void)t.TaiToUtc(TaiNs{INT64_MAX});
  Require(t.TaiMinusUtc(TaiNs{INT64_MIN}) ==
          t.entries().front().tai_minus_utc_s);
  Require(t.TaiMinusUtc(UtcNs{INT64_MAX}) ==
          t.entries().back().tai_minus_utc_s);

  size_t leaps = 0;
  TaiNs previous_tai{INT64_MIN};
  for (std::optional<LeapEvent> e = t.NextLeap(TaiNs{INT64_MIN}); e.has_value();
       e = t.NextLeap(e->tai)) {
    Require(e->tai > previous_tai);
    Require(++leaps < t.entries().size());
    CheckEvent(t, *e);
    CheckUtcSweep(t, *e);
    CheckTaiSweep(t, *e);
    CheckModel(t, *e, previous_tai);
    previous_tai = e->tai;
  }
  Require(leaps + 1 == t.entries().size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  // As production parses it, with the SHA-1 check...
  const absl::StatusOr<LeapTable> verified = LeapTable::Parse(text);
  if (!verified.ok()) Require(!verified.status().message().empty());
  // ...and without it, so that mutated files reach the table rules and the
  // queries. Skipping the check never rejects a file that passed it.
  const absl::StatusOr<LeapTable> table =
      LeapTable::Parse(text, zg::core::LeapHashCheck::kSkipForTesting);
  Require(table.ok() || !verified.ok());
  if (!table.ok()) {
    Require(!table.status().message().empty());
    return 0;
  }
  CheckTable(*table);
  return 0;
}
