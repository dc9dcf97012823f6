// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/source_spec.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/base/status_macros.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;
constexpr size_t kMaxPathBytes = 255;
constexpr size_t kMaxNameBytes = 64;

absl::Status Bad(const SourceSpec& spec, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--source=", spec.text, ": ", what));
}

// One KEY=VALUE option, and whether it was consumed.
struct Option {
  std::string key;
  std::string value;
};

class Parser {
 public:
  explicit Parser(SourceSpec* spec) : spec_(spec) {}

  absl::Status Duration(const Option& o, int64_t lo_ns, int64_t hi_ns,
                        int64_t* out) const {
    absl::Duration d;
    if (!absl::ParseDuration(o.value, &d) || d == absl::InfiniteDuration() ||
        d == -absl::InfiniteDuration()) {
      return Bad(*spec_, absl::StrCat(o.key, "=", o.value,
                                      ": not a duration (e.g. 250ms, 1.5us, "
                                      "20s)"));
    }
    const int64_t ns = absl::ToInt64Nanoseconds(d);
    if (ns < lo_ns || ns > hi_ns) {
      return Bad(
          *spec_,
          absl::StrCat(o.key, "=", o.value, ": must be ",
                       absl::FormatDuration(absl::Nanoseconds(lo_ns)), "..",
                       absl::FormatDuration(absl::Nanoseconds(hi_ns))));
    }
    *out = ns;
    return absl::OkStatus();
  }

  absl::Status Int(const Option& o, int64_t lo, int64_t hi,
                   int64_t* out) const {
    int64_t v = 0;
    if (!absl::SimpleAtoi(o.value, &v) || v < lo || v > hi) {
      return Bad(*spec_, absl::StrCat(o.key, "=", o.value,
                                      ": must be an integer ", lo, "..", hi));
    }
    *out = v;
    return absl::OkStatus();
  }

  absl::Status Bool(const Option& o, bool* out) const {
    if (o.value == "on" || o.value == "true") {
      *out = true;
    } else if (o.value == "off" || o.value == "false") {
      *out = false;
    } else {
      return Bad(*spec_, absl::StrCat(o.key, "=", o.value,
                                      ": must be on|off (or true|false)"));
    }
    return absl::OkStatus();
  }

  absl::Status Path(absl::string_view what, absl::string_view value,
                    std::string* out) const {
    if (value.empty() || value[0] != '/' || value.size() > kMaxPathBytes) {
      return Bad(*spec_, absl::StrCat(what, " '", value,
                                      "': expected an absolute path (at most ",
                                      kMaxPathBytes, " bytes)"));
    }
    for (char c : value) {
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) {
        return Bad(*spec_, absl::StrCat(what,
                                        ": spaces and control "
                                        "characters are not allowed"));
      }
    }
    *out = std::string(value);
    return absl::OkStatus();
  }

 private:
  SourceSpec* spec_;
};

bool ValidName(absl::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        !absl::StrContains("._:/@+-", c)) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<SourceKind> KindNamed(absl::string_view k) {
  if (k == "system") return SourceKind::kSystemClock;
  if (k == "gpsd") return SourceKind::kGpsd;
  if (k == "phc") return SourceKind::kPhc;
  if (k == "pps") return SourceKind::kPps;
  if (k == "sim") return SourceKind::kSimulated;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown source kind '", k, "': expected system, gpsd, phc, pps or sim"));
}

// "HOST:PORT" or "[V6]:PORT" into the gpsd options.
absl::Status GpsdTarget(SourceSpec* spec, absl::string_view t) {
  absl::string_view host, port;
  if (absl::StartsWith(t, "[")) {
    const size_t close = t.find(']');
    if (close == absl::string_view::npos || close + 1 >= t.size() ||
        t[close + 1] != ':') {
      return Bad(*spec, "gpsd address: expected [IPV6]:PORT");
    }
    host = t.substr(1, close - 1);
    port = t.substr(close + 2);
  } else {
    const size_t colon = t.rfind(':');
    if (colon == absl::string_view::npos) {
      return Bad(*spec, "gpsd address: expected HOST:PORT (127.0.0.1:2947)");
    }
    host = t.substr(0, colon);
    port = t.substr(colon + 1);
  }
  int p = 0;
  if (host.empty() || host.size() > 253 || !absl::SimpleAtoi(port, &p) ||
      p < 1 || p > 65535) {
    return Bad(*spec, "gpsd address: expected HOST:PORT with a port 1..65535");
  }
  for (char c : host) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
        !absl::StrContains(".-:", c)) {
      return Bad(*spec, "gpsd address: invalid character in the host");
    }
  }
  spec->gpsd.host = std::string(host);
  spec->gpsd.port = static_cast<uint16_t>(p);
  return absl::OkStatus();
}

// Options every kind takes. Returns true if `o` was one of them.
absl::StatusOr<bool> CommonOption(SourceSpec* spec, const Parser& p,
                                  const Option& o, int64_t* timeout_ns) {
  if (o.key == "name") {
    if (!ValidName(o.value)) {
      return Bad(*spec, absl::StrCat("name=", o.value,
                                     ": 1..64 of A-Z a-z 0-9 . _ : / @ + -"));
    }
    spec->name = o.value;
  } else if (o.key == "priority") {
    int64_t v = 0;
    ZG_RETURN_IF_ERROR(p.Int(o, -1000, 1000, &v));
    spec->priority = static_cast<int>(v);
  } else if (o.key == "interval") {
    ZG_RETURN_IF_ERROR(
        p.Duration(o, 10 * kMs, 60 * kS, &spec->poll_interval_ns));
  } else if (o.key == "timeout") {
    ZG_RETURN_IF_ERROR(p.Duration(o, 100 * kMs, 3600 * kS, timeout_ns));
  } else if (o.key == "traceable") {
    bool v = false;
    ZG_RETURN_IF_ERROR(p.Bool(o, &v));
    spec->traceable = v;
  } else {
    return false;
  }
  return true;
}

absl::Status SystemOption(SourceSpec* spec, const Option& o) {
  if (o.key != "scale") return absl::NotFoundError("");
  using Scale = SystemClockSourceOptions::Scale;
  if (o.value == "auto") {
    spec->system.scale = Scale::kAuto;
  } else if (o.value == "tai") {
    spec->system.scale = Scale::kTai;
  } else if (o.value == "realtime") {
    spec->system.scale = Scale::kRealtime;
  } else {
    return Bad(*spec, "scale must be auto, tai or realtime");
  }
  return absl::OkStatus();
}

absl::Status GpsdOption(SourceSpec* spec, const Parser& p, const Option& o) {
  GpsdSourceOptions& g = spec->gpsd;
  if (o.key == "device") return p.Path("device", o.value, &g.device);
  if (o.key == "pps_error") {
    return p.Duration(o, 0, kS, &g.pps_error_ns);
  }
  if (o.key == "toff") return p.Bool(o, &g.use_toff);
  if (o.key == "toff_error") return p.Duration(o, 0, 10 * kS, &g.toff_error_ns);
  if (o.key == "toff_delay") {
    return p.Duration(o, -10 * kS, 10 * kS, &g.toff_delay_ns);
  }
  if (o.key == "reconnect_max") {
    ZG_RETURN_IF_ERROR(p.Duration(o, 100 * kMs, 300 * kS, &g.reconnect_max_ns));
    g.reconnect_min_ns = std::min(g.reconnect_min_ns, g.reconnect_max_ns);
    return absl::OkStatus();
  }
  return absl::NotFoundError("");
}

absl::Status PhcOption(SourceSpec* spec, const Parser& p, const Option& o) {
  if (o.key == "timescale") {
    if (o.value == "tai") {
      spec->phc.timescale = PhcSourceOptions::Timescale::kTai;
    } else if (o.value == "utc") {
      spec->phc.timescale = PhcSourceOptions::Timescale::kUtc;
    } else {
      return Bad(*spec, "timescale must be tai or utc");
    }
    return absl::OkStatus();
  }
  if (o.key == "error") return p.Duration(o, 0, kS, &spec->phc.phc_error_ns);
  if (o.key == "reads") {
    int64_t v = 0;
    ZG_RETURN_IF_ERROR(p.Int(o, 1, 25, &v));
    spec->phc.samples_per_read = static_cast<int>(v);
    return absl::OkStatus();
  }
  return absl::NotFoundError("");
}

absl::Status PpsOption(SourceSpec* spec, const Parser& p, const Option& o) {
  if (o.key == "edge") {
    if (o.value == "assert") {
      spec->pps.edge = PpsEdge::kAssert;
    } else if (o.value == "clear") {
      spec->pps.edge = PpsEdge::kClear;
    } else {
      return Bad(*spec, "edge must be assert or clear");
    }
    return absl::OkStatus();
  }
  if (o.key == "delay") return p.Duration(o, -kS, kS, &spec->pps.edge_delay_ns);
  if (o.key == "error") return p.Duration(o, 0, kS, &spec->pps.edge_error_ns);
  if (o.key == "coarse") {
    if (o.value != "system" && o.value != "gpsd") {
      return Bad(*spec, "coarse must be system or gpsd");
    }
    spec->pps_coarse_from_gpsd = o.value == "gpsd";
    return absl::OkStatus();
  }
  return absl::NotFoundError("");
}

absl::Status SimOption(SourceSpec* spec, const Parser& p, const Option& o) {
  SimulatedSourceOptions& s = spec->sim;
  constexpr int64_t kLong = 1'000'000 * kS;  // ~11.6 days
  if (o.key == "uncertainty")
    return p.Duration(o, 0, 3600 * kS, &s.uncertainty_ns);
  if (o.key == "noise") return p.Duration(o, 0, kS, &s.noise_ns);
  if (o.key == "offset") return p.Duration(o, -kLong, kLong, &s.offset_ns);
  if (o.key == "up_for") return p.Duration(o, 0, kLong, &s.up_for_ns);
  if (o.key == "down_for") return p.Duration(o, 0, kLong, &s.down_for_ns);
  if (o.key == "jump") return p.Duration(o, -kLong, kLong, &s.jump_ns);
  if (o.key == "jump_after") return p.Duration(o, 0, kLong, &s.jump_after_ns);
  if (o.key == "control_file") {
    return p.Path("control_file", o.value, &s.control_file);
  }
  if (o.key == "seed") {
    if (!absl::SimpleAtoi(o.value, &s.seed)) {
      return Bad(*spec, "seed must be an unsigned integer");
    }
    return absl::OkStatus();
  }
  if (o.key == "stratum") {
    int64_t v = 0;
    ZG_RETURN_IF_ERROR(p.Int(o, 0, 15, &v));
    s.info.stratum = static_cast<uint8_t>(v);
    return absl::OkStatus();
  }
  if (o.key == "refid") {
    if (o.value.empty() || o.value.size() > 4) {
      return Bad(*spec, "refid must be 1..4 characters A-Z 0-9");
    }
    for (char c : o.value) {
      if (!absl::ascii_isupper(static_cast<unsigned char>(c)) &&
          !absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        return Bad(*spec, "refid must be 1..4 characters A-Z 0-9");
      }
    }
    s.info.ntp_refid = NtpRefId(o.value);
    return absl::OkStatus();
  }
  return absl::NotFoundError("");
}

absl::Status KindOption(SourceSpec* spec, const Parser& p, const Option& o) {
  switch (spec->kind) {
    case SourceKind::kSystemClock:
      return SystemOption(spec, o);
    case SourceKind::kGpsd:
      return GpsdOption(spec, p, o);
    case SourceKind::kPhc:
      return PhcOption(spec, p, o);
    case SourceKind::kPps:
      return PpsOption(spec, p, o);
    case SourceKind::kSimulated:
      return SimOption(spec, p, o);
  }
  return absl::NotFoundError("");
}

const char* KeysOf(SourceKind kind) {
  switch (kind) {
    case SourceKind::kSystemClock:
      return "scale";
    case SourceKind::kGpsd:
      return "device, pps_error, toff, toff_error, toff_delay, "
             "reconnect_max";
    case SourceKind::kPhc:
      return "timescale, error, reads";
    case SourceKind::kPps:
      return "edge, delay, error, coarse";
    case SourceKind::kSimulated:
      return "uncertainty, noise, seed, offset, up_for, down_for, jump, "
             "jump_after, control_file, stratum, refid";
  }
  return "";
}

absl::Status Target(SourceSpec* spec, absl::string_view target) {
  switch (spec->kind) {
    case SourceKind::kSystemClock:
      if (!target.empty()) {
        return Bad(*spec, "system takes no target (options: scale=...)");
      }
      return absl::OkStatus();
    case SourceKind::kGpsd:
      return target.empty() ? absl::OkStatus() : GpsdTarget(spec, target);
    case SourceKind::kPhc:
    case SourceKind::kPps:
      return Parser(spec).Path(spec->kind == SourceKind::kPhc
                                   ? "PHC device (phc:/dev/ptp0)"
                                   : "PPS device (pps:/dev/pps0)",
                               target, &spec->device_path);
    case SourceKind::kSimulated:
      if (target.empty()) return absl::OkStatus();
      if (!ValidName(target)) {
        return Bad(*spec, "sim name: 1..64 of A-Z a-z 0-9 . _ : / @ + -");
      }
      spec->sim.info.name = absl::StrCat("sim:", target);
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

void ApplyDefaults(SourceSpec* spec) {
  switch (spec->kind) {
    case SourceKind::kGpsd:
      spec->poll_interval_ns = 100 * kMs;  // gpsd sends when it has news
      break;
    case SourceKind::kPps:
      spec->poll_interval_ns = 100 * kMs;  // anchors close to every edge
      break;
    default:
      break;
  }
}

int64_t* TimeoutField(SourceSpec* spec) {
  switch (spec->kind) {
    case SourceKind::kSystemClock:
      return &spec->system.timeout_ns;
    case SourceKind::kGpsd:
      return &spec->gpsd.timeout_ns;
    case SourceKind::kPhc:
      return &spec->phc.timeout_ns;
    case SourceKind::kPps:
      return &spec->pps.timeout_ns;
    case SourceKind::kSimulated:
      return &spec->sim.timeout_ns;
  }
  return &spec->system.timeout_ns;
}

}  // namespace

const char* SourceKindName(SourceKind kind) {
  switch (kind) {
    case SourceKind::kSystemClock:
      return "system";
    case SourceKind::kGpsd:
      return "gpsd";
    case SourceKind::kPhc:
      return "phc";
    case SourceKind::kPps:
      return "pps";
    case SourceKind::kSimulated:
      return "sim";
  }
  return "?";
}

absl::StatusOr<SourceSpec> ParseSourceSpec(std::string_view text_in) {
  const absl::string_view text(text_in.data(), text_in.size());
  SourceSpec spec;
  if (text.size() > kMaxSourceSpecBytes) {
    spec.text = std::string(text.substr(0, 40)) + "...";
    return Bad(spec,
               absl::StrCat("longer than ", kMaxSourceSpecBytes, " bytes"));
  }
  spec.text = std::string(text);
  const size_t kind_end = text.find_first_of(":,");
  const absl::string_view kind_name = text.substr(0, kind_end);
  absl::StatusOr<SourceKind> kind = KindNamed(kind_name);
  if (!kind.ok()) return Bad(spec, kind.status().message());
  spec.kind = *kind;
  ApplyDefaults(&spec);

  absl::string_view rest =
      kind_end == absl::string_view::npos ? "" : text.substr(kind_end);
  absl::string_view target;
  if (absl::ConsumePrefix(&rest, ":")) {
    const size_t comma = rest.find(',');
    const absl::string_view first = rest.substr(0, comma);
    // "sim:up_for=20s,...": no target, the options start after the colon.
    if (first.find('=') == absl::string_view::npos) {
      target = first;
      if (target.empty()) return Bad(spec, "empty target after ':'");
      rest = comma == absl::string_view::npos ? "" : rest.substr(comma);
    }
  }
  ZG_RETURN_IF_ERROR(Target(&spec, target));

  // Options: ",k=v" pieces (the leading comma is optional after ':').
  if (absl::ConsumePrefix(&rest, ",") && rest.empty()) {
    return Bad(spec, "trailing ','");
  }
  std::set<std::string> seen;
  int64_t timeout_ns = -1;
  const Parser parser(&spec);
  if (!rest.empty()) {
    for (absl::string_view piece : absl::StrSplit(rest, ',')) {
      const size_t eq = piece.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return Bad(spec, absl::StrCat("'", piece, "': expected KEY=VALUE"));
      }
      Option o{std::string(piece.substr(0, eq)),
               std::string(piece.substr(eq + 1))};
      if (!seen.insert(o.key).second) {
        return Bad(spec, absl::StrCat(o.key, " given twice"));
      }
      ZG_ASSIGN_OR_RETURN(const bool common,
                          CommonOption(&spec, parser, o, &timeout_ns));
      if (common) continue;
      const absl::Status s = KindOption(&spec, parser, o);
      if (absl::IsNotFound(s)) {
        return Bad(spec, absl::StrCat("unknown option '", o.key, "' for ",
                                      SourceKindName(spec.kind),
                                      " (options: name, "
                                      "priority, interval, timeout, "
                                      "traceable, ",
                                      KeysOf(spec.kind), ")"));
      }
      ZG_RETURN_IF_ERROR(s);
    }
  }
  const bool one_per_second =
      spec.kind == SourceKind::kGpsd || spec.kind == SourceKind::kPps;
  spec.sample_interval_ns = one_per_second ? kS : spec.poll_interval_ns;
  int64_t* timeout = TimeoutField(&spec);
  if (timeout_ns >= 0) *timeout = timeout_ns;
  if (*timeout < 2 * spec.sample_interval_ns) {
    return Bad(spec,
               absl::StrCat("timeout (",
                            absl::FormatDuration(absl::Nanoseconds(*timeout)),
                            ") must be at least two sample intervals (",
                            absl::FormatDuration(
                                absl::Nanoseconds(2 * spec.sample_interval_ns)),
                            ")"));
  }
  if (spec.kind == SourceKind::kSimulated && spec.sim.down_for_ns > 0 &&
      spec.sim.up_for_ns == 0) {
    return Bad(spec, "down_for needs up_for (the outage starts after up_for)");
  }
  return spec;
}

}  // namespace zg::servo
