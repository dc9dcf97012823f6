// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/source_factory.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "servo/sources/phc_device.h"
#include "servo/sources/phc_source.h"
#include "servo/sources/pps_device.h"
#include "servo/sources/pps_source.h"
#include "servo/sources/simulated_source.h"
#include "servo/sources/system_clock_source.h"

namespace zg::servo {
namespace {

// Applies the spec's name/priority/traceable overrides to a source's info.
void Override(const SourceSpec& spec, SourceInfo* info) {
  if (spec.name) info->name = *spec.name;
  if (spec.priority) info->priority = *spec.priority;
  if (spec.traceable) {
    info->time_traceable = *spec.traceable;
    info->frequency_traceable = *spec.traceable;
  }
}

absl::Status Wrap(const SourceSpec& spec, const absl::Status& s) {
  return absl::Status(s.code(),
                      absl::StrCat("--source=", spec.text, ": ", s.message()));
}

template <typename T>
absl::StatusOr<BuiltSource> Built(const SourceSpec& spec,
                                  absl::StatusOr<std::unique_ptr<T>> made) {
  if (!made.ok()) return Wrap(spec, made.status());
  BuiltSource b;
  b.source = *std::move(made);
  return b;
}

absl::StatusOr<BuiltSource> BuildPps(const SourceSpec& spec,
                                     const SourceEnv& env) {
  PpsSourceOptions o = spec.pps;
  Override(spec, &o.info);
  o.tai_minus_utc = env.tai_minus_utc;
  if (spec.pps_coarse_from_gpsd) {
    if (env.gpsd == nullptr) {
      return Wrap(spec, absl::InvalidArgumentError(
                            "coarse=gpsd needs a gpsd source: add "
                            "--source=gpsd:HOST:PORT"));
    }
    const GpsdLink* link = env.gpsd;
    o.coarse = [link](core::UtcNs t) -> absl::StatusOr<core::UtcNs> {
      if (link->source == nullptr) {
        return absl::FailedPreconditionError(
            "coarse=gpsd: no gpsd source is configured");
      }
      return link->source->CoarseUtcAt(t);
    };
  } else {
    o.coarse = SystemClockCoarseUtc();
  }
  absl::StatusOr<std::unique_ptr<PpsDevice>> dev =
      OpenPpsDevice(spec.device_path);
  if (!dev.ok()) return Wrap(spec, dev.status());
  return Built(
      spec, PpsSource::Create(env.raw, *std::move(dev), std::move(o), env.ops));
}

}  // namespace

absl::StatusOr<BuiltSource> BuildSource(const SourceSpec& spec,
                                        const SourceEnv& env) {
  switch (spec.kind) {
    case SourceKind::kSystemClock: {
      SystemClockSourceOptions o = spec.system;
      Override(spec, &o.info);
      o.tai_minus_utc = env.tai_minus_utc;
      return Built(spec,
                   SystemClockSource::Create(env.raw, std::move(o), env.ops));
    }
    case SourceKind::kGpsd: {
      GpsdSourceOptions o = spec.gpsd;
      Override(spec, &o.info);
      o.tai_minus_utc = env.tai_minus_utc;
      absl::StatusOr<std::unique_ptr<GpsdSource>> made =
          GpsdSource::Create(env.raw, std::move(o), env.ops);
      if (!made.ok()) return Wrap(spec, made.status());
      BuiltSource b;
      b.gpsd = made->get();
      b.source = *std::move(made);
      return b;
    }
    case SourceKind::kPhc: {
      PhcSourceOptions o = spec.phc;
      Override(spec, &o.info);
      o.tai_minus_utc = env.tai_minus_utc;
      absl::StatusOr<std::unique_ptr<PhcDevice>> dev =
          OpenPhcDevice(spec.device_path);
      if (!dev.ok()) return Wrap(spec, dev.status());
      return Built(spec, PhcSource::Create(env.raw, *std::move(dev),
                                           std::move(o), env.ops));
    }
    case SourceKind::kPps:
      return BuildPps(spec, env);
    case SourceKind::kSimulated: {
      SimulatedSourceOptions o = spec.sim;
      Override(spec, &o.info);
      o.tai_minus_utc = env.tai_minus_utc;
      return Built(spec,
                   SimulatedSource::Create(env.raw, std::move(o), env.ops));
    }
  }
  return absl::InvalidArgumentError("unknown source kind");
}

}  // namespace zg::servo
