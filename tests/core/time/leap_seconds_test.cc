// SPDX-License-Identifier: Apache-2.0
#include "core/time/leap_seconds.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/time/clock_model.h"
#include "core/time/time_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace leap_seconds_test {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kS = kNanosPerSecond;
constexpr int64_t kDay = kSecondsPerDay * kS;
// UTC midnights (POSIX seconds), checked with `date -u -d ... +%s`.
constexpr UtcNs k1972Jul01{78'796'800 * kS};
constexpr UtcNs k2017Jan01{1'483'228'800 * kS};
constexpr UtcNs k2027Jan01{1'798'761'600 * kS};  // synthetic negative leap
constexpr UtcNs k2037Jan01{2'114'380'800 * kS};  // synthetic, NTP era 1
// The 2016-12-31 leap second starts (UTC 23:59:60) at this TAI instant.
constexpr TaiNs k2016LeapTai{(1'483'228'800 + 36) * kS};

std::string DataPath(const std::string& name) {
  const char* dir = std::getenv("ZG_TEST_DATA_DIR");
  return absl::StrCat(dir != nullptr ? dir : "tests/data", "/", name);
}

std::string ReadData(const std::string& name) {
  std::ifstream in(DataPath(name), std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << DataPath(name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Status messages as std::string, so gmock prints them readably.
std::string Msg(const absl::Status& s) { return std::string(s.message()); }

LeapTable ParseOrDie(absl::string_view text,
                     LeapHashCheck check = LeapHashCheck::kRequire) {
  absl::StatusOr<LeapTable> t = LeapTable::Parse(text, check);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *std::move(t) : LeapTable::BuiltIn();
}

// ---- Parsing the real file --------------------------------------------------

TEST(LeapTableParseTest, RealDebianFileParsesAndVerifies) {
  const LeapTable t = ParseOrDie(ReadData("leap-seconds.list"));
  EXPECT_FALSE(t.is_built_in());
  ASSERT_EQ(t.entries().size(), 28u);
  EXPECT_EQ(t.entries().front(),
            (LeapEntry{UtcNs{63'072'000 * kS}, 10}));  // 1972-01-01
  EXPECT_EQ(t.entries()[1], (LeapEntry{k1972Jul01, 11}));
  EXPECT_EQ(t.entries().back(), (LeapEntry{k2017Jan01, 37}));
  EXPECT_EQ(FormatUtc(t.last_update()), "2025-07-07T00:00:00.000000000Z");
  EXPECT_EQ(FormatUtc(t.expiry()), "2026-06-28T00:00:00.000000000Z");
  // The built-in table is this file's data.
  const LeapTable b = LeapTable::BuiltIn();
  EXPECT_EQ(b.entries(), t.entries());
  EXPECT_EQ(b.last_update(), t.last_update());
  EXPECT_EQ(b.expiry(), t.expiry());
}

TEST(LeapTableParseTest, InstalledSystemFileParsesAndVerifies) {
  const std::string path = "/usr/share/zoneinfo/leap-seconds.list";
  std::ifstream in(path);
  if (!in.good()) GTEST_SKIP() << path << " not installed";
  std::ostringstream ss;
  ss << in.rdbuf();
  absl::StatusOr<LeapTable> t = LeapTable::Parse(ss.str());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_GE(t->entries().size(), 28u);
  EXPECT_EQ(t->TaiMinusUtc(k2017Jan01), 37);
}

TEST(LeapTableParseTest, SyntheticFileWithNegativeLeapAndEra1Verifies) {
  // Hashed with Python hashlib, leading zeros of a hash word dropped.
  const LeapTable t = ParseOrDie(ReadData("leap-seconds-synthetic.list"));
  ASSERT_EQ(t.entries().size(), 30u);
  EXPECT_EQ(t.entries()[28], (LeapEntry{k2027Jan01, 36}));
  EXPECT_EQ(t.entries()[29], (LeapEntry{k2037Jan01, 37}));
  EXPECT_EQ(FormatUtc(t.expiry()), "2037-07-01T00:00:00.000000000Z");
}

TEST(LeapTableParseTest, CrLfLineEndingsAccepted) {
  const std::string text =
      absl::StrReplaceAll(ReadData("leap-seconds.list"), {{"\n", "\r\n"}});
  EXPECT_EQ(ParseOrDie(text).entries().size(), 28u);
}

// Replaces the first occurrence of `from` (which must exist) with `to`.
std::string Edit(std::string text, const std::string& from,
                 const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(LeapTableParseTest, OneChangedDigitFailsTheHash) {
  const std::string real = ReadData("leap-seconds.list");
  const std::pair<std::string, std::string> edits[] = {
      {"#$\t3960835200", "#$\t3960835201"},          // last update
      {"#@\t3991593600", "#@\t3991593700"},          // expiry
      {"3692217600      37", "3692217600      36"},  // a TAI-UTC value
      {"2287785600      11", "2287785700      11"},  // a leap's date
      {"49db2447", "49db2448"},                      // the hash itself
  };
  for (const auto& [from, to] : edits) {
    const absl::StatusOr<LeapTable> t = LeapTable::Parse(Edit(real, from, to));
    ASSERT_FALSE(t.ok()) << to;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss) << t.status();
    EXPECT_THAT(Msg(t.status()), HasSubstr("SHA-1 mismatch: line 120"));
    EXPECT_THAT(Msg(t.status()),
                HasSubstr("49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e"));
  }
  // Comments are not hashed: editing one keeps the file valid.
  EXPECT_TRUE(
      LeapTable::Parse(Edit(real, "# 1 Jan 1972", "# 2 Jan 1972")).ok());
  // Without the hash check the edited TAI-UTC is refused on its merits.
  const absl::StatusOr<LeapTable> unchecked =
      LeapTable::Parse(Edit(real, "3692217600      37", "3692217600      38"),
                       LeapHashCheck::kSkipForTesting);
  EXPECT_THAT(Msg(unchecked.status()),
              HasSubstr("line 113: TAI-UTC goes from 36 to 38 s"));
}

struct BadInput {
  std::string text;
  absl::StatusCode code;
  std::string message;
};

TEST(LeapTableParseTest, MalformedInputNamesTheLine) {
  const std::string head = "#$ 3960835200\n#@ 3991593600\n";
  const std::string ok_line = "2272060800 10\n";
  const std::vector<BadInput> cases = {
      {"", absl::StatusCode::kInvalidArgument, "no '#$' (last update) line"},
      {"#$ 3960835200\n" + ok_line, absl::StatusCode::kInvalidArgument,
       "no '#@' (expiry) line"},
      {head, absl::StatusCode::kInvalidArgument, "no data lines"},
      {head + "2272060800 ten\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '<NTP seconds> <TAI-UTC> [# comment]' (line: "
       "\"2272060800 ten\")"},
      {head + "2272060800\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '<NTP seconds> <TAI-UTC>"},
      {head + "2272060800 10 x\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '<NTP seconds> <TAI-UTC>"},
      {head + "2272060800 -10\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '<NTP seconds> <TAI-UTC>"},
      {head + " 2272060800 10\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected a comment"},
      {head + "2272060800 10\n\x01zz\n", absl::StatusCode::kInvalidArgument,
       "line 4: expected a comment ('#...'), a '#$', '#@' or '#h' line, or a "
       "data line starting with NTP seconds (line: \"\\x01zz\")"},
      {head + "10000000000 10\n", absl::StatusCode::kInvalidArgument,
       "line 3: NTP seconds above 9999999999"},
      {head + "2272060800 1000\n", absl::StatusCode::kInvalidArgument,
       "line 3: TAI-UTC above 999 s"},
      {head + "#$ 3960835200\n", absl::StatusCode::kInvalidArgument,
       "line 3: second #$ line (the first is line 1)"},
      {"#$ 39608x5200\n", absl::StatusCode::kInvalidArgument,
       "line 1: expected '#$ <NTP seconds>'"},
      {"#@\n", absl::StatusCode::kInvalidArgument,
       "line 1: expected '#@ <NTP seconds>'"},
      {head + "#h 1 2 3 4\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '#h' and five words"},
      {head + "#h 1 2 3 4 123456789\n", absl::StatusCode::kInvalidArgument,
       "line 3: expected '#h' and five words"},
      {head + "#h 1 2 3 4 5 6\n", absl::StatusCode::kInvalidArgument,
       "line 3: text after the five '#h' hash words"},
      {head + "#h 1 2 3 4 5\n#h 1 2 3 4 5\n",
       absl::StatusCode::kInvalidArgument,
       "line 4: second '#h' hash line (the first is line 3)"},
      {head + ok_line, absl::StatusCode::kInvalidArgument,
       "no '#h' hash line, so the file cannot be verified"},
      {head + ok_line + "#h 1 2 3 4 5\n", absl::StatusCode::kDataLoss,
       "SHA-1 mismatch: line 4 says 00000001 00000002 00000003 00000004 "
       "00000005"},
  };
  for (const BadInput& c : cases) {
    const absl::StatusOr<LeapTable> t = LeapTable::Parse(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), c.code) << t.status();
    EXPECT_THAT(Msg(t.status()), HasSubstr(c.message)) << c.text;
  }
}

TEST(LeapTableParseTest, TableRulesNameTheLine) {
  const std::string head = "#$ 3960835200\n#@ 3991593600\n# comment\n";
  const std::vector<BadInput> cases = {
      {head + "2272060801 10\n", absl::StatusCode::kInvalidArgument,
       "line 4: 1972-01-01T00:00:01.000000000Z is not a UTC midnight"},
      {head + "2287785600 11\n2272060800 10\n",
       absl::StatusCode::kInvalidArgument,
       "line 5: 1972-01-01 is not after the previous entry's 1972-07-01"},
      {head + "2272060800 10\n2272060800 11\n",
       absl::StatusCode::kInvalidArgument, "line 5: 1972-01-01 is not after"},
      {head + "2272060800 10\n\n2287785600 12\n",
       absl::StatusCode::kInvalidArgument,
       "line 6: TAI-UTC goes from 10 to 12 s on 1972-07-01; a leap second "
       "changes it by exactly 1"},
      {head + "2272060800 10\n2287785600 10\n",
       absl::StatusCode::kInvalidArgument, "goes from 10 to 10 s"},
      {"#$ 3991593600\n#@ 3991593600\n2272060800 10\n",
       absl::StatusCode::kInvalidArgument,
       "the last update (2026-06-28T00:00:00.000000000Z) is not before the "
       "expiry"},
  };
  for (const BadInput& c : cases) {
    const absl::StatusOr<LeapTable> t =
        LeapTable::Parse(c.text, LeapHashCheck::kSkipForTesting);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), c.code) << t.status();
    EXPECT_THAT(Msg(t.status()), HasSubstr(c.message)) << c.text;
  }
}

TEST(LeapTableParseTest, EntryCountIsBounded) {
  std::string text = "#$ 1\n#@ 2\n";
  for (size_t i = 0; i <= LeapTable::kMaxEntries; ++i) {
    absl::StrAppend(&text, 2'272'060'800 + i * 86'400, " ", 10 + i % 2, "\n");
  }
  const absl::StatusOr<LeapTable> t =
      LeapTable::Parse(text, LeapHashCheck::kSkipForTesting);
  EXPECT_THAT(Msg(t.status()),
              HasSubstr("line 1003: more than 1000 data lines"));
}

// The error message of a Create() that must fail.
std::string CreateError(std::vector<LeapEntry> entries) {
  absl::StatusOr<LeapTable> t =
      LeapTable::Create(std::move(entries), UtcNs{0}, UtcNs{1});
  EXPECT_FALSE(t.ok());
  return Msg(t.status());
}

TEST(LeapTableCreateTest, ValidatesEntries) {
  EXPECT_THAT(CreateError({}), HasSubstr("no data lines"));
  EXPECT_THAT(CreateError({{k2017Jan01 + 1, 37}}),
              HasSubstr("leap table entry 0: 2017-01-01T00:00:00.000000001Z "
                        "is not a UTC midnight"));
  EXPECT_THAT(CreateError({{k2017Jan01, 37}, {k2027Jan01, 39}}),
              HasSubstr("leap table entry 1: TAI-UTC goes from 37 to 39 s"));
  EXPECT_THAT(CreateError({{UtcNs{INT64_MAX / kDay * kDay}, 37}}),
              HasSubstr("outside 1900..2216"));
  EXPECT_THAT(CreateError({{k2017Jan01, 5000}}),
              HasSubstr("TAI-UTC 5000 s is out of range"));
  EXPECT_TRUE(LeapTable::Create({{k2017Jan01, 37}}, UtcNs{0}, UtcNs{1}).ok());
}

// ---- The built-in table -----------------------------------------------------

TEST(LeapTableBuiltInTest, EveryLeapSince1972) {
  const LeapTable b = LeapTable::BuiltIn();
  EXPECT_TRUE(b.is_built_in());
  ASSERT_EQ(b.entries().size(), 28u);
  for (size_t i = 0; i < b.entries().size(); ++i) {
    EXPECT_EQ(b.entries()[i].tai_minus_utc_s, 10 + static_cast<int32_t>(i));
  }
  EXPECT_EQ(b.Describe(),
            "TAI-UTC 37 s since 2017-01-01, 28 entries, updated 2025-07-07, "
            "expires 2026-06-28 (built-in)");
  EXPECT_EQ(b.expiry(), kBuiltInLeapExpiry);
}

TEST(LeapTableBuiltInTest, Expiry) {
  const LeapTable b = LeapTable::BuiltIn();
  EXPECT_FALSE(b.IsExpired(kBuiltInLeapExpiry - 1));
  EXPECT_TRUE(b.IsExpired(kBuiltInLeapExpiry));
  EXPECT_TRUE(b.IsExpired(kBuiltInLeapExpiry + 365 * kDay));
  const LeapTable file = ParseOrDie(ReadData("leap-seconds.list"));
  EXPECT_TRUE(file.IsExpired(UtcNs{1'800'000'000 * kS}));   // 2027
  EXPECT_FALSE(file.IsExpired(UtcNs{1'700'000'000 * kS}));  // 2023
}

// ---- Queries ----------------------------------------------------------------

TEST(LeapTableQueryTest, TaiMinusUtcKnownAnswers) {
  const LeapTable t = LeapTable::BuiltIn();
  EXPECT_EQ(t.TaiMinusUtc(UtcNs{0}), 10);  // before 1972: the first offset
  EXPECT_EQ(t.TaiMinusUtc(k1972Jul01 - 1), 10);
  EXPECT_EQ(t.TaiMinusUtc(k1972Jul01), 11);
  EXPECT_EQ(t.TaiMinusUtc(k2017Jan01 - 1), 36);
  EXPECT_EQ(t.TaiMinusUtc(k2017Jan01), 37);
  EXPECT_EQ(t.TaiMinusUtc(UtcNs{1'700'000'000 * kS}), 37);
  // At TAI the offset changes at the start of 23:59:60.
  EXPECT_EQ(t.TaiMinusUtc(k2016LeapTai - 1), 36);
  EXPECT_EQ(t.TaiMinusUtc(k2016LeapTai), 37);
  EXPECT_EQ(t.TaiMinusUtc(k2016LeapTai + kS), 37);
  EXPECT_EQ(t.TaiMinusUtc(TaiNs{INT64_MIN}), 10);
  EXPECT_EQ(t.TaiMinusUtc(TaiNs{INT64_MAX}), 37);
}

TEST(LeapTableQueryTest, ConversionsAcrossThe2016LeapSecond) {
  const LeapTable t = LeapTable::BuiltIn();
  EXPECT_EQ(t.UtcToTai(UtcNs{1'700'000'000 * kS}), TaiNs{1'700'000'037 * kS});
  EXPECT_EQ(t.UtcToTai(k2017Jan01), TaiNs{(1'483'228'800 + 37) * kS});
  EXPECT_EQ(t.UtcToTai(k2017Jan01 - kS), k2016LeapTai - kS);  // 23:59:59
  // TAI seconds around the leap and what UTC (POSIX) reads.
  const struct {
    int64_t tai_offset_ns;
    const char* utc;
  } steps[] = {
      {-kS, "2016-12-31T23:59:59.000000000Z"},
      {-1, "2016-12-31T23:59:59.999999999Z"},
      {0, "2016-12-31T23:59:59.000000000Z"},  // 23:59:60 reads as :59 again
      {kS / 2, "2016-12-31T23:59:59.500000000Z"},
      {kS, "2017-01-01T00:00:00.000000000Z"},
      {2 * kS, "2017-01-01T00:00:01.000000000Z"},
  };
  for (const auto& s : steps) {
    EXPECT_EQ(FormatUtc(t.TaiToUtc(k2016LeapTai + s.tai_offset_ns)), s.utc)
        << s.tai_offset_ns;
  }
}

TEST(LeapTableQueryTest, RoundTripsAroundEveryLeap) {
  const LeapTable t = ParseOrDie(ReadData("leap-seconds-synthetic.list"));
  for (size_t i = 1; i < t.entries().size(); ++i) {
    const UtcNs midnight = t.entries()[i].utc;
    const bool deletion =
        t.entries()[i].tai_minus_utc_s < t.entries()[i - 1].tai_minus_utc_s;
    TaiNs prev_tai{INT64_MIN};
    for (int64_t d = -3 * kS; d <= 3 * kS; d += kS / 8) {
      const UtcNs u = midnight + d;
      const TaiNs tai = t.UtcToTai(u);
      ASSERT_GE(tai, prev_tai) << u;  // non-decreasing
      prev_tai = tai;
      const bool removed = deletion && d >= -kS && d < 0;
      if (!removed) {
        ASSERT_EQ(t.TaiToUtc(tai), u) << u;
      }
    }
    const TaiNs leap_tai = t.NextLeap(midnight - 3 * kS)->tai;
    for (int64_t d = -3 * kS; d <= 3 * kS; d += kS / 8) {
      const TaiNs tai = leap_tai + d;
      const bool repeated = !deletion && d >= 0 && d < kS;
      ASSERT_EQ(t.UtcToTai(t.TaiToUtc(tai)), repeated ? tai - kS : tai) << d;
    }
  }
}

TEST(LeapTableQueryTest, NextLeap) {
  const LeapTable t = LeapTable::BuiltIn();
  const LeapEvent want{k2017Jan01, k2016LeapTai, LeapPending::kInsert, 36, 37};
  EXPECT_EQ(t.NextLeap(UtcNs{1'467'331'200 * kS}), want);  // from 2016-07-01
  EXPECT_EQ(t.NextLeap(k2017Jan01 - 1), want);
  EXPECT_EQ(t.NextLeap(k2016LeapTai - 1), want);
  EXPECT_EQ(want.direction(), 1);
  EXPECT_FALSE(t.NextLeap(k2016LeapTai).has_value());  // in progress
  EXPECT_FALSE(t.NextLeap(k2017Jan01).has_value());
  // Before the table, the first leap is 1972-06-30 (1972-01-01 starts it).
  const std::optional<LeapEvent> first = t.NextLeap(UtcNs{0});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->utc, k1972Jul01);
  EXPECT_EQ(first->tai, TaiNs{(78'796'800 + 10) * kS});
  EXPECT_EQ(first->offset_before_s, 10);
  EXPECT_EQ(first->offset_after_s, 11);
  EXPECT_EQ(t.NextLeap(TaiNs{0})->utc, k1972Jul01);
}

TEST(LeapTableQueryTest, LeapIndicatorsDuringTheLastUtcDay) {
  const LeapTable t = LeapTable::BuiltIn();
  // 86400 s before 23:59:60 is 2016-12-31T00:00:00Z.
  const TaiNs day_start = k2016LeapTai - kDay;
  EXPECT_EQ(FormatUtc(t.TaiToUtc(day_start)), "2016-12-31T00:00:00.000000000Z");
  EXPECT_EQ(t.NtpLeapIndicatorAt(day_start - 1), NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(t.NtpLeapIndicatorAt(day_start), NtpLeapIndicator::kLastMinute61);
  EXPECT_EQ(t.NtpLeapIndicatorAt(k2016LeapTai - 1),
            NtpLeapIndicator::kLastMinute61);
  EXPECT_EQ(t.NtpLeapIndicatorAt(k2016LeapTai), NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(t.PtpLeapFlagsAt(day_start - 1), (PtpLeapFlags{false, false}));
  EXPECT_EQ(t.PtpLeapFlagsAt(k2016LeapTai - kS), (PtpLeapFlags{true, false}));
  EXPECT_EQ(t.PtpLeapFlagsAt(k2016LeapTai), (PtpLeapFlags{false, false}));
  EXPECT_EQ(t.LeapAnnouncedAt(k2016LeapTai - 1), LeapPending::kInsert);
}

// A synchronised ClockModel whose leap fields come from the table.
ClockModel ModelAt(const LeapTable& t, TaiNs now) {
  ClockModel m;
  m.raw_anchor = 0;
  m.tai_anchor = now;
  m.ns_per_tick_q32 = uint64_t{1} << 32;  // 1 ns per tick
  m.max_extrapolation_ns = 400 * kDay;
  m.state = SyncState::kLocked;
  t.FillLeapFields(now, &m);
  return m;
}

// The model built at `now` must agree with the table from `now` for `span`.
void ExpectModelMatchesTable(const LeapTable& t, TaiNs now, int64_t span,
                             int64_t step) {
  const ClockModel m = ModelAt(t, now);
  for (int64_t d = 0; d <= span; d += step) {
    const TaiNs x = now + d;
    ASSERT_EQ(m.TaiToUtc(x), t.TaiToUtc(x)) << x;
    ASSERT_EQ(m.UtcOffsetAt(x), t.TaiMinusUtc(x)) << x;
    ASSERT_EQ(m.NtpLeapAt(x), t.NtpLeapIndicatorAt(x)) << x;
    ASSERT_EQ(m.LeapAnnouncedAt(x), t.LeapAnnouncedAt(x)) << x;
  }
}

TEST(LeapTableClockModelTest, ConvertsAcrossThe2016LeapSecond) {
  const LeapTable t = LeapTable::BuiltIn();
  const TaiNs now = k2016LeapTai - 12 * 3600 * kS;  // 2016-12-31T12:00:00Z
  const ClockModel m = ModelAt(t, now);
  EXPECT_EQ(m.utc_offset_s, 36);
  EXPECT_EQ(m.leap, LeapPending::kInsert);
  EXPECT_EQ(m.leap_at, k2016LeapTai);
  // Raw ticks (1 ns each) across the leap: UTC repeats 23:59:59.
  const uint64_t to_leap = static_cast<uint64_t>(k2016LeapTai - now);
  EXPECT_EQ(FormatUtc(m.TaiToUtc(m.RawToTai(to_leap - 1))),
            "2016-12-31T23:59:59.999999999Z");
  EXPECT_EQ(FormatUtc(m.TaiToUtc(m.RawToTai(to_leap))),
            "2016-12-31T23:59:59.000000000Z");
  EXPECT_EQ(FormatUtc(m.TaiToUtc(m.RawToTai(to_leap + kS))),
            "2017-01-01T00:00:00.000000000Z");
  EXPECT_EQ(m.NtpLeapAt(m.RawToTai(to_leap - kS)),
            NtpLeapIndicator::kLastMinute61);
  ExpectModelMatchesTable(t, now, 2 * kDay, kS / 4);
  ExpectModelMatchesTable(t, k2016LeapTai - 3 * kDay, 4 * kDay, 997 * kS);
  // Built during the leap second itself, and after it: no leap pending.
  const ClockModel during = ModelAt(t, k2016LeapTai + kS / 2);
  EXPECT_EQ(during.utc_offset_s, 37);
  EXPECT_EQ(during.leap, LeapPending::kNone);
  EXPECT_EQ(during.leap_at, TaiNs{});
  EXPECT_EQ(during.TaiToUtc(k2016LeapTai + kS / 2),
            t.TaiToUtc(k2016LeapTai + kS / 2));
}

TEST(LeapTableClockModelTest, ConvertsAcrossASyntheticNegativeLeap) {
  // TAI-UTC 37 -> 36 at 2027-01-01: 2026-12-31T23:59:59 does not exist.
  absl::StatusOr<LeapTable> created = LeapTable::Create(
      {{k2017Jan01, 37}, {k2027Jan01, 36}}, k2017Jan01, k2027Jan01 + kDay);
  ASSERT_TRUE(created.ok()) << created.status();
  const LeapTable& t = *created;
  const TaiNs leap_tai{(1'798'761'600 + 36) * kS};
  const LeapEvent want{k2027Jan01, leap_tai, LeapPending::kDelete, 37, 36};
  EXPECT_EQ(t.NextLeap(k2027Jan01 - kDay), want);
  EXPECT_EQ(want.direction(), -1);
  EXPECT_EQ(FormatUtc(t.TaiToUtc(leap_tai - 1)),
            "2026-12-31T23:59:58.999999999Z");
  EXPECT_EQ(FormatUtc(t.TaiToUtc(leap_tai)), "2027-01-01T00:00:00.000000000Z");
  // The removed second maps to the following midnight.
  EXPECT_EQ(t.UtcToTai(k2027Jan01 - kS / 2), leap_tai);
  EXPECT_EQ(t.UtcToTai(k2027Jan01 - kS - 1), leap_tai - 1);
  EXPECT_EQ(t.NtpLeapIndicatorAt(leap_tai - 1),
            NtpLeapIndicator::kLastMinute59);
  EXPECT_EQ(t.PtpLeapFlagsAt(leap_tai - 1), (PtpLeapFlags{false, true}));
  EXPECT_EQ(t.NtpLeapIndicatorAt(leap_tai), NtpLeapIndicator::kNoWarning);

  const ClockModel m = ModelAt(t, leap_tai - 6 * 3600 * kS);
  EXPECT_EQ(m.utc_offset_s, 37);
  EXPECT_EQ(m.leap, LeapPending::kDelete);
  EXPECT_EQ(m.leap_at, leap_tai);
  EXPECT_EQ(FormatUtc(m.TaiToUtc(leap_tai - 1)),
            "2026-12-31T23:59:58.999999999Z");
  EXPECT_EQ(FormatUtc(m.TaiToUtc(leap_tai)), "2027-01-01T00:00:00.000000000Z");
  ExpectModelMatchesTable(t, leap_tai - 6 * 3600 * kS, kDay, kS / 4);
}

TEST(LeapTableClockModelTest, SyntheticFileLeapsInEra1) {
  const LeapTable t = ParseOrDie(ReadData("leap-seconds-synthetic.list"));
  // The 2036-12-31 leap is after the NTP era rollover (2036-02-07).
  const std::optional<LeapEvent> e = t.NextLeap(k2027Jan01);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->utc, k2037Jan01);
  EXPECT_EQ(e->kind, LeapPending::kInsert);
  EXPECT_EQ(e->tai, TaiNs{(2'114'380'800 + 36) * kS});
  EXPECT_EQ(UtcToNtp(e->utc).seconds, 4'323'369'600u - (uint64_t{1} << 32));
  ExpectModelMatchesTable(t, e->tai - kDay - kS, 2 * kDay, kS / 2);
  // A model built after the last leap has nothing pending.
  const ClockModel after = ModelAt(t, e->tai + kS);
  EXPECT_EQ(after.utc_offset_s, 37);
  EXPECT_EQ(after.leap, LeapPending::kNone);
}

}  // namespace
}  // namespace leap_seconds_test
}  // namespace zg::core
