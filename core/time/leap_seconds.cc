// SPDX-License-Identifier: Apache-2.0
#include "core/time/leap_seconds.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/time/time_format.h"

namespace zg::core {
namespace {

// ---- The built-in table: every leap second 1972..2017 (NTP seconds of the
// UTC midnight it takes effect, TAI-UTC from then on), as in the IERS
// leap-seconds.list of 2025-07-07.
struct BuiltInLine {
  int64_t ntp_seconds;
  int32_t tai_minus_utc_s;
};
constexpr BuiltInLine kBuiltInLines[] = {
    {2'272'060'800, 10},  // 1972-01-01
    {2'287'785'600, 11},  // 1972-07-01
    {2'303'683'200, 12},  // 1973-01-01
    {2'335'219'200, 13},  // 1974-01-01
    {2'366'755'200, 14},  // 1975-01-01
    {2'398'291'200, 15},  // 1976-01-01
    {2'429'913'600, 16},  // 1977-01-01
    {2'461'449'600, 17},  // 1978-01-01
    {2'492'985'600, 18},  // 1979-01-01
    {2'524'521'600, 19},  // 1980-01-01
    {2'571'782'400, 20},  // 1981-07-01
    {2'603'318'400, 21},  // 1982-07-01
    {2'634'854'400, 22},  // 1983-07-01
    {2'698'012'800, 23},  // 1985-07-01
    {2'776'982'400, 24},  // 1988-01-01
    {2'840'140'800, 25},  // 1990-01-01
    {2'871'676'800, 26},  // 1991-01-01
    {2'918'937'600, 27},  // 1992-07-01
    {2'950'473'600, 28},  // 1993-07-01
    {2'982'009'600, 29},  // 1994-07-01
    {3'029'443'200, 30},  // 1996-01-01
    {3'076'704'000, 31},  // 1997-07-01
    {3'124'137'600, 32},  // 1999-01-01
    {3'345'062'400, 33},  // 2006-01-01
    {3'439'756'800, 34},  // 2009-01-01
    {3'550'089'600, 35},  // 2012-07-01
    {3'644'697'600, 36},  // 2015-07-01
    {3'692'217'600, 37},  // 2017-01-01
};

constexpr UtcNs NtpSecondsToUtc(int64_t ntp_seconds) {
  return {(ntp_seconds - kNtpUnixEpochOffsetSeconds) * kNanosPerSecond};
}

constexpr UtcNs kMinEntryUtc = NtpSecondsToUtc(0);
constexpr UtcNs kMaxEntryUtc = NtpSecondsToUtc(LeapTable::kMaxNtpSeconds);

std::string Date(UtcNs t) { return FormatUtc(t).substr(0, 10); }

// ---- Parsing helpers over one line. -------------------------------------

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

size_t SkipSpaces(absl::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// The run of characters from `i` satisfying `pred`.
template <typename Pred>
absl::string_view TakeWhile(absl::string_view s, size_t i, Pred pred) {
  size_t j = i;
  while (j < s.size() && pred(s[j])) ++j;
  return s.substr(i, j - i);
}

// Decimal digits -> value, or nullopt if above `max` (no overflow).
std::optional<int64_t> DigitsValue(absl::string_view digits, int64_t max) {
  int64_t v = 0;
  for (char c : digits) {
    v = v * 10 + (c - '0');
    if (v > max) return std::nullopt;
  }
  return v;
}

// What Parse collects before validating the table.
struct ParsedFile {
  std::vector<LeapEntry> entries;
  std::vector<int> entry_lines;
  int64_t last_update_ntp = -1;
  int last_update_line = 0;
  int64_t expiry_ntp = -1;
  int expiry_line = 0;
  std::array<uint32_t, 5> hash{};
  int hash_line = 0;
  std::string hashed_digits;  // digits of the $, @ and data lines, in order
};

absl::Status LineError(int line_no, absl::string_view line,
                       absl::string_view what) {
  constexpr size_t kMaxEcho = 60;
  const bool cut = line.size() > kMaxEcho;
  return absl::InvalidArgumentError(absl::StrFormat(
      "leap-seconds.list line %d: %s (line: \"%s%s\")", line_no, what,
      absl::CHexEscape(line.substr(0, kMaxEcho)), cut ? "..." : ""));
}

// "#$ 3960835200" or "#@ 3991593600"; `name` is the two-character marker.
absl::Status ParseDateLine(absl::string_view line, int line_no,
                           absl::string_view name, int64_t* value,
                           int* value_line, std::string* hashed) {
  if (*value_line != 0) {
    return LineError(line_no, line,
                     absl::StrFormat("second %s line (the first is line %d)",
                                     name, *value_line));
  }
  const size_t start = SkipSpaces(line, 2);
  const absl::string_view digits = TakeWhile(line, start, IsDigit);
  if (digits.empty() ||
      SkipSpaces(line, start + digits.size()) != line.size()) {
    return LineError(line_no, line,
                     absl::StrFormat("expected '%s <NTP seconds>'", name));
  }
  const std::optional<int64_t> v =
      DigitsValue(digits, LeapTable::kMaxNtpSeconds);
  if (!v.has_value()) {
    return LineError(line_no, line,
                     absl::StrFormat("NTP seconds above %d (year 2216)",
                                     LeapTable::kMaxNtpSeconds));
  }
  *value = *v;
  *value_line = line_no;
  hashed->append(digits.data(), digits.size());
  return absl::OkStatus();
}

// "#h 49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e". Publishers have dropped
// leading zeros of a word, so each word is 1..8 hex digits.
absl::Status ParseHashLine(absl::string_view line, int line_no, ParsedFile* f) {
  if (f->hash_line != 0) {
    return LineError(line_no, line,
                     absl::StrFormat("second '#h' hash line (the first is "
                                     "line %d)",
                                     f->hash_line));
  }
  size_t i = 2;
  for (uint32_t& word : f->hash) {
    const size_t start = SkipSpaces(line, i);
    const absl::string_view hex =
        TakeWhile(line, start, [](char c) { return absl::ascii_isxdigit(c); });
    if (start == i || hex.empty() || hex.size() > 8 ||
        !absl::SimpleHexAtoi(hex, &word)) {
      return LineError(line_no, line,
                       "expected '#h' and five words of 1 to 8 hexadecimal "
                       "digits (the SHA-1)");
    }
    i = start + hex.size();
  }
  if (SkipSpaces(line, i) != line.size()) {
    return LineError(line_no, line, "text after the five '#h' hash words");
  }
  f->hash_line = line_no;
  return absl::OkStatus();
}

// "2272060800      10      # 1 Jan 1972"
absl::Status ParseDataLine(absl::string_view line, int line_no, ParsedFile* f) {
  constexpr absl::string_view kExpected =
      "expected '<NTP seconds> <TAI-UTC> [# comment]'";
  const absl::string_view ntp_digits = TakeWhile(line, 0, IsDigit);
  const size_t offset_start = SkipSpaces(line, ntp_digits.size());
  const absl::string_view offset_digits =
      TakeWhile(line, offset_start, IsDigit);
  if (offset_start == ntp_digits.size() || offset_digits.empty()) {
    return LineError(line_no, line, kExpected);
  }
  const size_t end = SkipSpaces(line, offset_start + offset_digits.size());
  if (end != line.size() && line[end] != '#') {
    return LineError(line_no, line, kExpected);
  }
  const std::optional<int64_t> ntp_s =
      DigitsValue(ntp_digits, LeapTable::kMaxNtpSeconds);
  if (!ntp_s.has_value()) {
    return LineError(line_no, line,
                     absl::StrFormat("NTP seconds above %d (year 2216)",
                                     LeapTable::kMaxNtpSeconds));
  }
  const std::optional<int64_t> offset_s =
      DigitsValue(offset_digits, LeapTable::kMaxTaiMinusUtcS);
  if (!offset_s.has_value()) {
    return LineError(
        line_no, line,
        absl::StrFormat("TAI-UTC above %d s", LeapTable::kMaxTaiMinusUtcS));
  }
  if (f->entries.size() >= LeapTable::kMaxEntries) {
    return LineError(
        line_no, line,
        absl::StrFormat("more than %d data lines", LeapTable::kMaxEntries));
  }
  f->entries.push_back(
      {NtpSecondsToUtc(*ntp_s), static_cast<int32_t>(*offset_s)});
  f->entry_lines.push_back(line_no);
  f->hashed_digits.append(ntp_digits.data(), ntp_digits.size());
  f->hashed_digits.append(offset_digits.data(), offset_digits.size());
  return absl::OkStatus();
}

absl::Status ParseLine(absl::string_view line, int line_no, ParsedFile* f) {
  if (SkipSpaces(line, 0) == line.size()) return absl::OkStatus();  // blank
  if (line[0] == '#') {
    if (line.size() < 2) return absl::OkStatus();
    switch (line[1]) {
      case '$':
        return ParseDateLine(line, line_no, "#$", &f->last_update_ntp,
                             &f->last_update_line, &f->hashed_digits);
      case '@':
        return ParseDateLine(line, line_no, "#@", &f->expiry_ntp,
                             &f->expiry_line, &f->hashed_digits);
      case 'h':
        return ParseHashLine(line, line_no, f);
      default:
        return absl::OkStatus();  // comment
    }
  }
  if (IsDigit(line[0])) return ParseDataLine(line, line_no, f);
  return LineError(line_no, line,
                   "expected a comment ('#...'), a '#$', '#@' or '#h' line, "
                   "or a data line starting with NTP seconds");
}

absl::StatusOr<std::array<uint8_t, 20>> Sha1(absl::string_view data) {
  std::array<uint8_t, 20> digest{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &len, EVP_sha1(),
                 nullptr) != 1 ||
      len != digest.size()) {
    return absl::InternalError(
        "leap-seconds.list: libcrypto could not compute SHA-1 (is the OpenSSL "
        "default provider available?)");
  }
  return digest;
}

std::string HashWords(const std::array<uint32_t, 5>& words) {
  return absl::StrJoin(words, " ", [](std::string* out, uint32_t w) {
    absl::StrAppendFormat(out, "%08x", w);
  });
}

absl::Status VerifyHash(const ParsedFile& f) {
  if (f.hash_line == 0) {
    return absl::InvalidArgumentError(
        "leap-seconds.list: no '#h' hash line, so the file cannot be "
        "verified; use the complete file as published (IERS, or the tzdata "
        "package's /usr/share/zoneinfo/leap-seconds.list)");
  }
  ZG_ASSIGN_OR_RETURN(const auto digest, Sha1(f.hashed_digits));
  std::array<uint32_t, 5> computed{};
  for (size_t k = 0; k < computed.size(); ++k) {
    computed[k] = (uint32_t{digest[4 * k]} << 24) |
                  (uint32_t{digest[4 * k + 1]} << 16) |
                  (uint32_t{digest[4 * k + 2]} << 8) | digest[4 * k + 3];
  }
  if (computed != f.hash) {
    return absl::DataLossError(absl::StrFormat(
        "leap-seconds.list: SHA-1 mismatch: line %d says %s but the '#$', "
        "'#@' and data lines hash to %s; the file is corrupt or was edited "
        "(replace it with a fresh copy from IERS or the tzdata package)",
        f.hash_line, HashWords(f.hash), HashWords(computed)));
  }
  return absl::OkStatus();
}

}  // namespace

// ---- Construction ---------------------------------------------------------

template <typename Where>
absl::StatusOr<LeapTable> LeapTable::Build(std::vector<LeapEntry> entries,
                                           UtcNs last_update, UtcNs expiry,
                                           const Where& where) {
  if (entries.empty()) {
    return absl::InvalidArgumentError(
        "leap table: no data lines (<NTP seconds> <TAI-UTC>)");
  }
  if (entries.size() > kMaxEntries) {
    return absl::InvalidArgumentError(
        absl::StrFormat("leap table: more than %d entries", kMaxEntries));
  }
  if (last_update >= expiry) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "leap table: the last update (%s) is not before the expiry (%s)",
        FormatUtc(last_update), FormatUtc(expiry)));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const LeapEntry& e = entries[i];
    if (e.utc < kMinEntryUtc || e.utc > kMaxEntryUtc) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %s is outside 1900..2216", where(i), FormatUtc(e.utc)));
    }
    if (e.tai_minus_utc_s > kMaxTaiMinusUtcS ||
        e.tai_minus_utc_s < -kMaxTaiMinusUtcS) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: TAI-UTC %d s is out of range (+-%d)", where(i),
                          e.tai_minus_utc_s, kMaxTaiMinusUtcS));
    }
    if (FloorMod(e.utc.value, kSecondsPerDay * kNanosPerSecond) != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %s is not a UTC midnight (leap seconds take effect at "
          "00:00:00 UTC)",
          where(i), FormatUtc(e.utc)));
    }
    if (i == 0) continue;
    const LeapEntry& prev = entries[i - 1];
    if (e.utc <= prev.utc) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %s is not after the previous entry's %s (entries must be in "
          "time order)",
          where(i), Date(e.utc), Date(prev.utc)));
    }
    const int32_t step = e.tai_minus_utc_s - prev.tai_minus_utc_s;
    if (step != 1 && step != -1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: TAI-UTC goes from %d to %d s on %s; a leap second changes it "
          "by exactly 1",
          where(i), prev.tai_minus_utc_s, e.tai_minus_utc_s, Date(e.utc)));
    }
  }
  LeapTable table;
  table.tai_starts_.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    // The new offset starts where UTC reads 23:59:60 (insertion) or where
    // 23:59:59 would have begun (deletion): midnight + the smaller offset.
    const int32_t before =
        i == 0 ? entries[i].tai_minus_utc_s : entries[i - 1].tai_minus_utc_s;
    const int32_t lower = std::min(before, entries[i].tai_minus_utc_s);
    table.tai_starts_.push_back(
        TaiNs{entries[i].utc.value + int64_t{lower} * kNanosPerSecond});
  }
  table.entries_ = std::move(entries);
  table.last_update_ = last_update;
  table.expiry_ = expiry;
  return table;
}

absl::StatusOr<LeapTable> LeapTable::Parse(absl::string_view text,
                                           LeapHashCheck check) {
  ParsedFile f;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == absl::string_view::npos) eol = text.size();
    absl::string_view line = text.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = eol + 1;
    ZG_RETURN_IF_ERROR(ParseLine(line, ++line_no, &f));
  }
  if (f.last_update_line == 0) {
    return absl::InvalidArgumentError(
        "leap-seconds.list: no '#$' (last update) line; is this a "
        "leap-seconds.list file?");
  }
  if (f.expiry_line == 0) {
    return absl::InvalidArgumentError(
        "leap-seconds.list: no '#@' (expiry) line; is this a "
        "leap-seconds.list file?");
  }
  if (f.entries.empty()) {
    return absl::InvalidArgumentError(
        "leap-seconds.list: no data lines (<NTP seconds> <TAI-UTC>)");
  }
  if (check == LeapHashCheck::kRequire) ZG_RETURN_IF_ERROR(VerifyHash(f));
  return Build(std::move(f.entries), NtpSecondsToUtc(f.last_update_ntp),
               NtpSecondsToUtc(f.expiry_ntp), [&f](size_t i) {
                 return absl::StrFormat("leap-seconds.list line %d",
                                        f.entry_lines[i]);
               });
}

absl::StatusOr<LeapTable> LeapTable::Create(std::vector<LeapEntry> entries,
                                            UtcNs last_update, UtcNs expiry) {
  return Build(std::move(entries), last_update, expiry, [](size_t i) {
    return absl::StrFormat("leap table entry %d", i);
  });
}

LeapTable LeapTable::BuiltIn() {
  std::vector<LeapEntry> entries;
  entries.reserve(std::size(kBuiltInLines));
  for (const BuiltInLine& l : kBuiltInLines) {
    entries.push_back({NtpSecondsToUtc(l.ntp_seconds), l.tai_minus_utc_s});
  }
  // The data above is constant and tested; Create cannot fail on it.
  absl::StatusOr<LeapTable> table =
      Create(std::move(entries), kBuiltInLeapLastUpdate, kBuiltInLeapExpiry);
  table->built_in_ = true;
  return *std::move(table);
}

std::string LeapTable::Describe() const {
  const LeapEntry& last = entries_.back();
  return absl::StrFormat(
      "TAI-UTC %d s since %s, %d entries, updated %s, expires %s (%s)",
      last.tai_minus_utc_s, Date(last.utc), entries_.size(), Date(last_update_),
      Date(expiry_), built_in_ ? "built-in" : "file");
}

// ---- Queries --------------------------------------------------------------

int32_t LeapTable::TaiMinusUtc(UtcNs t) const {
  const auto it =
      std::upper_bound(entries_.begin(), entries_.end(), t,
                       [](UtcNs v, const LeapEntry& e) { return v < e.utc; });
  return it == entries_.begin() ? entries_.front().tai_minus_utc_s
                                : std::prev(it)->tai_minus_utc_s;
}

int32_t LeapTable::TaiMinusUtc(TaiNs t) const {
  const size_t n = static_cast<size_t>(
      std::upper_bound(tai_starts_.begin(), tai_starts_.end(), t) -
      tai_starts_.begin());
  return entries_[n == 0 ? 0 : n - 1].tai_minus_utc_s;
}

TaiNs LeapTable::UtcToTai(UtcNs t) const {
  const std::optional<LeapEvent> next = NextLeap(t);
  if (next.has_value() && next->kind == LeapPending::kDelete &&
      t.value >= next->utc.value - kNanosPerSecond) {
    return next->tai;  // the removed 23:59:59 does not exist
  }
  return {SaturatingNanos(TaiMinusUtc(t), t.value)};
}

UtcNs LeapTable::TaiToUtc(TaiNs t) const {
  return {SaturatingNanos(-TaiMinusUtc(t), t.value)};
}

LeapEvent LeapTable::EventAt(size_t i) const {
  const int32_t before = entries_[i - 1].tai_minus_utc_s;
  const int32_t after = entries_[i].tai_minus_utc_s;
  return {entries_[i].utc, tai_starts_[i],
          after > before ? LeapPending::kInsert : LeapPending::kDelete, before,
          after};
}

std::optional<LeapEvent> LeapTable::NextLeap(UtcNs t) const {
  const size_t n = static_cast<size_t>(
      std::upper_bound(entries_.begin(), entries_.end(), t,
                       [](UtcNs v, const LeapEntry& e) { return v < e.utc; }) -
      entries_.begin());
  const size_t i = std::max<size_t>(n, 1);  // entry 0 starts the table
  if (i >= entries_.size()) return std::nullopt;
  return EventAt(i);
}

std::optional<LeapEvent> LeapTable::NextLeap(TaiNs t) const {
  const size_t n = static_cast<size_t>(
      std::upper_bound(tai_starts_.begin(), tai_starts_.end(), t) -
      tai_starts_.begin());
  const size_t i = std::max<size_t>(n, 1);
  if (i >= entries_.size()) return std::nullopt;
  return EventAt(i);
}

void LeapTable::FillLeapFields(TaiNs now, ClockModel* model) const {
  model->utc_offset_s = TaiMinusUtc(now);
  const std::optional<LeapEvent> next = NextLeap(now);
  model->leap = next.has_value() ? next->kind : LeapPending::kNone;
  model->leap_at = next.has_value() ? next->tai : TaiNs{};
}

LeapPending LeapTable::LeapAnnouncedAt(TaiNs t) const {
  ClockModel model;
  FillLeapFields(t, &model);
  return model.LeapAnnouncedAt(t);
}

NtpLeapIndicator LeapTable::NtpLeapIndicatorAt(TaiNs t) const {
  return NtpLeapIndicatorFor(LeapAnnouncedAt(t));
}

PtpLeapFlags LeapTable::PtpLeapFlagsAt(TaiNs t) const {
  const LeapPending p = LeapAnnouncedAt(t);
  return {p == LeapPending::kInsert, p == LeapPending::kDelete};
}

}  // namespace zg::core
