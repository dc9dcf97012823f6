// SPDX-License-Identifier: Apache-2.0
// Fuzzes the clock discipline with sample streams a source could deliver —
// mostly a plausible trajectory (1 GHz raw clock, one sample per second)
// perturbed by the input, plus arbitrary values. Reference samples come from
// outside (gpsd over TCP, a PHC driver): nothing in them may crash the control
// plane or overflow (UBSan), and every published model must stay coherent.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "servo/discipline/clock_discipline.h"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ >= end_; }
  template <typename T>
  T Take() {
    T v{};
    const size_t n = static_cast<size_t>(end_ - p_) < sizeof(T)
                         ? static_cast<size_t>(end_ - p_)
                         : sizeof(T);
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void CheckModel(const zg::core::ClockModel& m) {
  if (m.error_bound_ns < 0 || m.error_growth_ns_per_s < 0 ||
      m.max_extrapolation_ns < 0 || m.stratum < 1 || m.stratum > 16) {
    __builtin_trap();
  }
  const bool unsynced = m.state == zg::core::SyncState::kFreerun ||
                        m.state == zg::core::SyncState::kHoldoverOutOfSpec;
  if (unsynced && m.stratum != 16) __builtin_trap();
  if (m.IsSynchronized(m.tai_anchor) && m.ptp_quality.clock_accuracy == 0xFE) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::servo;
  Input in(data, size);
  const uint8_t setup = in.Take<uint8_t>();
  DisciplineConfig cfg;
  cfg.raw_nominal_hz = 1e9;
  cfg.servo.type = setup & 1 ? ServoType::kPi : ServoType::kLinreg;
  cfg.oscillator = (setup >> 1) % 3 == 0   ? TcxoProfile()
                   : (setup >> 1) % 3 == 1 ? OcxoProfile()
                                           : RubidiumProfile();
  cfg.jump_accept_after = (setup >> 3) & 3;
  cfg.follow_outvoting_majority = (setup & 0x80) != 0;
  auto created = ClockDiscipline::Create(cfg);
  if (!created.ok()) __builtin_trap();
  std::unique_ptr<ClockDiscipline> d = *std::move(created);
  const int sources = 1 + ((setup >> 5) & 3);
  for (int i = 0; i < sources; ++i) {
    SourceInfo info;
    info.priority = i;
    info.time_traceable = true;
    if (!d->AddSource(info).ok()) __builtin_trap();
  }
  uint64_t raw = 1'000'000'000'000ULL;
  int64_t tai = 1'700'000'037'000'000'000LL;
  ReferenceSample batch[3];
  while (!in.empty()) {
    const uint8_t op = in.Take<uint8_t>();
    if (op & 0x80) {  // advance time and update
      const uint16_t step_ms = in.Take<uint16_t>();
      raw += uint64_t{step_ms} * 1'000'000;
      tai += int64_t{step_ms} * 1'000'000;
      CheckModel(d->Update(raw - (op & 0x40 ? in.Take<uint32_t>() : 0)));
      continue;
    }
    const int n = 1 + (op & 3) % 3;
    for (int i = 0; i < n; ++i) {
      ReferenceSample& s = batch[i];
      const uint8_t kind = in.Take<uint8_t>();
      if (kind < 0xF0) {  // plausible: small perturbations
        s.raw_ticks = raw + static_cast<uint64_t>(in.Take<int16_t>());
        s.reference_tai = zg::core::TaiNs{tai + int64_t{in.Take<int32_t>()}};
        s.uncertainty_ns = in.Take<uint16_t>();
      } else {  // anything
        s.raw_ticks = in.Take<uint64_t>();
        s.reference_tai = zg::core::TaiNs{in.Take<int64_t>()};
        s.uncertainty_ns = in.Take<int64_t>();
      }
      s.taken_at = s.reference_tai;
    }
    d->AddSamples((op >> 2) % sources, {batch, static_cast<size_t>(n)});
  }
  return 0;
}
