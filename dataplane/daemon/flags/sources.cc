// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/sources.h"

#include <cmath>
#include <cstdint>
#include <set>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "core/base/status_macros.h"
#include "dataplane/trust/reload.h"
#include "servo/leap/leap_file.h"
#include "servo/sources/source_spec.h"

namespace {
constexpr char kDefaultSource[] = "system";  // without any --source
}  // namespace

ABSL_FLAG(std::string, source, kDefaultSource,
          "Reference source, repeatable: system, gpsd[:HOST:PORT], "
          "phc:/dev/ptpN, pps:/dev/ppsN, sim[:NAME], each with ,KEY=VALUE "
          "options (priority=N: lower is preferred; see doc/sources.md).");
ABSL_FLAG(bool, require_system_clock_sync, true,
          "Serve the system clock source as synchronised only while the "
          "kernel says it is (adjtimex without STA_UNSYNC). false: serve it "
          "anyway, with --system_clock_assumed_error as its error; for rigs "
          "and demos on hosts that run no NTP client.");
ABSL_FLAG(absl::Duration, system_clock_assumed_error, absl::Microseconds(100),
          "Error assumed for an unsynchronised system clock under "
          "--require_system_clock_sync=false; must stay below "
          "--freerun_limit.");
ABSL_FLAG(std::string, oscillator, "tcxo",
          "The raw clock's oscillator, for holdover: tcxo, ocxo, rubidium, or "
          "custom:KEY=VALUE,... with every key given: floor_ppb, "
          "aging_ppb_per_day, temperature_ppb_per_k, random_walk_ppb2_per_s "
          "(numbers >= 0) and category (1, 2 or 3).");
ABSL_FLAG(double, temperature_excursion, 1.0,
          "Temperature change (K) expected while in holdover.");
ABSL_FLAG(std::string, servo, "linreg",
          "Clock servo: linreg (linear regression) or pi.");
ABSL_FLAG(std::string, clock_class_profile, "auto",
          "PTP clockClass mapping: ieee1588, g8275_gm or g8275_bc; auto "
          "(default): g8275_gm with --ptp_profile=g8275.2, else ieee1588.");
ABSL_FLAG(std::string, clock_class_degradation, "a",
          "ieee1588 mapping, out of holdover spec: a (clockClass 52) or b "
          "(187: the degradation alternative whose clock may become a "
          "slave). IEEE 1588-2008 table 5.");
// --ptp_profile (flags/ptp.cc) picks the clockClass mapping
// when --clock_class_profile=auto.
ABSL_DECLARE_FLAG(std::string, ptp_profile);
ABSL_FLAG(absl::Duration, holdover_in_spec_limit, absl::Nanoseconds(1500),
          "Holdover stays in spec (clockClass 7, NTP synchronised) while the "
          "predicted error bound is within this.");
ABSL_FLAG(absl::Duration, freerun_limit, absl::Milliseconds(1),
          "Beyond this error bound the time is not served as synchronised "
          "(NTP LI=3); holdover ends in FREERUN.");
ABSL_FLAG(
    absl::Duration, source_timeout, absl::Seconds(5),
    "No accepted sample for this long: the reference is lost (holdover).");
ABSL_FLAG(absl::Duration, max_extrapolation, absl::Seconds(10),
          "Workers call a published model stale after this long.");
ABSL_FLAG(absl::Duration, first_step_threshold, absl::Microseconds(20),
          "At start-up, step once more (after the first sample set the time) "
          "if the offset exceeds this; 0 never.");
ABSL_FLAG(absl::Duration, step_threshold, absl::ZeroDuration(),
          "Step whenever the offset exceeds this (0: never; steps happen only "
          "at start-up).");
ABSL_FLAG(int32_t, jump_accept_after, 0,
          "Follow a reference that jumped beyond its error bound after this "
          "many consecutive rejected samples (0: never; hold over instead).");
ABSL_FLAG(bool, follow_outvoting_majority, false,
          "When 3+ sources agree on a time the served clock's bound excludes, "
          "follow them (may step). Off: report and hold over (anti-spoofing).");
ABSL_FLAG(std::string, leap_file, zg::servo::kDefaultLeapFilePath,
          "IERS leap-seconds.list; the built-in table is used if it is "
          "missing or invalid (with a warning).");
namespace zg::dataplane {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view value,
                       absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, ": ", why));
}

int64_t Ns(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

absl::StatusOr<int64_t> DurationIn(const char* flag, absl::Duration d,
                                   absl::Duration lo, absl::Duration hi) {
  if (d < lo || d > hi) {
    return FlagError(flag, absl::FormatDuration(d),
                     absl::StrCat("must be ", absl::FormatDuration(lo), "..",
                                  absl::FormatDuration(hi)));
  }
  return Ns(d);
}

absl::Status ParseSources(const std::vector<std::string>& args,
                          servo::ControlPlaneConfig* c) {
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> values,
                      SourceFlagValues(args));
  for (const std::string& v : values) {
    ZG_ASSIGN_OR_RETURN(servo::SourceSpec spec, servo::ParseSourceSpec(v));
    c->sources.push_back(std::move(spec));
  }
  return absl::OkStatus();
}

absl::Status ApplySystemTrust(servo::ControlPlaneConfig* c) {
  const bool require = absl::GetFlag(FLAGS_require_system_clock_sync);
  const absl::Duration assumed =
      absl::GetFlag(FLAGS_system_clock_assumed_error);
  const int64_t freerun = c->discipline.holdover.freerun_limit_ns;
  if (!require && (assumed <= absl::ZeroDuration() || Ns(assumed) >= freerun)) {
    return FlagError(
        "system_clock_assumed_error", absl::FormatDuration(assumed),
        absl::StrCat("must be > 0 and below --freerun_limit (",
                     absl::FormatDuration(absl::Nanoseconds(freerun)),
                     "): a larger error is never served as synchronised"));
  }
  // Also for sources added while running (zgctl source add, a reload).
  c->prepare_source = [require,
                       assumed_ns = Ns(assumed)](servo::SourceSpec* s) {
    s->system.require_synchronized = require;
    s->system.unsynchronized_error_ns = assumed_ns;
  };
  for (servo::SourceSpec& s : c->sources) c->prepare_source(&s);
  return absl::OkStatus();
}

// --clock_class_profile, with auto resolved from --ptp_profile.
std::string ClassProfileFlag() {
  const std::string profile = absl::GetFlag(FLAGS_clock_class_profile);
  if (profile != "auto") return profile;
  const std::string ptp = absl::GetFlag(FLAGS_ptp_profile);
  return ptp == "g8275.2" || ptp == "g8275_2" ? "g8275_gm" : "ieee1588";
}

absl::Status ParseDiscipline(servo::DisciplineConfig* d) {
  const std::string servo = absl::GetFlag(FLAGS_servo);
  if (servo == "linreg") {
    d->servo.type = servo::ServoType::kLinreg;
  } else if (servo == "pi") {
    d->servo.type = servo::ServoType::kPi;
  } else {
    return FlagError("servo", servo, "must be linreg or pi");
  }
  const std::string profile = ClassProfileFlag();
  if (profile == "ieee1588") {
    d->class_policy.profile = servo::ClassProfile::kIeee1588;
  } else if (profile == "g8275_gm") {
    d->class_policy.profile = servo::ClassProfile::kG8275Gm;
  } else if (profile == "g8275_bc") {
    d->class_policy.profile = servo::ClassProfile::kG8275Bc;
  } else {
    return FlagError("clock_class_profile", profile,
                     "must be auto, ieee1588, g8275_gm or g8275_bc");
  }
  const std::string degradation = absl::GetFlag(FLAGS_clock_class_degradation);
  if (degradation != "a" && degradation != "b") {
    return FlagError("clock_class_degradation", degradation, "must be a or b");
  }
  if (degradation == "b" &&
      d->class_policy.profile != servo::ClassProfile::kIeee1588) {
    return FlagError("clock_class_degradation", degradation,
                     "applies to the ieee1588 mapping only (G.8275 has its "
                     "own out-of-spec classes)");
  }
  d->class_policy.degradation_alternative_b = degradation == "b";
  ZG_ASSIGN_OR_RETURN(d->oscillator,
                      ParseOscillatorFlag(absl::GetFlag(FLAGS_oscillator)));
  const double dt = absl::GetFlag(FLAGS_temperature_excursion);
  if (!(dt >= 0 && dt <= 100)) {
    return FlagError("temperature_excursion", absl::StrCat(dt),
                     "must be 0..100 (K)");
  }
  d->environment.temperature_excursion_k = dt;
  ZG_ASSIGN_OR_RETURN(d->holdover.in_spec_limit_ns,
                      DurationIn("holdover_in_spec_limit",
                                 absl::GetFlag(FLAGS_holdover_in_spec_limit),
                                 absl::Nanoseconds(1), absl::Seconds(10)));
  ZG_ASSIGN_OR_RETURN(
      d->holdover.freerun_limit_ns,
      DurationIn("freerun_limit", absl::GetFlag(FLAGS_freerun_limit),
                 absl::Nanoseconds(2), absl::Seconds(100)));
  if (d->holdover.freerun_limit_ns <= d->holdover.in_spec_limit_ns) {
    return absl::InvalidArgumentError(
        "--freerun_limit must be larger than --holdover_in_spec_limit");
  }
  ZG_ASSIGN_OR_RETURN(
      d->source_timeout_ns,
      DurationIn("source_timeout", absl::GetFlag(FLAGS_source_timeout),
                 absl::Seconds(2), absl::Hours(1)));
  d->coast_after_ns = std::min(d->coast_after_ns, d->source_timeout_ns);
  ZG_ASSIGN_OR_RETURN(
      d->max_extrapolation_ns,
      DurationIn("max_extrapolation", absl::GetFlag(FLAGS_max_extrapolation),
                 absl::Seconds(1), absl::Hours(24)));
  ZG_ASSIGN_OR_RETURN(d->servo.first_step_threshold_ns,
                      DurationIn("first_step_threshold",
                                 absl::GetFlag(FLAGS_first_step_threshold),
                                 absl::ZeroDuration(), absl::Hours(24 * 365)));
  ZG_ASSIGN_OR_RETURN(
      d->servo.step_threshold_ns,
      DurationIn("step_threshold", absl::GetFlag(FLAGS_step_threshold),
                 absl::ZeroDuration(), absl::Hours(24 * 365)));
  const int32_t accept = absl::GetFlag(FLAGS_jump_accept_after);
  if (accept < 0 || accept > 1000) {
    return FlagError("jump_accept_after", absl::StrCat(accept),
                     "must be 0 (never) .. 1000");
  }
  d->jump_accept_after = accept;
  d->follow_outvoting_majority = absl::GetFlag(FLAGS_follow_outvoting_majority);
  return servo::ValidateDisciplineConfig([&] {
    servo::DisciplineConfig v = *d;
    v.raw_nominal_hz = 1e9;  // the TSC's, filled in at start
    return v;
  }());
}

// What the start record says about the configuration.
std::vector<std::pair<std::string, std::string>> Settings() {
  return {
      {"servo", absl::GetFlag(FLAGS_servo)},
      {"oscillator", absl::GetFlag(FLAGS_oscillator)},
      {"clock_class_profile", ClassProfileFlag()},
      {"clock_class_degradation", absl::GetFlag(FLAGS_clock_class_degradation)},
      {"require_system_clock_sync",
       absl::GetFlag(FLAGS_require_system_clock_sync) ? "true" : "false"},
      {"holdover_in_spec_limit",
       absl::FormatDuration(absl::GetFlag(FLAGS_holdover_in_spec_limit))},
      {"freerun_limit",
       absl::FormatDuration(absl::GetFlag(FLAGS_freerun_limit))},
      {"source_timeout",
       absl::FormatDuration(absl::GetFlag(FLAGS_source_timeout))},
      {"step_threshold",
       absl::FormatDuration(absl::GetFlag(FLAGS_step_threshold))},
      {"jump_accept_after",
       absl::StrCat(absl::GetFlag(FLAGS_jump_accept_after))},
      {"follow_outvoting_majority",
       absl::GetFlag(FLAGS_follow_outvoting_majority) ? "true" : "false"},
      {"leap_file", absl::GetFlag(FLAGS_leap_file)},
  };
}

// "key=value" pairs of a custom oscillator.
absl::StatusOr<servo::OscillatorProfile> ParseCustomOscillator(
    absl::string_view text, absl::string_view fields) {
  servo::OscillatorProfile p;
  p.kind = servo::OscillatorKind::kCustom;
  p.name = "custom";
  std::set<std::string> seen;
  for (absl::string_view kv : absl::StrSplit(fields, ',')) {
    const size_t eq = kv.find('=');
    const std::string key(kv.substr(0, eq));
    const absl::string_view value =
        eq == absl::string_view::npos ? "" : kv.substr(eq + 1);
    double v = 0;
    if (eq == absl::string_view::npos || !absl::SimpleAtod(value, &v) ||
        !std::isfinite(v) || v < 0) {
      return FlagError("oscillator", text,
                       absl::StrCat("'", kv, "': expected KEY=NUMBER >= 0"));
    }
    if (key == "floor_ppb") {
      p.frequency_floor_ppb = v;
    } else if (key == "aging_ppb_per_day") {
      p.aging_ppb_per_day = v;
    } else if (key == "temperature_ppb_per_k") {
      p.temperature_ppb_per_k = v;
    } else if (key == "random_walk_ppb2_per_s") {
      p.random_walk_ppb2_per_s = v;
    } else if (key == "category" && (v == 1 || v == 2 || v == 3)) {
      p.category = static_cast<servo::FrequencyCategory>(static_cast<int>(v));
    } else {
      return FlagError("oscillator", text,
                       absl::StrCat("unknown or invalid field '", kv, "'"));
    }
    seen.insert(key);
  }
  if (seen.size() != 5) {
    return FlagError("oscillator", text,
                     "a custom profile sets every field: floor_ppb, "
                     "aging_ppb_per_day, temperature_ppb_per_k, "
                     "random_walk_ppb2_per_s, category");
  }
  ZG_RETURN_IF_ERROR(servo::ValidateOscillatorProfile(p));
  return p;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SourceFlagValues(
    const std::vector<std::string>& args) {
  ZG_ASSIGN_OR_RETURN(std::vector<std::string> values,
                      CollectRepeatedFlag(args, "source"));
  if (values.empty()) values.push_back(kDefaultSource);
  return values;
}

absl::StatusOr<servo::OscillatorProfile> ParseOscillatorFlag(
    absl::string_view text) {
  absl::string_view fields = text;
  if (absl::ConsumePrefix(&fields, "custom:")) {
    return ParseCustomOscillator(text, fields);
  }
  absl::StatusOr<servo::OscillatorProfile> p =
      servo::OscillatorProfileByName(text);
  if (!p.ok()) return FlagError("oscillator", text, p.status().message());
  return p;
}

absl::StatusOr<servo::ControlPlaneConfig> ParseControlFlags(
    const std::vector<std::string>& args) {
  servo::ControlPlaneConfig c;
  ZG_RETURN_IF_ERROR(ParseDiscipline(&c.discipline));
  ZG_RETURN_IF_ERROR(ParseSources(args, &c));
  ZG_RETURN_IF_ERROR(ApplySystemTrust(&c));
  c.leap_file = absl::GetFlag(FLAGS_leap_file);
  if (c.leap_file.empty()) {
    return absl::InvalidArgumentError(
        "--leap_file is empty: give the IERS leap-seconds.list (Debian: "
        "/usr/share/zoneinfo/leap-seconds.list, package tzdata)");
  }
  c.settings = Settings();
  return c;
}

}  // namespace zg::dataplane
