// SPDX-License-Identifier: Apache-2.0
// RateModel: the control plane's estimate of the free-running raw clock (TSC
// or NIC clock) against TAI, kept in double precision. The raw clock is never
// steered: this model is the "cooked" clock (chrony's raw vs cooked time).
//
//   TAI(raw) = tai_anchor + frac + (raw - raw_anchor) * ns_per_tick
//
// Every change of rate re-anchors at the raw tick where it takes effect, so the
// model is continuous: served time never jumps unless Step() is called (only at
// start-up, or where explicitly configured). The servo owns one RateModel; the
// clock discipline copies it into the published core::ClockModel (whose rate
// is fixed point, ns_per_tick * 2^32) at each publish.
//
//   RateModel m(raw0, core::TaiNs{t0}, /*ns_per_tick=*/1.0 / 3.0);
//   double off = m.OffsetNs(raw, reference_tai);   // > 0: model ahead
//   m.SetRate(raw, m.ns_per_tick() * (1 - 5e-9));  // slow it by 5 ppb
#ifndef ZG_SERVO_RATE_MODEL_H_
#define ZG_SERVO_RATE_MODEL_H_

#include <cstdint>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::servo {

class RateModel {
 public:
  RateModel() = default;
  RateModel(uint64_t raw_anchor, core::TaiNs tai_anchor, double ns_per_tick)
      : raw_anchor_(raw_anchor),
        tai_anchor_ns_(tai_anchor.value),
        ns_per_tick_(ns_per_tick) {}

  // Nanoseconds from the anchor's TAI (integer part) to the model's TAI at
  // `raw`. Raw ticks before the anchor give negative values.
  double NsFromAnchor(uint64_t raw) const {
    const int64_t ticks = static_cast<int64_t>(raw - raw_anchor_);
    return frac_ns_ + static_cast<double>(ticks) * ns_per_tick_;
  }

  // The model's TAI at `raw`, rounded to the nearest nanosecond.
  core::TaiNs TaiAt(uint64_t raw) const;

  // model(raw) - reference, in ns: positive when the model is ahead.
  double OffsetNs(uint64_t raw, core::TaiNs reference) const {
    return static_cast<double>(tai_anchor_ns_ - reference.value) +
           NsFromAnchor(raw);
  }

  // Moves the anchor to `raw` without changing the mapping.
  void Reanchor(uint64_t raw);
  // From `raw` on, advances `ns_per_tick` per tick; continuous at `raw`.
  void SetRate(uint64_t raw, double ns_per_tick);
  // Shifts the model's time by `delta_ns` at and after `raw` (a step).
  void Step(uint64_t raw, double delta_ns);

  uint64_t raw_anchor() const { return raw_anchor_; }
  double ns_per_tick() const { return ns_per_tick_; }

  // Writes raw_anchor, tai_anchor and ns_per_tick_q32 of `out`, anchored at
  // `raw` (the tai anchor rounded to the nearest ns, the rate to the nearest
  // 2^-32 ns per tick).
  void FillClockModel(uint64_t raw, core::ClockModel* out) const;

  // The rate error (ppb) of rounding `ns_per_tick` to the q32 fixed point of
  // core::ClockModel: half a unit in the last place, relative to the rate.
  static double Q32RoundingPpb(double ns_per_tick);

 private:
  uint64_t raw_anchor_ = 0;
  int64_t tai_anchor_ns_ = 0;  // integer ns of TAI at raw_anchor_
  double frac_ns_ = 0;         // + this fraction, in [0, 1)
  double ns_per_tick_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_RATE_MODEL_H_
