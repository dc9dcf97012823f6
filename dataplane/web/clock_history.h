// SPDX-License-Identifier: Apache-2.0
// ClockHistory: the served clock's offset, frequency and error bound over
// the last hour, day and week, for the status page's plots — in fixed
// memory, and saved to a file so that a restart keeps the week.
//
//   tier   step    points   span
//   hour   1 s     3600     1 h
//   day    1 min   1440     24 h
//   week   10 min  1008     7 d
// (6048 points of 20 bytes: about 120 KiB, allocated once.) A coarser
// point holds its step's mean offset and frequency and its largest error
// bound. The step in progress is returned as the newest point.
//
//   ClockHistory h;
//   h.Add({.utc_s = now_s, .offset_ns = 12.0, .frequency_ppb = -3.1,
//          .error_bound_ns = 900.0});                 // once a second
//   nlohmann::json j = h.Json(HistoryRange::kDay);    // the page's plot
//   h.Save("/var/lib/zeitgeber/history.bin");          // atomically
//   ClockHistory h2;  h2.Load(path, now_s);           // at start
//
// Thread-safe: one sampler thread adds, the page's request threads read.
#ifndef ZG_DATAPLANE_WEB_CLOCK_HISTORY_H_
#define ZG_DATAPLANE_WEB_CLOCK_HISTORY_H_

#include <array>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace zg::dataplane {

enum class HistoryRange : uint8_t { kHour, kDay, kWeek };
inline constexpr size_t kHistoryRanges = 3;
// "hour", "day", "week".
const char* HistoryRangeName(HistoryRange r);
std::optional<HistoryRange> ParseHistoryRange(absl::string_view name);

struct HistorySample {
  int64_t utc_s = 0;
  std::optional<double> offset_ns;  // the selected source's; none in holdover
  double frequency_ppb = 0;
  double error_bound_ns = 0;
};

struct HistoryPoint {
  int64_t utc_s = 0;    // the start of the point's step
  float offset_ns = 0;  // NaN: no offset in the whole step
  float frequency_ppb = 0;
  float error_bound_ns = 0;
};

class ClockHistory {
 public:
  ClockHistory();

  void Add(const HistorySample& sample);
  std::vector<HistoryPoint> Points(HistoryRange range) const;
  // {"range":"day","step_s":60,"points":[[utc_s, offset_ns|null,
  //   frequency_ppb, error_bound_ns], ...]} oldest first.
  nlohmann::json Json(HistoryRange range) const;

  // Writes a temporary file next to `path`, fsyncs, renames.
  absl::Status Save(const std::string& path) const;
  // Replaces the history with the file's, dropping points older than each
  // tier's span before `now_s` or later than `now_s`. A missing file is OK
  // (empty history); a damaged one is an error and leaves the history empty.
  absl::Status Load(const std::string& path, int64_t now_s);

 private:
  struct Tier {
    int64_t step_s;
    size_t capacity;
    std::vector<HistoryPoint> ring;  // capacity, allocated once
    size_t head = 0;                 // next write
    size_t size = 0;
    // The step in progress.
    int64_t step_start_s = -1;
    double offset_sum = 0;
    int offset_count = 0;
    double frequency_sum = 0;
    int count = 0;
    double error_max = 0;

    void Push(const HistoryPoint& p);
    std::optional<HistoryPoint> Current() const;
    void Flush();
  };
  std::vector<HistoryPoint> PointsLocked(const Tier& t) const;

  mutable std::mutex mu_;
  std::array<Tier, kHistoryRanges> tiers_;  // guarded by mu_
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WEB_CLOCK_HISTORY_H_
