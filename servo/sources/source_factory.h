// Builds the reference sources zeitgeberd was configured with (SourceSpec,
// servo/sources/source_spec.h): opens devices, resolves gpsd's address, wires
// the leap-second table and the PPS coarse-second source in. Setup only; every
// error says which --source failed and what to check.
//
//   SourceEnv env{tsc.get(), [&](core::UtcNs t) { return leaps.TaiMinusUtc(t);
//   }}; ZG_ASSIGN_OR_RETURN(BuiltSource gps, BuildSource(gpsd_spec, env));
//   env.gpsd = gps.gpsd;                 // for pps:...,coarse=gpsd
//   ZG_ASSIGN_OR_RETURN(BuiltSource pps, BuildSource(pps_spec, env));
//
// Control thread only.
#ifndef ZG_SERVO_SOURCE_FACTORY_H_
#define ZG_SERVO_SOURCE_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/gpsd_source.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_spec.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

struct SourceEnv {
  RawClock* raw = nullptr;      // the raw clock samples are measured against
  TaiMinusUtcFn tai_minus_utc;  // the leap-second table
  SystemClockOps* ops = &RealSystemClockOps();
  // The gpsd source PPS sources with coarse=gpsd take their second from.
  const GpsdSource* gpsd = nullptr;
};

struct BuiltSource {
  std::unique_ptr<ReferenceSource> source;
  GpsdSource* gpsd = nullptr;  // `source` itself when it is a gpsd source
};

absl::StatusOr<BuiltSource> BuildSource(const SourceSpec& spec,
                                        const SourceEnv& env);

}  // namespace zg::servo

#endif  // ZG_SERVO_SOURCE_FACTORY_H_
