// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/gpsd_messages.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/bounded_json.h"
#include "core/base/status_macros.h"

namespace zg::servo {
namespace {

// gpsd lines are at most a few KiB (GPS_JSON_RESPONSE_MAX is 4096 in 3.22);
// allow generous headroom but stay bounded.
constexpr core::JsonLimits kGpsdJsonLimits = {
    .max_input_bytes = 16 * 1024, .max_depth = 6, .max_values = 4096};

constexpr size_t kMaxSatellites = 256;
constexpr size_t kMaxDevices = 16;
constexpr size_t kMaxStringBytes = 256;

absl::Status Bad(std::string_view cls, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("gpsd ", absl::string_view(cls.data(), cls.size()), ": ",
                   absl::string_view(what.data(), what.size())));
}

using Json = nlohmann::json;

// Optional bounded string member.
absl::StatusOr<std::string> StringField(const Json& v, const char* key,
                                        std::string_view cls) {
  const Json* f = core::JsonMember(v, key);
  if (f == nullptr || f->is_null()) return std::string();
  if (!f->is_string()) return Bad(cls, absl::StrCat(key, " is not a string"));
  const std::string& s = f->get_ref<const std::string&>();
  if (s.size() > kMaxStringBytes) {
    return Bad(cls, absl::StrCat(key, " is too long"));
  }
  return s;
}

// Optional integer member within [lo, hi]; also accepts an integral double.
absl::StatusOr<std::optional<int64_t>> IntField(const Json& v, const char* key,
                                                int64_t lo, int64_t hi,
                                                std::string_view cls) {
  const Json* f = core::JsonMember(v, key);
  if (f == nullptr || f->is_null()) return std::optional<int64_t>();
  std::optional<int64_t> i;
  if (f->is_number_integer() && !f->is_number_unsigned()) {
    i = f->get<int64_t>();
  } else if (f->is_number_unsigned()) {
    const uint64_t u = f->get<uint64_t>();
    if (u <= static_cast<uint64_t>(INT64_MAX)) i = static_cast<int64_t>(u);
  } else if (f->is_number_float()) {
    const double d = f->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && d >= -9e15 && d <= 9e15) {
      i = static_cast<int64_t>(d);
    }
  }
  if (!i || *i < lo || *i > hi) {
    return Bad(cls,
               absl::StrCat(key, " is not an integer in [", lo, ", ", hi, "]"));
  }
  return i;
}

absl::StatusOr<std::optional<double>> NumberField(const Json& v,
                                                  const char* key, double lo,
                                                  double hi,
                                                  std::string_view cls) {
  const Json* f = core::JsonMember(v, key);
  if (f == nullptr || f->is_null()) return std::optional<double>();
  const double d = f->is_number() ? f->get<double>() : 0.0;
  if (!f->is_number() || !(d >= lo) || !(d <= hi)) {
    return Bad(cls,
               absl::StrCat(key, " is not a number in [", lo, ", ", hi, "]"));
  }
  return d;
}

std::optional<int> ToInt(std::optional<int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

absl::StatusOr<GpsdMessage> ParseTpv(const Json& v) {
  GpsdTpv t;
  ZG_ASSIGN_OR_RETURN(t.device, StringField(v, "device", "TPV"));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> mode,
                      IntField(v, "mode", 0, 3, "TPV"));
  t.mode = static_cast<int>(mode.value_or(0));
  ZG_ASSIGN_OR_RETURN(std::string time, StringField(v, "time", "TPV"));
  if (!time.empty()) {
    t.time = ParseIso8601Utc(time);
    if (!t.time) return Bad("TPV", "time is not an ISO 8601 UTC time");
  }
  ZG_ASSIGN_OR_RETURN(t.ept_s, NumberField(v, "ept", 0, 1e6, "TPV"));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> status,
                      IntField(v, "status", 0, 255, "TPV"));
  t.status = ToInt(status);
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> leap,
                      IntField(v, "leapseconds", -100, 1000, "TPV"));
  t.leapseconds = ToInt(leap);
  ZG_ASSIGN_OR_RETURN(t.lat_deg, NumberField(v, "lat", -90, 90, "TPV"));
  ZG_ASSIGN_OR_RETURN(t.lon_deg, NumberField(v, "lon", -180, 180, "TPV"));
  // gpsd 3.2x: altHAE (ellipsoid); older releases: alt.
  ZG_ASSIGN_OR_RETURN(t.alt_m, NumberField(v, "altHAE", -1e5, 1e8, "TPV"));
  if (!t.alt_m) {
    ZG_ASSIGN_OR_RETURN(t.alt_m, NumberField(v, "alt", -1e5, 1e8, "TPV"));
  }
  return t;
}

absl::StatusOr<GpsdSatellite> ParseSatellite(const Json& v) {
  if (!v.is_object()) return Bad("SKY", "satellite is not an object");
  GpsdSatellite s;
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> prn,
                      IntField(v, "PRN", 0, 1000, "SKY"));
  s.prn = static_cast<int>(prn.value_or(0));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> gnssid,
                      IntField(v, "gnssid", 0, 255, "SKY"));
  s.gnssid = ToInt(gnssid);
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> svid,
                      IntField(v, "svid", 0, 1000, "SKY"));
  s.svid = ToInt(svid);
  const Json* used = core::JsonMember(v, "used");
  if (used != nullptr && !used->is_boolean()) {
    return Bad("SKY", "used is not a boolean");
  }
  s.used = used != nullptr && used->get<bool>();
  ZG_ASSIGN_OR_RETURN(s.ss_dbhz, NumberField(v, "ss", -1000, 1000, "SKY"));
  ZG_ASSIGN_OR_RETURN(s.azimuth_deg, NumberField(v, "az", -360, 360, "SKY"));
  ZG_ASSIGN_OR_RETURN(s.elevation_deg, NumberField(v, "el", -90, 90, "SKY"));
  return s;
}

absl::StatusOr<GpsdMessage> ParseSky(const Json& v) {
  GpsdSky sky;
  ZG_ASSIGN_OR_RETURN(sky.device, StringField(v, "device", "SKY"));
  const Json* sats = core::JsonMember(v, "satellites");
  if (sats == nullptr || sats->is_null()) return sky;
  if (!sats->is_array()) return Bad("SKY", "satellites is not an array");
  if (sats->size() > kMaxSatellites) return Bad("SKY", "too many satellites");
  for (const Json& e : *sats) {
    ZG_ASSIGN_OR_RETURN(GpsdSatellite s, ParseSatellite(e));
    sky.satellites.push_back(s);
  }
  return sky;
}

absl::StatusOr<GpsdMessage> ParseTimeOffset(const Json& v,
                                            GpsdTimeOffset::Kind kind,
                                            std::string_view cls) {
  GpsdTimeOffset t;
  t.kind = kind;
  ZG_ASSIGN_OR_RETURN(t.device, StringField(v, "device", cls));
  // Seconds within int64 nanoseconds (to 2255); nanoseconds below 1 s.
  constexpr int64_t kMaxSec = 9'000'000'000;
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> real_sec,
                      IntField(v, "real_sec", 0, kMaxSec, cls));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> real_nsec,
                      IntField(v, "real_nsec", 0, 999'999'999, cls));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> clock_sec,
                      IntField(v, "clock_sec", 0, kMaxSec, cls));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> clock_nsec,
                      IntField(v, "clock_nsec", 0, 999'999'999, cls));
  if (!real_sec || !real_nsec || !clock_sec || !clock_nsec) {
    return Bad(cls, "missing real_sec/real_nsec/clock_sec/clock_nsec");
  }
  t.real = core::UtcNs{*real_sec * core::kNanosPerSecond + *real_nsec};
  t.clock_realtime_ns = *clock_sec * core::kNanosPerSecond + *clock_nsec;
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> precision,
                      IntField(v, "precision", -64, 64, cls));
  t.precision = ToInt(precision);
  return t;
}

absl::StatusOr<GpsdDeviceInfo> ParseDeviceInfo(const Json& v) {
  if (!v.is_object()) return Bad("DEVICE", "device is not an object");
  GpsdDeviceInfo d;
  ZG_ASSIGN_OR_RETURN(d.path, StringField(v, "path", "DEVICE"));
  ZG_ASSIGN_OR_RETURN(d.driver, StringField(v, "driver", "DEVICE"));
  const Json* a = core::JsonMember(v, "activated");
  d.active = a != nullptr &&
             ((a->is_string() && !a->get_ref<const std::string&>().empty()) ||
              (a->is_number() && a->get<double>() != 0));
  return d;
}

absl::StatusOr<GpsdMessage> ParseDevices(const Json& v) {
  GpsdDevices out;
  const Json* list = core::JsonMember(v, "devices");
  if (list == nullptr || !list->is_array()) {
    return Bad("DEVICES", "devices is not an array");
  }
  if (list->size() > kMaxDevices) return Bad("DEVICES", "too many devices");
  for (const Json& e : *list) {
    ZG_ASSIGN_OR_RETURN(GpsdDeviceInfo d, ParseDeviceInfo(e));
    out.devices.push_back(std::move(d));
  }
  return out;
}

absl::StatusOr<GpsdMessage> ParseVersion(const Json& v) {
  GpsdVersion out;
  ZG_ASSIGN_OR_RETURN(out.release, StringField(v, "release", "VERSION"));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> major,
                      IntField(v, "proto_major", 0, 1000, "VERSION"));
  ZG_ASSIGN_OR_RETURN(std::optional<int64_t> minor,
                      IntField(v, "proto_minor", 0, 1000, "VERSION"));
  out.proto_major = static_cast<int>(major.value_or(0));
  out.proto_minor = static_cast<int>(minor.value_or(0));
  return out;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool IsLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int64_t DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` decimal digits at s[*pos].
bool Digits(std::string_view s, size_t* pos, size_t n, int64_t* out) {
  if (s.size() - *pos < n) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

}  // namespace

const char* GnssSystemName(GnssSystem s) {
  switch (s) {
    case GnssSystem::kGps:
      return "gps";
    case GnssSystem::kSbas:
      return "sbas";
    case GnssSystem::kGalileo:
      return "galileo";
    case GnssSystem::kBeidou:
      return "beidou";
    case GnssSystem::kImes:
      return "imes";
    case GnssSystem::kQzss:
      return "qzss";
    case GnssSystem::kGlonass:
      return "glonass";
    case GnssSystem::kNavic:
      return "navic";
    case GnssSystem::kUnknown:
      break;
  }
  return "unknown";
}

GnssSystem SystemOf(const GpsdSatellite& sat) {
  if (sat.gnssid) {
    return *sat.gnssid >= 0 && *sat.gnssid <= 7
               ? static_cast<GnssSystem>(*sat.gnssid)
               : GnssSystem::kUnknown;
  }
  const int p = sat.prn;
  if (p >= 1 && p <= 32) return GnssSystem::kGps;
  if ((p >= 33 && p <= 64) || (p >= 120 && p <= 158)) return GnssSystem::kSbas;
  if (p >= 65 && p <= 96) return GnssSystem::kGlonass;
  if (p >= 193 && p <= 202) return GnssSystem::kQzss;
  if (p >= 301 && p <= 336) return GnssSystem::kGalileo;
  if (p >= 401 && p <= 463) return GnssSystem::kBeidou;
  return GnssSystem::kUnknown;
}

ConstellationCounts CountSatellites(const std::vector<GpsdSatellite>& sats) {
  ConstellationCounts c{};
  for (const GpsdSatellite& s : sats) {
    SatelliteCounts& k = c[static_cast<size_t>(SystemOf(s))];
    ++k.seen;
    if (s.used) ++k.used;
    if (s.ss_dbhz.has_value() && *s.ss_dbhz >= kGnssStrongDbHz) ++k.strong;
  }
  return c;
}

std::optional<core::UtcNs> ParseIso8601Utc(std::string_view s) {
  size_t p = 0;
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!Digits(s, &p, 4, &y) || !Expect(s, &p, '-') || !Digits(s, &p, 2, &mo) ||
      !Expect(s, &p, '-') || !Digits(s, &p, 2, &d) || !Expect(s, &p, 'T') ||
      !Digits(s, &p, 2, &h) || !Expect(s, &p, ':') || !Digits(s, &p, 2, &mi) ||
      !Expect(s, &p, ':') || !Digits(s, &p, 2, &sec)) {
    return std::nullopt;
  }
  // Years 1900..2261: int64 nanoseconds since 1970 end in April 2262.
  if (mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo) || h > 23 ||
      mi > 59 || sec > 60 || y < 1900 || y > 2261) {
    return std::nullopt;
  }
  int64_t frac_ns = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    int digits = 0;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
      if (++digits > 9) return std::nullopt;
      frac_ns = frac_ns * 10 + (s[p] - '0');
      ++p;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 9; ++i) frac_ns *= 10;
  }
  if (!Expect(s, &p, 'Z') || p != s.size()) return std::nullopt;
  const int64_t seconds =
      DaysFromCivil(y, mo, d) * core::kSecondsPerDay + h * 3600 + mi * 60 + sec;
  return core::UtcNs{seconds * core::kNanosPerSecond + frac_ns};
}

absl::StatusOr<GpsdMessage> ParseGpsdMessage(std::string_view line) {
  absl::StatusOr<Json> parsed = core::ParseBoundedJson(
      absl::string_view(line.data(), line.size()), kGpsdJsonLimits);
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(),
                        absl::StrCat("gpsd: ", parsed.status().message()));
  }
  const Json& v = *parsed;
  if (!v.is_object()) {
    return absl::InvalidArgumentError("gpsd: message is not a JSON object");
  }
  const std::string* cls = core::JsonString(v, "class");
  if (cls == nullptr) {
    return absl::InvalidArgumentError("gpsd: message has no class");
  }
  if (*cls == "TPV") return ParseTpv(v);
  if (*cls == "SKY") return ParseSky(v);
  if (*cls == "PPS") {
    return ParseTimeOffset(v, GpsdTimeOffset::Kind::kPps, "PPS");
  }
  if (*cls == "TOFF") {
    return ParseTimeOffset(v, GpsdTimeOffset::Kind::kToff, "TOFF");
  }
  if (*cls == "DEVICE") {
    ZG_ASSIGN_OR_RETURN(GpsdDeviceInfo d, ParseDeviceInfo(v));
    return d;
  }
  if (*cls == "DEVICES") return ParseDevices(v);
  if (*cls == "VERSION") return ParseVersion(v);
  if (*cls == "ERROR") {
    GpsdError e;
    ZG_ASSIGN_OR_RETURN(e.message, StringField(v, "message", "ERROR"));
    return e;
  }
  if (cls->size() > kMaxStringBytes) {
    return absl::InvalidArgumentError("gpsd: class name too long");
  }
  return GpsdOther{*cls};
}

}  // namespace zg::servo
