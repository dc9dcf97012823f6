// SPDX-License-Identifier: Apache-2.0
// Builds the reference sources zeitgeberd was configured with (SourceSpec,
// servo/sources/source_spec.h): opens devices, resolves gpsd's address, wires
// the leap-second table and the PPS coarse-second source in. Setup only; every
// error says which --source failed and what to check.
//
//   GpsdLink gpsd_link;                  // owned by the control plane
//   SourceEnv env{tsc.get(), [&](core::UtcNs t) { return leaps.TaiMinusUtc(t);
//   }, &RealSystemClockOps(), &gpsd_link};
//   ZG_ASSIGN_OR_RETURN(BuiltSource gps, BuildSource(gpsd_spec, env));
//   gpsd_link.source = gps.gpsd;         // for pps:...,coarse=gpsd
//   ZG_ASSIGN_OR_RETURN(BuiltSource pps, BuildSource(pps_spec, env));
//
// BuildSource may run on any thread (opening a device or resolving a host
// may block: the control plane builds live additions off its thread). The
// sources it makes call env.tai_minus_utc and read env.gpsd only from Poll,
// on the control thread.
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

// The gpsd source that PPS sources with coarse=gpsd take their second from.
// Written by the control thread when its sources change; read by those PPS
// sources' Poll (control thread). Null source: they fail their polls (a
// source set without gpsd is refused before it gets here).
struct GpsdLink {
  const GpsdSource* source = nullptr;
};

struct SourceEnv {
  RawClock* raw = nullptr;      // the raw clock samples are measured against
  TaiMinusUtcFn tai_minus_utc;  // the leap-second table
  SystemClockOps* ops = &RealSystemClockOps();
  // Required by pps:...,coarse=gpsd; outlives the sources built.
  const GpsdLink* gpsd = nullptr;
};

struct BuiltSource {
  std::unique_ptr<ReferenceSource> source;
  GpsdSource* gpsd = nullptr;  // `source` itself when it is a gpsd source
};

absl::StatusOr<BuiltSource> BuildSource(const SourceSpec& spec,
                                        const SourceEnv& env);

}  // namespace zg::servo

#endif  // ZG_SERVO_SOURCE_FACTORY_H_
