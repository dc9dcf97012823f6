// SPDX-License-Identifier: Apache-2.0
// ClockHistory: three fixed rings, their aggregation and the history file.
#include "dataplane/web/clock_history.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace zg::dataplane {
namespace {

constexpr char kMagic[8] = {'Z', 'G', 'H', 'I', 'S', 'T', '0', '1'};
constexpr size_t kPointBytes = 8 + 3 * 4;

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(v));
}
template <typename T>
bool Get(absl::string_view& in, T* v) {
  if (in.size() < sizeof(T)) return false;
  std::memcpy(v, in.data(), sizeof(T));
  in.remove_prefix(sizeof(T));
  return true;
}

}  // namespace

const char* HistoryRangeName(HistoryRange r) {
  switch (r) {
    case HistoryRange::kHour:
      return "hour";
    case HistoryRange::kDay:
      return "day";
    case HistoryRange::kWeek:
      return "week";
  }
  return "?";
}

std::optional<HistoryRange> ParseHistoryRange(absl::string_view name) {
  for (size_t i = 0; i < kHistoryRanges; ++i) {
    const auto r = static_cast<HistoryRange>(i);
    if (name == HistoryRangeName(r)) return r;
  }
  return std::nullopt;
}

ClockHistory::ClockHistory()
    : tiers_{Tier{.step_s = 1, .capacity = 3600},
             Tier{.step_s = 60, .capacity = 1440},
             Tier{.step_s = 600, .capacity = 1008}} {
  for (Tier& t : tiers_) t.ring.resize(t.capacity);
}

void ClockHistory::Tier::Push(const HistoryPoint& p) {
  ring[head] = p;
  head = (head + 1) % capacity;
  if (size < capacity) ++size;
}

std::optional<HistoryPoint> ClockHistory::Tier::Current() const {
  if (count == 0) return std::nullopt;
  return HistoryPoint{
      .utc_s = step_start_s,
      .offset_ns = offset_count > 0
                       ? static_cast<float>(offset_sum / offset_count)
                       : std::numeric_limits<float>::quiet_NaN(),
      .frequency_ppb = static_cast<float>(frequency_sum / count),
      .error_bound_ns = static_cast<float>(error_max)};
}

void ClockHistory::Tier::Flush() {
  if (std::optional<HistoryPoint> p = Current()) Push(*p);
  offset_sum = frequency_sum = error_max = 0;
  offset_count = count = 0;
}

void ClockHistory::Add(const HistorySample& s) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Tier& t : tiers_) {
    const int64_t start = s.utc_s - (s.utc_s % t.step_s + t.step_s) % t.step_s;
    if (start < t.step_start_s) continue;  // the clock went back: skip
    if (start != t.step_start_s) {
      t.Flush();
      t.step_start_s = start;
    }
    if (s.offset_ns && std::isfinite(*s.offset_ns)) {
      t.offset_sum += *s.offset_ns;
      ++t.offset_count;
    }
    t.frequency_sum += s.frequency_ppb;
    t.error_max = t.count == 0 ? s.error_bound_ns
                               : std::max(t.error_max, s.error_bound_ns);
    ++t.count;
  }
}

std::vector<HistoryPoint> ClockHistory::PointsLocked(const Tier& t) const {
  std::vector<HistoryPoint> out;
  out.reserve(t.size + 1);
  for (size_t i = 0; i < t.size; ++i) {
    out.push_back(t.ring[(t.head + t.capacity - t.size + i) % t.capacity]);
  }
  if (std::optional<HistoryPoint> p = t.Current()) out.push_back(*p);
  // Keep only the tier's span before the newest point.
  if (!out.empty()) {
    const int64_t oldest =
        out.back().utc_s - static_cast<int64_t>(t.capacity) * t.step_s;
    size_t drop = 0;
    while (drop < out.size() && out[drop].utc_s <= oldest) ++drop;
    out.erase(out.begin(), out.begin() + static_cast<ptrdiff_t>(drop));
  }
  return out;
}

std::vector<HistoryPoint> ClockHistory::Points(HistoryRange range) const {
  std::lock_guard<std::mutex> lock(mu_);
  return PointsLocked(tiers_[static_cast<size_t>(range)]);
}

nlohmann::json ClockHistory::Json(HistoryRange range) const {
  nlohmann::json points = nlohmann::json::array();
  for (const HistoryPoint& p : Points(range)) {
    points.push_back({p.utc_s,
                      std::isnan(p.offset_ns) ? nlohmann::json(nullptr)
                                              : nlohmann::json(p.offset_ns),
                      p.frequency_ppb, p.error_bound_ns});
  }
  return {
      {"range", HistoryRangeName(range)},
      {"step_s", tiers_[static_cast<size_t>(range)].step_s},
      {"columns", {"utc_s", "offset_ns", "frequency_ppb", "error_bound_ns"}},
      {"points", std::move(points)}};
}

absl::Status ClockHistory::Save(const std::string& path) const {
  std::string out(kMagic, sizeof(kMagic));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Put<uint32_t>(out, kHistoryRanges);
    for (const Tier& t : tiers_) {
      const std::vector<HistoryPoint> points = PointsLocked(t);
      Put<uint32_t>(out, static_cast<uint32_t>(t.step_s));
      Put<uint32_t>(out, static_cast<uint32_t>(points.size()));
      for (const HistoryPoint& p : points) {
        Put(out, p.utc_s);
        Put(out, p.offset_ns);
        Put(out, p.frequency_ppb);
        Put(out, p.error_bound_ns);
      }
    }
  }
  const std::string tmp = path + ".tmp";
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("--status_history=", path,
                                               ": cannot write ", tmp, ": ",
                                               std::strerror(errno)));
  }
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return absl::UnavailableError(absl::StrCat(
          "--status_history=", path, ": write: ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return absl::UnavailableError(
        absl::StrCat("--status_history=", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

absl::Status ClockHistory::Load(const std::string& path, int64_t now_s) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::UnavailableError(
        absl::StrCat("--status_history=", path, ": ", std::strerror(errno)));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  absl::string_view rest = text;
  const auto damaged = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(
        "--status_history=", path, ": ", what, "; starting an empty history"));
  };
  if (rest.size() < sizeof(kMagic) ||
      std::memcmp(rest.data(), kMagic, sizeof(kMagic)) != 0) {
    return damaged("not a zeitgeber history file");
  }
  rest.remove_prefix(sizeof(kMagic));
  uint32_t tiers = 0;
  if (!Get(rest, &tiers) || tiers != kHistoryRanges) {
    return damaged("unexpected number of ranges");
  }
  std::array<std::vector<HistoryPoint>, kHistoryRanges> loaded;
  for (size_t i = 0; i < kHistoryRanges; ++i) {
    const Tier& t = tiers_[i];
    uint32_t step = 0, n = 0;
    if (!Get(rest, &step) || !Get(rest, &n) ||
        static_cast<int64_t>(step) != t.step_s || n > t.capacity + 1 ||
        rest.size() < static_cast<size_t>(n) * kPointBytes) {
      return damaged("a range's header does not match this version");
    }
    for (uint32_t k = 0; k < n; ++k) {
      HistoryPoint p;
      Get(rest, &p.utc_s);
      Get(rest, &p.offset_ns);
      Get(rest, &p.frequency_ppb);
      Get(rest, &p.error_bound_ns);
      const int64_t span = static_cast<int64_t>(t.capacity) * t.step_s;
      if (p.utc_s > now_s || p.utc_s <= now_s - span) continue;
      if (!loaded[i].empty() && p.utc_s <= loaded[i].back().utc_s) {
        return damaged("points out of order");
      }
      loaded[i].push_back(p);
    }
  }
  if (!rest.empty()) return damaged("trailing bytes");
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < kHistoryRanges; ++i) {
    Tier& t = tiers_[i];
    t.head = t.size = 0;
    t.step_start_s = -1;
    t.offset_sum = t.frequency_sum = t.error_max = 0;
    t.offset_count = t.count = 0;
    for (const HistoryPoint& p : loaded[i]) t.Push(p);
    // Samples of the saved (possibly partial) last step are not added again.
    if (!loaded[i].empty()) t.step_start_s = loaded[i].back().utc_s + 1;
  }
  return absl::OkStatus();
}

}  // namespace zg::dataplane
