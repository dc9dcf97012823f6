// SPDX-License-Identifier: Apache-2.0
// SourceSpec: one reference source as an operator configures it — the text of
// one zeitgeberd --source flag, parsed and checked into the options of the
// source it names. Parsing opens nothing: servo/sources/source_factory.h builds
// the source from the spec at start-up, so a typo stops zeitgeberd before any
// device or socket is touched.
//
// Grammar:  KIND[:TARGET][,KEY=VALUE]...
//   system[,scale=auto|tai|realtime]
//   gpsd[:HOST:PORT][,device=PATH][,pps_error=DUR][,toff=on|off]
//       [,toff_error=DUR][,toff_delay=DUR][,reconnect_max=DUR]
//                                                   (HOST may be [IPv6])
//   phc:PATH[,timescale=tai|utc][,error=DUR][,reads=N]
//   pps:PATH[,edge=assert|clear][,delay=DUR][,error=DUR][,coarse=system|gpsd]
//   sim[:NAME][,uncertainty=DUR][,noise=DUR][,seed=N][,offset=DUR]
//       [,up_for=DUR][,down_for=DUR][,jump=DUR][,jump_after=DUR]
//       [,control_file=PATH][,stratum=N][,refid=CODE]
// and for every kind: name=STR, priority=N (lower is preferred),
// interval=DUR (poll interval), timeout=DUR (no sample for this long: down),
// traceable=true|false (whether the source's time and frequency trace to a
// primary reference: gpsd, pps and sim do by default, system and phc do not;
// declare system or phc traceable when chrony, ptp4l or ts2phc keep that
// clock locked to GNSS, so PTP announces clockClass 6/7, not 248).
// DUR is an abseil duration: 250ms, 1.5us, 20s, -3ms.
//
//   ZG_ASSIGN_OR_RETURN(SourceSpec s,
//                       ParseSourceSpec("gpsd:127.0.0.1:2947,priority=5"));
//   // s.kind == SourceKind::kGpsd, s.gpsd.port == 2947, s.priority == 5
//
// Pure: no I/O. Fuzzed (tests/fuzz/source_spec_fuzzer.cc).
#ifndef ZG_SERVO_SOURCE_SPEC_H_
#define ZG_SERVO_SOURCE_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "servo/sources/gpsd_source.h"
#include "servo/sources/phc_source.h"
#include "servo/sources/pps_source.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/simulated_source.h"
#include "servo/sources/system_clock_source.h"

namespace zg::servo {

// Longest --source value accepted (a path plus options fits easily).
inline constexpr size_t kMaxSourceSpecBytes = 1024;

struct SourceSpec {
  SourceKind kind = SourceKind::kSystemClock;
  std::string text;  // the flag value as given (for logs and the audit log)
  // Overrides of the source's SourceInfo; unset: the kind's default.
  std::optional<std::string> name;
  std::optional<int> priority;
  std::optional<bool> traceable;  // time_traceable and frequency_traceable
  // How often the control thread polls the source.
  int64_t poll_interval_ns = 1'000'000'000;
  // How often the source yields a sample (the servo's sync interval): the
  // poll interval, except for gpsd and PPS (one sample per second).
  int64_t sample_interval_ns = 1'000'000'000;

  // Per kind; only the one named by `kind` is meaningful. Callbacks
  // (tai_minus_utc, coarse) are filled in by the factory.
  SystemClockSourceOptions system;
  GpsdSourceOptions gpsd;
  std::string device_path;  // phc, pps
  PhcSourceOptions phc;
  PpsSourceOptions pps;
  bool pps_coarse_from_gpsd = false;  // else the system clock
  SimulatedSourceOptions sim;
};

// Parses one --source value. Errors name the offending part and what is
// accepted.
absl::StatusOr<SourceSpec> ParseSourceSpec(std::string_view text);

// "system", "gpsd", "phc", "pps", "sim".
const char* SourceKindName(SourceKind kind);

}  // namespace zg::servo

#endif  // ZG_SERVO_SOURCE_SPEC_H_
