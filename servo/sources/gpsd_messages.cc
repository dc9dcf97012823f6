#include "servo/sources/gpsd_messages.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "servo/json.h"

namespace zg::servo {
namespace {

// gpsd lines are at most a few KiB (GPS_JSON_RESPONSE_MAX is 4096 in 3.22);
// allow generous headroom but stay bounded.
json::Limits GpsdJsonLimits() {
  json::Limits l;
  l.max_input_bytes = 16 * 1024;
  l.max_depth = 6;
  l.max_values = 4096;
  return l;
}

constexpr size_t kMaxSatellites = 256;
constexpr size_t kMaxDevices = 16;
constexpr size_t kMaxStringBytes = 256;

absl::Status Bad(std::string_view cls, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("gpsd ", absl::string_view(cls.data(), cls.size()), ": ",
                   absl::string_view(what.data(), what.size())));
}

// Optional bounded string member.
absl::StatusOr<std::string> StringField(const json::Value& v,
                                        std::string_view key,
                                        std::string_view cls) {
  const json::Value* f = v.Find(key);
  if (f == nullptr || f->is_null()) return std::string();
  if (f->type() != json::Type::kString) {
    return Bad(cls, absl::StrCat(absl::string_view(key.data(), key.size()),
                                 " is not a string"));
  }
  if (f->string().size() > kMaxStringBytes) {
    return Bad(cls, absl::StrCat(absl::string_view(key.data(), key.size()),
                                 " is too long"));
  }
  return f->string();
}

// Optional integer member within [lo, hi]; also accepts an integral double.
absl::StatusOr<std::optional<int64_t>> IntField(const json::Value& v,
                                                std::string_view key,
                                                int64_t lo, int64_t hi,
                                                std::string_view cls) {
  const json::Value* f = v.Find(key);
  if (f == nullptr || f->is_null()) return std::optional<int64_t>();
  std::optional<int64_t> i = f->integer();
  if (!i && f->type() == json::Type::kNumber) {
    const double d = f->number();
    if (std::isfinite(d) && d == std::floor(d) && d >= -9e15 && d <= 9e15) {
      i = static_cast<int64_t>(d);
    }
  }
  if (!i || *i < lo || *i > hi) {
    return Bad(cls, absl::StrCat(absl::string_view(key.data(), key.size()),
                                 " is not an integer in [", lo, ", ", hi, "]"));
  }
  return i;
}

absl::StatusOr<std::optional<double>> NumberField(const json::Value& v,
                                                  std::string_view key,
                                                  double lo, double hi,
                                                  std::string_view cls) {
  const json::Value* f = v.Find(key);
  if (f == nullptr || f->is_null()) return std::optional<double>();
  if (f->type() != json::Type::kNumber || !(f->number() >= lo) ||
      !(f->number() <= hi)) {
    return Bad(cls, absl::StrCat(absl::string_view(key.data(), key.size()),
                                 " is not a number in [", lo, ", ", hi, "]"));
  }
  return f->number();
}

std::optional<int> ToInt(std::optional<int64_t> v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

absl::StatusOr<GpsdMessage> ParseTpv(const json::Value& v) {
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
  return t;
}

absl::StatusOr<GpsdSatellite> ParseSatellite(const json::Value& v) {
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
  const json::Value* used = v.Find("used");
  if (used != nullptr && used->type() != json::Type::kBool) {
    return Bad("SKY", "used is not a boolean");
  }
  s.used = used != nullptr && used->bool_value();
  ZG_ASSIGN_OR_RETURN(s.ss_dbhz, NumberField(v, "ss", -1000, 1000, "SKY"));
  return s;
}

absl::StatusOr<GpsdMessage> ParseSky(const json::Value& v) {
  GpsdSky sky;
  ZG_ASSIGN_OR_RETURN(sky.device, StringField(v, "device", "SKY"));
  const json::Value* sats = v.Find("satellites");
  if (sats == nullptr || sats->is_null()) return sky;
  if (!sats->is_array()) return Bad("SKY", "satellites is not an array");
  if (sats->elements().size() > kMaxSatellites) {
    return Bad("SKY", "too many satellites");
  }
  for (const json::Value& e : sats->elements()) {
    ZG_ASSIGN_OR_RETURN(GpsdSatellite s, ParseSatellite(e));
    sky.satellites.push_back(s);
  }
  return sky;
}

absl::StatusOr<GpsdMessage> ParseTimeOffset(const json::Value& v,
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

absl::StatusOr<GpsdDeviceInfo> ParseDeviceInfo(const json::Value& v) {
  if (!v.is_object()) return Bad("DEVICE", "device is not an object");
  GpsdDeviceInfo d;
  ZG_ASSIGN_OR_RETURN(d.path, StringField(v, "path", "DEVICE"));
  ZG_ASSIGN_OR_RETURN(d.driver, StringField(v, "driver", "DEVICE"));
  const json::Value* a = v.Find("activated");
  d.active = a != nullptr &&
             ((a->type() == json::Type::kString && !a->string().empty()) ||
              (a->type() == json::Type::kNumber && a->number() != 0));
  return d;
}

absl::StatusOr<GpsdMessage> ParseDevices(const json::Value& v) {
  GpsdDevices out;
  const json::Value* list = v.Find("devices");
  if (list == nullptr || !list->is_array()) {
    return Bad("DEVICES", "devices is not an array");
  }
  if (list->elements().size() > kMaxDevices) {
    return Bad("DEVICES", "too many devices");
  }
  for (const json::Value& e : list->elements()) {
    ZG_ASSIGN_OR_RETURN(GpsdDeviceInfo d, ParseDeviceInfo(e));
    out.devices.push_back(std::move(d));
  }
  return out;
}

absl::StatusOr<GpsdMessage> ParseVersion(const json::Value& v) {
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
  ZG_ASSIGN_OR_RETURN(json::Value v, json::Parse(line, GpsdJsonLimits()));
  if (!v.is_object()) {
    return absl::InvalidArgumentError("gpsd: message is not a JSON object");
  }
  const std::optional<std::string_view> cls = v.GetString("class");
  if (!cls) return absl::InvalidArgumentError("gpsd: message has no class");
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
  return GpsdOther{std::string(*cls)};
}

}  // namespace zg::servo
