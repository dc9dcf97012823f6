// SPDX-License-Identifier: Apache-2.0
#include "servo/clock/system_time.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace zg::servo {
namespace {

class RealOps final : public SystemClockOps {
 public:
  bool ReadNs(clockid_t clock, int64_t* ns) override {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return false;
    *ns = int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
    return true;
  }
  int ReadTimex(struct timex* tx) override {
    *tx = {};
    tx->modes = 0;
    return adjtimex(tx);
  }
};

int64_t SysNs(const CorrelationPoint& p) {
  return static_cast<int64_t>(p.other);
}

}  // namespace

SystemClockOps& RealSystemClockOps() {
  static RealOps* ops = new RealOps();
  return *ops;
}

int64_t MonotonicNs(SystemClockOps& ops) {
  int64_t ns = 0;
  return ops.ReadNs(CLOCK_MONOTONIC, &ns) ? ns : 0;
}

std::optional<CorrelationPoint> ReadBracketed(RawClock& raw,
                                              SystemClockOps& ops,
                                              clockid_t clock, int tries) {
  std::optional<CorrelationPoint> best;
  for (int i = 0; i < std::max(tries, 1); ++i) {
    BracketedRead r;
    int64_t ns = 0;
    r.tsc_before = raw.NowTicks();
    const bool ok = ops.ReadNs(clock, &ns);
    r.tsc_after = raw.NowTicks();
    if (!ok) return std::nullopt;
    r.other = static_cast<uint64_t>(ns);
    const std::optional<CorrelationPoint> p =
        TightestBracket(std::span<const BracketedRead>(&r, 1));
    if (p && (!best || p->half_width_ticks < best->half_width_ticks)) best = p;
  }
  return best;
}

SystemTimeMap::SystemTimeMap(RawClock* raw, SystemClockOps* ops,
                             const SystemTimeMapOptions& options)
    : raw_(raw), ops_(ops), options_(options) {
  options_.max_anchors = std::max<size_t>(options_.max_anchors, 2);
}

double SystemTimeMap::NsPerTick() const { return 1e9 / raw_->NominalHz(); }

int64_t SystemTimeMap::HalfWidthNs(const CorrelationPoint& p) const {
  return static_cast<int64_t>(std::ceil(
      static_cast<double>(p.half_width_ticks) * 1e9 / raw_->NominalHz()));
}

bool SystemTimeMap::Anchor() {
  const std::optional<CorrelationPoint> p =
      ReadBracketed(*raw_, *ops_, options_.clock, options_.tries);
  if (!p) return false;
  AddAnchor(*p);
  return true;
}

void SystemTimeMap::AddAnchor(const CorrelationPoint& anchor) {
  if (!anchors_.empty()) {
    const CorrelationPoint& last = anchors_.back();
    const int64_t d_sys = SysNs(anchor) - SysNs(last);
    const int64_t d_tsc = static_cast<int64_t>(anchor.tsc - last.tsc);
    const double predicted_ns = static_cast<double>(d_tsc) * NsPerTick();
    const double tolerance =
        options_.extrapolation_ppm * 1e-6 * std::fabs(predicted_ns) +
        static_cast<double>(HalfWidthNs(anchor) + HalfWidthNs(last)) + 10'000.0;
    if (d_tsc <= 0 || d_sys < 0 ||
        std::fabs(static_cast<double>(d_sys) - predicted_ns) > tolerance) {
      // Stepped clock (or a raw clock going backwards): start over.
      ++steps_;
      anchors_.clear();
    }
  }
  anchors_.push_back(anchor);
  while (anchors_.size() > options_.max_anchors) anchors_.pop_front();
}

std::optional<SystemTimeMap::Mapping> SystemTimeMap::TicksAt(
    int64_t system_ns) const {
  if (anchors_.empty()) return std::nullopt;
  // First anchor at or after the instant.
  const auto after = std::lower_bound(
      anchors_.begin(), anchors_.end(), system_ns,
      [](const CorrelationPoint& p, int64_t t) { return SysNs(p) < t; });
  if (after != anchors_.end() && after != anchors_.begin() &&
      SysNs(*after) != system_ns) {
    const CorrelationPoint& a = *(after - 1);
    const CorrelationPoint& b = *after;
    const double frac = static_cast<double>(system_ns - SysNs(a)) /
                        static_cast<double>(SysNs(b) - SysNs(a));
    const double d_tsc = static_cast<double>(b.tsc - a.tsc);
    const int64_t nearest =
        std::min(system_ns - SysNs(a), SysNs(b) - system_ns);
    const double unc =
        static_cast<double>(std::max(HalfWidthNs(a), HalfWidthNs(b))) +
        options_.interpolation_ppm * 1e-6 * static_cast<double>(nearest);
    return Mapping{a.tsc + static_cast<uint64_t>(std::llround(frac * d_tsc)),
                   static_cast<int64_t>(std::ceil(unc))};
  }
  // Exactly on an anchor, or outside the anchors: use the nearest one.
  const CorrelationPoint& n =
      after == anchors_.end() ? anchors_.back() : *after;
  const int64_t d_ns = system_ns - SysNs(n);
  const double d_ticks = static_cast<double>(d_ns) / NsPerTick();
  const double unc =
      static_cast<double>(HalfWidthNs(n)) +
      options_.extrapolation_ppm * 1e-6 * std::fabs(static_cast<double>(d_ns));
  return Mapping{n.tsc + static_cast<uint64_t>(std::llround(d_ticks)),
                 static_cast<int64_t>(std::ceil(unc))};
}

}  // namespace zg::servo
