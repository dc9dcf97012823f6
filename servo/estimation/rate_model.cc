// SPDX-License-Identifier: Apache-2.0
#include "servo/estimation/rate_model.h"

#include <cmath>
#include <limits>

namespace zg::servo {
namespace {

// Nanoseconds are kept within +-2^62 (+-146 years): the model saturates
// rather than overflow when evaluated absurdly far from its anchor (a bogus
// raw stamp), so no input can make it undefined.
constexpr double kLimitNs = 4.611686018427387904e18;  // 2^62

int64_t ClampToInt(double ns) {
  if (!(ns > -kLimitNs)) return -static_cast<int64_t>(kLimitNs);  // and NaN
  if (ns > kLimitNs) return static_cast<int64_t>(kLimitNs);
  return static_cast<int64_t>(ns);
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  return r;
}

}  // namespace

core::TaiNs RateModel::TaiAt(uint64_t raw) const {
  return core::TaiNs{SaturatingAdd(
      tai_anchor_ns_, ClampToInt(std::nearbyint(NsFromAnchor(raw))))};
}

void RateModel::Reanchor(uint64_t raw) {
  const double ns = NsFromAnchor(raw);
  const double whole = std::floor(ns);
  tai_anchor_ns_ = SaturatingAdd(tai_anchor_ns_, ClampToInt(whole));
  frac_ns_ = std::isfinite(ns - whole) ? ns - whole : 0.0;
  raw_anchor_ = raw;
}

void RateModel::SetRate(uint64_t raw, double ns_per_tick) {
  Reanchor(raw);
  ns_per_tick_ = ns_per_tick;
}

void RateModel::Step(uint64_t raw, double delta_ns) {
  Reanchor(raw);
  const double ns = frac_ns_ + delta_ns;
  const double whole = std::floor(ns);
  tai_anchor_ns_ = SaturatingAdd(tai_anchor_ns_, ClampToInt(whole));
  frac_ns_ = std::isfinite(ns - whole) ? ns - whole : 0.0;
}

void RateModel::FillClockModel(uint64_t raw, core::ClockModel* out) const {
  out->raw_anchor = raw;
  out->tai_anchor = TaiAt(raw);
  const double q32 = std::ldexp(ns_per_tick_, 32);
  // 0 (unusable) for a non-positive or absurd rate: >= 2^63 would mean more
  // than 2^31 ns per tick.
  out->ns_per_tick_q32 =
      q32 > 0 && q32 < 0x1p63 ? static_cast<uint64_t>(q32 + 0.5) : 0;
}

double RateModel::Q32RoundingPpb(double ns_per_tick) {
  if (ns_per_tick <= 0) return 0;
  return std::ldexp(0.5, -32) / ns_per_tick * 1e9;
}

}  // namespace zg::servo
