// SPDX-License-Identifier: Apache-2.0
// ClockHistory: the three ranges, their aggregation, fixed size, and the
// file that carries them across a restart (damaged files start empty).
#include "dataplane/web/clock_history.h"

#include <cmath>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace clock_history_test {
namespace {

constexpr int64_t kT0 = 1'800'000'000;  // 2027-01-15, a multiple of 600

TEST(ClockHistory, HourKeepsSecondsDayMinutesWeekTenMinutes) {
  ClockHistory h;
  for (int64_t s = 0; s < 180; ++s) {
    h.Add({.utc_s = kT0 + s,
           .offset_ns = static_cast<double>(s % 60),
           .frequency_ppb = 2.0,
           .error_bound_ns = static_cast<double>(s)});
  }
  const std::vector<HistoryPoint> hour = h.Points(HistoryRange::kHour);
  ASSERT_EQ(hour.size(), 180u);
  EXPECT_EQ(hour.front().utc_s, kT0);
  EXPECT_EQ(hour.back().utc_s, kT0 + 179);
  const std::vector<HistoryPoint> day = h.Points(HistoryRange::kDay);
  ASSERT_EQ(day.size(), 3u);
  EXPECT_EQ(day[1].utc_s, kT0 + 60);
  EXPECT_FLOAT_EQ(day[1].offset_ns, 29.5);        // mean of 0..59
  EXPECT_FLOAT_EQ(day[1].error_bound_ns, 119.0);  // largest
  EXPECT_FLOAT_EQ(day[1].frequency_ppb, 2.0);
  EXPECT_EQ(h.Points(HistoryRange::kWeek).size(), 1u);
}

TEST(ClockHistory, AStepWithoutOffsetsIsNullAndOldPointsRollOff) {
  ClockHistory h;
  for (int64_t s = 0; s < 3 * 3600; ++s) {
    h.Add({.utc_s = kT0 + s, .frequency_ppb = 1, .error_bound_ns = 5});
  }
  const std::vector<HistoryPoint> hour = h.Points(HistoryRange::kHour);
  EXPECT_EQ(hour.size(), 3600u);
  EXPECT_EQ(hour.back().utc_s, kT0 + 3 * 3600 - 1);
  EXPECT_TRUE(std::isnan(hour.back().offset_ns));
  const nlohmann::json j = h.Json(HistoryRange::kDay);
  EXPECT_EQ(j["range"], "day");
  EXPECT_EQ(j["step_s"], 60);
  EXPECT_TRUE(j["points"][0][1].is_null());
  EXPECT_EQ(j["points"].size(), 180u);
}

TEST(ClockHistory, SavedAndLoadedAcrossARestart) {
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("hist");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("history.bin");
  ClockHistory h;
  for (int64_t s = 0; s < 1200; ++s) {
    h.Add({.utc_s = kT0 + s,
           .offset_ns = 1.5,
           .frequency_ppb = -4,
           .error_bound_ns = 100});
  }
  ASSERT_TRUE(h.Save(path).ok());
  ClockHistory restarted;
  ASSERT_TRUE(restarted.Load(path, kT0 + 1300).ok());
  EXPECT_EQ(restarted.Points(HistoryRange::kHour).size(), 1200u);
  EXPECT_EQ(restarted.Points(HistoryRange::kDay).size(), 20u);
  // New samples continue the history without repeating the saved step.
  restarted.Add({.utc_s = kT0 + 1300, .offset_ns = 2, .error_bound_ns = 1});
  const std::vector<HistoryPoint> day = restarted.Points(HistoryRange::kDay);
  ASSERT_EQ(day.size(), 21u);
  EXPECT_EQ(day.back().utc_s, kT0 + 1260);
  // Loaded much later: everything older than each range is dropped.
  ClockHistory later;
  ASSERT_TRUE(later.Load(path, kT0 + 2 * 86400).ok());
  EXPECT_TRUE(later.Points(HistoryRange::kHour).empty());
  EXPECT_TRUE(later.Points(HistoryRange::kDay).empty());
  EXPECT_EQ(later.Points(HistoryRange::kWeek).size(), 2u);
}

TEST(ClockHistory, MissingFileIsEmptyDamagedFileIsAnError) {
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("hist");
  ASSERT_TRUE(dir.ok());
  ClockHistory h;
  EXPECT_TRUE(h.Load(dir->File("absent"), kT0).ok());
  const std::string path = dir->File("bad");
  std::ofstream(path) << "ZGHIST01 but then garbage";
  EXPECT_FALSE(h.Load(path, kT0).ok());
  std::ofstream(path, std::ios::trunc) << "not a history";
  EXPECT_FALSE(h.Load(path, kT0).ok());
  // A valid file cut short.
  ClockHistory full;
  for (int64_t s = 0; s < 100; ++s) full.Add({.utc_s = kT0 + s});
  ASSERT_TRUE(full.Save(path).ok());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::trunc | std::ios::binary)
      << bytes.substr(0, bytes.size() - 7);
  EXPECT_FALSE(h.Load(path, kT0 + 100).ok());
  EXPECT_TRUE(h.Points(HistoryRange::kHour).empty());
}

}  // namespace
}  // namespace clock_history_test
}  // namespace zg::dataplane
