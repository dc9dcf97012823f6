// SPDX-License-Identifier: Apache-2.0
// SimulatedSource: a reference source for tests, demos and rigs, with
// scripted faults — an outage ("up for 20 s, then down"), an operator switch
// (a control file that says "down"), a constant error and a jump (a spoofer).
//
// The simulated truth is a steady clock: CLOCK_REALTIME (as TAI) at Create(),
// advancing with CLOCK_MONOTONIC_RAW, the kernel's unslewed clock. So a
// reference that is never stepped or slewed, and close to the system clock
// on a host nothing disciplines. Each Poll reads MONOTONIC_RAW between two
// raw-clock (TSC) reads (the tightest of a few) and reports
//
//   reference_tai = truth + offset + (jump after jump_after) + noise
//   uncertainty   = the configured uncertainty + half the bracket
//
// where noise is Gaussian with the configured sigma from a seeded generator.
// It is honest only if |offset| + a few sigma of noise stays within the
// configured uncertainty; a jump is meant to exceed it (the discipline's jump
// gate should reject it).
//
//   SimulatedSourceOptions opt;
//   opt.uncertainty_ns = 1'000;
//   opt.up_for_ns = 20'000'000'000;   // then down for good
//   opt.tai_minus_utc = FixedTaiMinusUtc(37);
//   ZG_ASSIGN_OR_RETURN(auto sim, SimulatedSource::Create(tsc.get(), opt));
//   sim->Poll(&samples);
//
// Create may run on any thread; Poll on the control thread only. Not for
// production: its refid is "SIM".
#ifndef ZG_SERVO_SIMULATED_SOURCE_H_
#define ZG_SERVO_SIMULATED_SOURCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_health.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

struct SimulatedSourceOptions {
  int64_t uncertainty_ns = 1'000;  // claimed by every sample
  int64_t noise_ns = 0;            // Gaussian sigma added to each reading
  uint64_t seed = 1;
  int64_t offset_ns = 0;  // constant error of the reference against truth
  // Scripted outage, from Create(): samples for up_for_ns, none for
  // down_for_ns (0: for good), then samples again. up_for_ns = 0: no outage.
  int64_t up_for_ns = 0;
  int64_t down_for_ns = 0;
  // From jump_after_ns after Create() on, readings are off by jump_ns more.
  int64_t jump_ns = 0;
  int64_t jump_after_ns = 0;
  // If set and the file's first word is "down", no samples (an operator's
  // switch for demos: `echo down > FILE`, `echo up > FILE`).
  std::string control_file;
  int tries = 5;  // bracketed reads per sample; the tightest is kept
  int64_t timeout_ns = 3'000'000'000;
  TaiMinusUtcFn tai_minus_utc;      // required: truth starts from UTC
  SourceInfo info = DefaultInfo();  // empty name: "sim"

  static SourceInfo DefaultInfo();
};

class SimulatedSource final : public ReferenceSource {
 public:
  static absl::StatusOr<std::unique_ptr<SimulatedSource>> Create(
      RawClock* raw, SimulatedSourceOptions options,
      SystemClockOps* ops = &RealSystemClockOps());

  const SourceInfo& info() const override { return options_.info; }
  absl::Status Poll(std::vector<ReferenceSample>* out) override;
  SourceHealth health() const override { return health_.health(); }
  const absl::Status& problem() const override { return health_.problem(); }

  // Whether the script (or the control file) has the reference up at
  // `elapsed_ns` after Create().
  bool ScriptedUp(int64_t elapsed_ns) const;
  uint64_t samples() const { return samples_; }

 private:
  SimulatedSource(RawClock* raw, SimulatedSourceOptions options,
                  SystemClockOps* ops, core::UtcNs utc0, int64_t mono_raw0,
                  int64_t mono0);
  bool ControlFileSaysDown() const;

  RawClock* raw_;
  SimulatedSourceOptions options_;
  SystemClockOps* ops_;
  core::UtcNs utc0_;  // truth at mono_raw0_, as UTC
  // utc0_ as TAI, converted at the first sample: Create may run on any
  // thread, tai_minus_utc (the control plane's leap table) only on the one
  // that polls.
  std::optional<core::TaiNs> tai0_;
  int64_t mono_raw0_;  // CLOCK_MONOTONIC_RAW at Create
  int64_t mono0_;      // CLOCK_MONOTONIC at Create (script time)
  std::mt19937_64 rng_;
  std::normal_distribution<double> gauss_{0.0, 1.0};
  HealthTracker health_;
  uint64_t samples_ = 0;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_SIMULATED_SOURCE_H_
