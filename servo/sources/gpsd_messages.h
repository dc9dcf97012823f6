// SPDX-License-Identifier: Apache-2.0
// gpsd's JSON protocol (https://gpsd.io/gpsd_json.html), the messages the
// gpsd source uses: VERSION, DEVICES/DEVICE, TPV, SKY, PPS, TOFF, ERROR.
// Anything else parses to GpsdOther with its class name.
//
// Parsed by nlohmann-json within limits (core/base/bounded_json.h); every
// field is type- and range-checked, so a hostile or broken gpsd (or anything
// else listening on its port) yields a counted parse error, never a crash,
// an exception or a silent wrong value. Fuzzed by
// tests/fuzz/gpsd_json_fuzzer.cc.
//
//   absl::StatusOr<GpsdMessage> m = ParseGpsdMessage(line);
//   if (m.ok()) {
//     if (const auto* tpv = std::get_if<GpsdTpv>(&*m)) use(tpv->mode,
//     tpv->time);
//   }
//
// Control plane only.
#ifndef ZG_SERVO_GPSD_MESSAGES_H_
#define ZG_SERVO_GPSD_MESSAGES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time/time_types.h"

namespace zg::servo {

// gpsd's gnssid numbering (u-blox): the index into ConstellationCounts.
enum class GnssSystem : uint8_t {
  kGps = 0,
  kSbas = 1,
  kGalileo = 2,
  kBeidou = 3,
  kImes = 4,
  kQzss = 5,
  kGlonass = 6,
  kNavic = 7,
  kUnknown = 8,
};
inline constexpr size_t kGnssSystemCount = 9;
// "gps", "sbas", "galileo", "beidou", "imes", "qzss", "glonass", "navic",
// "unknown": stable names for metrics labels.
const char* GnssSystemName(GnssSystem s);

struct GpsdSatellite {
  int prn = 0;                // gpsd's PRN numbering
  std::optional<int> gnssid;  // 0..7, when gpsd reports it
  std::optional<int> svid;
  bool used = false;  // used in the current fix
  std::optional<double> ss_dbhz;
  std::optional<double> azimuth_deg;    // from true north, clockwise
  std::optional<double> elevation_deg;  // above the horizon
};
// The satellite's system: gnssid when present, else gpsd's PRN ranges
// (1-32 GPS, 33-64 and 120-158 SBAS, 65-96 GLONASS, 193-202 QZSS,
// 301-336 Galileo, 401-463 BeiDou).
GnssSystem SystemOf(const GpsdSatellite& sat);

// A satellite "strong" enough for timing: signal at or above this (SyncServer's
// GNSS signal-low threshold).
inline constexpr double kGnssStrongDbHz = 37.0;

struct SatelliteCounts {
  int seen = 0;    // in view (reported in SKY)
  int used = 0;    // used in the fix
  int strong = 0;  // in view with ss >= kGnssStrongDbHz
  friend bool operator==(SatelliteCounts, SatelliteCounts) = default;
};
using ConstellationCounts = std::array<SatelliteCounts, kGnssSystemCount>;
ConstellationCounts CountSatellites(const std::vector<GpsdSatellite>& sats);

struct GpsdTpv {
  std::string device;
  int mode = 0;  // 0 unknown, 1 no fix, 2 2D, 3 3D
  std::optional<core::UtcNs> time;
  std::optional<double> ept_s;  // estimated time error, seconds
  std::optional<int> status;    // 0 unknown, 1 GPS, 2 DGPS, ... (gpsd >= 3.2x)
  std::optional<int> leapseconds;  // GPS-UTC as the receiver reports it
  std::optional<double> lat_deg;   // WGS84, with a 2D/3D fix
  std::optional<double> lon_deg;
  std::optional<double> alt_m;  // height above the ellipsoid (3D fix)
};

struct GpsdSky {
  std::string device;
  std::vector<GpsdSatellite> satellites;
};

// PPS and TOFF carry the same fields: `real` is the UTC instant (the top of
// the second for PPS, the fix time for TOFF) and clock_realtime_ns the
// system CLOCK_REALTIME when gpsd saw it.
struct GpsdTimeOffset {
  enum class Kind : uint8_t { kPps, kToff };
  Kind kind = Kind::kToff;
  std::string device;
  core::UtcNs real;
  int64_t clock_realtime_ns = 0;
  std::optional<int> precision;  // log2 seconds, PPS only
};

struct GpsdDeviceInfo {
  std::string path;
  std::string driver;
  bool active = false;  // "activated" is a time (active) or 0 (closed)
};
struct GpsdDevices {
  std::vector<GpsdDeviceInfo> devices;
};
struct GpsdVersion {
  std::string release;
  int proto_major = 0;
  int proto_minor = 0;
};
struct GpsdError {
  std::string message;
};
struct GpsdOther {
  std::string class_name;
};

using GpsdMessage =
    std::variant<GpsdTpv, GpsdSky, GpsdTimeOffset, GpsdDeviceInfo, GpsdDevices,
                 GpsdVersion, GpsdError, GpsdOther>;

// Parses one line of gpsd output (without the newline).
absl::StatusOr<GpsdMessage> ParseGpsdMessage(std::string_view line);

// "2024-03-10T12:00:01.000Z" (fraction optional, up to 9 digits; second 60
// allowed for a leap second) -> UTC; nullopt if malformed or out of range.
std::optional<core::UtcNs> ParseIso8601Utc(std::string_view s);

}  // namespace zg::servo

#endif  // ZG_SERVO_GPSD_MESSAGES_H_
