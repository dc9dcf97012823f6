// SPDX-License-Identifier: Apache-2.0
// GpsdSource: a GNSS receiver through gpsd (TCP, JSON protocol).
//
// Connects (non-blocking) to gpsd, sends
//   ?WATCH={"enable":true,"json":true,"pps":true};
// and reads JSON lines (gpsd_messages.h) without ever blocking Poll:
//   TPV  fix mode, time, ept, status  -> fix quality and health
//   SKY  satellites in view / used per constellation (GPS, BeiDou, Galileo,
//        GLONASS, ...)                 -> GnssStatus, for metrics and alarms
//   PPS  gpsd's view of a PPS edge: UTC second + CLOCK_REALTIME stamp
//                                      -> precise samples (~1 us)
//   TOFF the serial fix time + CLOCK_REALTIME at receipt
//                                      -> coarse samples (tens of ms; only
//                                         when no PPS is arriving) and the
//                                         coarse second for a PpsSource
//   VERSION/DEVICE(S)/ERROR            -> status for operators
// gpsd's CLOCK_REALTIME stamps are mapped to raw ticks through SystemTimeMap
// anchors taken every Poll.
//
// Health: down while gpsd is unreachable (reconnects with exponential
// backoff), while the receiver has no fix (TPV mode < 2) or when no sample
// arrives within the timeout; degraded on a 2D fix.
//
//   GpsdSourceOptions opt;
//   opt.tai_minus_utc = [&](core::UtcNs t) { return leaps.TaiMinusUtc(t); };
//   ZG_ASSIGN_OR_RETURN(auto gps, GpsdSource::Create(tsc.get(), opt));
//   gps->Poll(&samples);                 // every 100-250 ms
//   const GnssStatus& g = gps->gnss();   // g.satellites[kBeidou].used ...
//
// Control thread only.
#ifndef ZG_SERVO_GPSD_SOURCE_H_
#define ZG_SERVO_GPSD_SOURCE_H_

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/gpsd_messages.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_health.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

struct GpsdSourceOptions {
  std::string host = "127.0.0.1";  // resolved once, at Create
  uint16_t port = 2947;
  std::string device;  // watch only this receiver (gpsd device path); empty:
                       // all
  TaiMinusUtcFn tai_minus_utc;  // required: gpsd reports UTC
  // Floor of a PPS sample's error (gpsd's "precision" may raise it).
  int64_t pps_error_ns = 1'000;
  // TOFF (serial time) samples: only while no PPS message arrived within
  // pps_preferred_window_ns. Serial latency is corrected by toff_delay_ns
  // (receipt is this long after the fix time) and bounded by toff_error_ns.
  bool use_toff = true;
  int64_t toff_delay_ns = 0;
  int64_t toff_error_ns = 500'000'000;
  int64_t pps_preferred_window_ns = 3'000'000'000;
  int64_t timeout_ns = 5'000'000'000;
  int64_t reconnect_min_ns = 500'000'000;
  int64_t reconnect_max_ns = 30'000'000'000;
  size_t max_line_bytes = 16 * 1024;
  size_t max_read_bytes_per_poll = 256 * 1024;
  SourceInfo info = DefaultInfo();  // empty name: "gpsd:<host>:<port>"

  static SourceInfo DefaultInfo();
};

// Fix quality and constellation counts, for metrics and alarms.
struct GnssStatus {
  bool connected = false;
  int fix_mode = 0;  // TPV mode: 0 unknown, 1 no fix, 2 2D, 3 3D
  std::optional<int> tpv_status;
  std::optional<double> ept_s;
  std::optional<core::UtcNs> last_fix_time;  // TPV time
  std::optional<int> leap_seconds;           // from TPV, when reported
  ConstellationCounts satellites{};          // index: GnssSystem
  int satellites_seen = 0;
  int satellites_used = 0;
  int satellites_strong = 0;  // at or above kGnssStrongDbHz
  // The last SKY report's satellites (at most gpsd_messages' limit), for
  // the status page's per-satellite table and sky plot.
  std::vector<GpsdSatellite> sky;
  // The last TPV position (with a 2D/3D fix).
  std::optional<double> lat_deg;
  std::optional<double> lon_deg;
  std::optional<double> alt_m;
  // SyncServer's "signal low": fewer than 4 satellites at or above
  // kGnssStrongDbHz.
  bool signal_low() const { return satellites_strong < 4; }
  std::string gpsd_release;
  std::string device_path;
  std::string driver;
  std::string last_gpsd_error;
  uint64_t tpv_messages = 0;
  uint64_t sky_messages = 0;
  uint64_t pps_messages = 0;
  uint64_t toff_messages = 0;
  uint64_t parse_errors = 0;
  uint64_t stale_stamps = 0;  // PPS/TOFF clock stamps > 10 s from now
  uint64_t oversized_lines = 0;
  uint64_t connects = 0;
  uint64_t disconnects = 0;

  const SatelliteCounts& of(GnssSystem s) const {
    return satellites[static_cast<size_t>(s)];
  }
};

class GpsdSource final : public ReferenceSource {
 public:
  static absl::StatusOr<std::unique_ptr<GpsdSource>> Create(
      RawClock* raw, GpsdSourceOptions options,
      SystemClockOps* ops = &RealSystemClockOps());
  ~GpsdSource() override;
  GpsdSource(const GpsdSource&) = delete;
  GpsdSource& operator=(const GpsdSource&) = delete;

  const SourceInfo& info() const override { return options_.info; }
  // Drives the connection, reads what gpsd sent, appends samples. Returns
  // Unavailable while gpsd is unreachable.
  absl::Status Poll(std::vector<ReferenceSample>* out) override;
  SourceHealth health() const override { return health_.health(); }

  const absl::Status& problem() const override { return health_.problem(); }
  const GnssStatus& gnss() const { return gnss_; }

  // UTC at CLOCK_REALTIME `system_realtime` from the last TOFF (the coarse
  // second for a PpsSource). Fails without a fix or a recent TOFF.
  absl::StatusOr<core::UtcNs> CoarseUtcAt(core::UtcNs system_realtime) const;

  // Processes one gpsd line as Poll would (for tests without a socket).
  void HandleLine(std::string_view line, int64_t mono_ns,
                  std::vector<ReferenceSample>* out);
  // Takes a TSC anchor now (Poll does this itself).
  void AnchorNow() { map_.Anchor(); }

 private:
  enum class Conn { kIdle, kConnecting, kConnected };

  GpsdSource(RawClock* raw, GpsdSourceOptions options, SystemClockOps* ops,
             const sockaddr_storage& addr, socklen_t addr_len);
  absl::Status DriveConnection(int64_t mono);
  void StartConnect(int64_t mono);
  void Disconnect(int64_t mono, std::string reason);
  absl::Status FlushOutput(int64_t mono);
  void ReadAvailable(int64_t mono, std::vector<std::string>* lines);
  void SplitLines(const char* data, size_t n, std::vector<std::string>* lines);
  std::string Unreachable() const;

  void OnTpv(const GpsdTpv& tpv, int64_t mono);
  void OnSky(const GpsdSky& sky);
  void OnTimeOffset(const GpsdTimeOffset& t, int64_t mono,
                    std::vector<ReferenceSample>* out);
  bool HasFix(int64_t mono) const;
  absl::Status FixQuality() const;
  void Emit(core::UtcNs real, int64_t clock_realtime_ns, int64_t error_ns,
            int64_t mono, std::vector<ReferenceSample>* out);
  bool ForOurDevice(const std::string& device) const;
  void CheckTimeout(int64_t mono);

  GpsdSourceOptions options_;
  SystemClockOps* ops_;
  sockaddr_storage addr_;
  socklen_t addr_len_;
  std::string endpoint_;  // "host:port" for messages
  SystemTimeMap map_;
  HealthTracker health_;
  GnssStatus gnss_;

  // Connection state (control thread).
  int fd_ = -1;
  Conn conn_ = Conn::kIdle;
  int64_t next_attempt_mono_ = 0;
  int64_t backoff_ns_;
  std::string last_disconnect_reason_;
  std::string out_buf_;
  std::string partial_;
  bool skipping_oversized_ = false;

  // Latest fix and time messages.
  std::optional<int64_t> last_tpv_mono_;
  std::optional<int64_t> last_pps_mono_;
  std::optional<int64_t> last_toff_mono_;
  std::optional<GpsdTimeOffset> last_toff_;
  int64_t created_mono_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_GPSD_SOURCE_H_
