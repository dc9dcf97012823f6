#include "servo/rate_model.h"

#include <cmath>

namespace zg::servo {

core::TaiNs RateModel::TaiAt(uint64_t raw) const {
  return core::TaiNs{tai_anchor_ns_ +
                     static_cast<int64_t>(std::llround(NsFromAnchor(raw)))};
}

void RateModel::Reanchor(uint64_t raw) {
  const double ns = NsFromAnchor(raw);
  const double whole = std::floor(ns);
  tai_anchor_ns_ += static_cast<int64_t>(whole);
  frac_ns_ = ns - whole;
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
  tai_anchor_ns_ += static_cast<int64_t>(whole);
  frac_ns_ = ns - whole;
}

void RateModel::FillClockModel(uint64_t raw, core::ClockModel* out) const {
  out->raw_anchor = raw;
  out->tai_anchor = TaiAt(raw);
  const double q32 = std::ldexp(ns_per_tick_, 32);
  out->ns_per_tick_q32 = q32 <= 0 ? 0 : static_cast<uint64_t>(q32 + 0.5);
}

double RateModel::Q32RoundingPpb(double ns_per_tick) {
  if (ns_per_tick <= 0) return 0;
  return std::ldexp(0.5, -32) / ns_per_tick * 1e9;
}

}  // namespace zg::servo
