// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/gpsd_source.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
// gpsd's CLOCK_REALTIME stamps older (or newer) than this are not usable.
constexpr int64_t kMaxStampAgeNs = 10 * kS;
// A GNSS time this far from the system clock is not a plausible coarse time
// (and would overflow arithmetic on it): about 30 years.
constexpr int64_t kMaxCoarseOffsetNs = 1'000'000'000 * kS;

SystemTimeMapOptions MapOptions() {
  SystemTimeMapOptions o;
  o.clock = CLOCK_REALTIME;
  return o;
}

std::string WatchCommand(const std::string& device) {
  nlohmann::ordered_json watch = {
      {"enable", true}, {"json", true}, {"pps", true}};
  if (!device.empty()) watch["device"] = device;
  return "?WATCH=" +
         watch.dump(-1, ' ', /*ensure_ascii=*/false,
                    nlohmann::ordered_json::error_handler_t::replace) +
         ";\n";
}

}  // namespace

SourceInfo GpsdSourceOptions::DefaultInfo() {
  SourceInfo info;
  info.kind = SourceKind::kGpsd;
  info.ntp_refid = NtpRefId("GPS");
  info.stratum = 0;
  info.ptp_time_source = core::PtpTimeSource::kGnss;
  info.time_traceable = true;
  info.frequency_traceable = true;
  info.priority = 10;
  return info;
}

absl::StatusOr<std::unique_ptr<GpsdSource>> GpsdSource::Create(
    RawClock* raw, GpsdSourceOptions options, SystemClockOps* ops) {
  if (!options.tai_minus_utc) {
    return absl::InvalidArgumentError(
        "gpsd source needs TAI-UTC (the leap-seconds file): gpsd reports UTC");
  }
  if (options.max_line_bytes < 64 || options.reconnect_min_ns <= 0 ||
      options.reconnect_max_ns < options.reconnect_min_ns) {
    return absl::InvalidArgumentError(
        "gpsd source: max_line_bytes >= 64 and 0 < reconnect_min_ns <= "
        "reconnect_max_ns are required");
  }
  struct addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  struct addrinfo* res = nullptr;
  const std::string port = std::to_string(options.port);
  const int rc = getaddrinfo(options.host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gpsd source: cannot resolve gpsd host '", options.host,
        "': ", gai_strerror(rc), ". Use an IP address such as 127.0.0.1"));
  }
  sockaddr_storage addr = {};
  const socklen_t len = res->ai_addrlen;
  std::memcpy(&addr, res->ai_addr, len);
  freeaddrinfo(res);
  if (options.info.name.empty()) {
    options.info.name = absl::StrCat("gpsd:", options.host, ":", options.port);
  }
  return std::unique_ptr<GpsdSource>(
      new GpsdSource(raw, std::move(options), ops, addr, len));
}

GpsdSource::GpsdSource(RawClock* raw, GpsdSourceOptions options,
                       SystemClockOps* ops, const sockaddr_storage& addr,
                       socklen_t addr_len)
    : options_(std::move(options)),
      ops_(ops),
      addr_(addr),
      addr_len_(addr_len),
      endpoint_(absl::StrCat(options_.host, ":", options_.port)),
      map_(raw, ops, MapOptions()),
      health_(options_.timeout_ns),
      backoff_ns_(options_.reconnect_min_ns),
      created_mono_(MonotonicNs(*ops)) {}

GpsdSource::~GpsdSource() {
  if (fd_ >= 0) close(fd_);
}

std::string GpsdSource::Unreachable() const {
  return absl::StrCat(
      "cannot reach gpsd at ", endpoint_, " (", last_disconnect_reason_,
      "). Is gpsd running (`systemctl status gpsd`) and listening on TCP "
      "(`gpspipe -w ",
      endpoint_, "` shows JSON)?");
}

// ---- Connection -------------------------------------------------------------

void GpsdSource::StartConnect(int64_t mono) {
  fd_ = socket(addr_.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    Disconnect(mono, absl::StrCat("socket: ", strerror(errno)));
    return;
  }
  if (connect(fd_, reinterpret_cast<const sockaddr*>(&addr_), addr_len_) == 0) {
    conn_ = Conn::kConnecting;  // completes on the POLLOUT check below
    return;
  }
  if (errno == EINPROGRESS) {
    conn_ = Conn::kConnecting;
    return;
  }
  Disconnect(mono, strerror(errno));
}

void GpsdSource::Disconnect(int64_t mono, std::string reason) {
  if (fd_ >= 0) close(fd_);
  if (conn_ == Conn::kConnected) ++gnss_.disconnects;
  fd_ = -1;
  conn_ = Conn::kIdle;
  gnss_.connected = false;
  out_buf_.clear();
  partial_.clear();
  skipping_oversized_ = false;
  last_disconnect_reason_ = std::move(reason);
  next_attempt_mono_ = mono + backoff_ns_;
  backoff_ns_ = std::min(backoff_ns_ * 2, options_.reconnect_max_ns);
}

absl::Status GpsdSource::FlushOutput(int64_t mono) {
  while (!out_buf_.empty()) {
    const ssize_t n = send(fd_, out_buf_.data(), out_buf_.size(),
                           MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      Disconnect(mono, absl::StrCat("send: ", strerror(errno)));
      return absl::UnavailableError(Unreachable());
    }
    out_buf_.erase(0, static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status GpsdSource::DriveConnection(int64_t mono) {
  if (conn_ == Conn::kIdle && mono >= next_attempt_mono_) StartConnect(mono);
  if (conn_ == Conn::kConnecting) {
    struct pollfd p = {fd_, POLLOUT, 0};
    if (poll(&p, 1, 0) == 1) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        Disconnect(mono, strerror(err));
      } else {
        conn_ = Conn::kConnected;
        gnss_.connected = true;
        ++gnss_.connects;
        out_buf_ = WatchCommand(options_.device);
      }
    }
  }
  if (conn_ == Conn::kConnected) return FlushOutput(mono);
  if (conn_ == Conn::kConnecting) {
    return absl::UnavailableError(
        absl::StrCat("connecting to gpsd at ", endpoint_));
  }
  return absl::UnavailableError(Unreachable());
}

void GpsdSource::ReadAvailable(int64_t mono, std::vector<std::string>* lines) {
  char buf[16 * 1024];
  size_t total = 0;
  while (total < options_.max_read_bytes_per_poll) {
    const ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      total += static_cast<size_t>(n);
      SplitLines(buf, static_cast<size_t>(n), lines);
      continue;
    }
    if (n == 0) {
      Disconnect(mono, "gpsd closed the connection");
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      Disconnect(mono, absl::StrCat("recv: ", strerror(errno)));
    }
    return;
  }
}

void GpsdSource::SplitLines(const char* data, size_t n,
                            std::vector<std::string>* lines) {
  size_t start = 0;
  while (start < n) {
    const char* nl =
        static_cast<const char*>(std::memchr(data + start, '\n', n - start));
    const size_t end = nl ? static_cast<size_t>(nl - data) : n;
    if (!skipping_oversized_) partial_.append(data + start, end - start);
    if (partial_.size() > options_.max_line_bytes) {
      partial_.clear();
      if (!skipping_oversized_) ++gnss_.oversized_lines;
      skipping_oversized_ = true;
    }
    if (nl == nullptr) return;
    if (!skipping_oversized_) {
      if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
      if (!partial_.empty()) lines->push_back(std::move(partial_));
    }
    partial_.clear();
    skipping_oversized_ = false;
    start = end + 1;
  }
}

// ---- Messages ---------------------------------------------------------------

bool GpsdSource::ForOurDevice(const std::string& device) const {
  return options_.device.empty() || device.empty() || device == options_.device;
}

void GpsdSource::HandleLine(std::string_view line, int64_t mono,
                            std::vector<ReferenceSample>* out) {
  absl::StatusOr<GpsdMessage> m = ParseGpsdMessage(line);
  if (!m.ok()) {
    ++gnss_.parse_errors;
    return;
  }
  backoff_ns_ = options_.reconnect_min_ns;  // a healthy conversation
  if (const auto* tpv = std::get_if<GpsdTpv>(&*m)) {
    if (ForOurDevice(tpv->device)) OnTpv(*tpv, mono);
  } else if (const auto* sky = std::get_if<GpsdSky>(&*m)) {
    if (ForOurDevice(sky->device)) OnSky(*sky);
  } else if (const auto* t = std::get_if<GpsdTimeOffset>(&*m)) {
    if (ForOurDevice(t->device)) OnTimeOffset(*t, mono, out);
  } else if (const auto* v = std::get_if<GpsdVersion>(&*m)) {
    gnss_.gpsd_release = v->release;
  } else if (const auto* d = std::get_if<GpsdDeviceInfo>(&*m)) {
    if (d->active && ForOurDevice(d->path)) {
      gnss_.device_path = d->path;
      if (!d->driver.empty()) gnss_.driver = d->driver;
    }
  } else if (const auto* ds = std::get_if<GpsdDevices>(&*m)) {
    for (const GpsdDeviceInfo& d : ds->devices) {
      if (d.active && ForOurDevice(d.path)) gnss_.device_path = d.path;
    }
  } else if (const auto* e = std::get_if<GpsdError>(&*m)) {
    gnss_.last_gpsd_error = e->message;
  }
}

void GpsdSource::OnTpv(const GpsdTpv& tpv, int64_t mono) {
  ++gnss_.tpv_messages;
  last_tpv_mono_ = mono;
  gnss_.fix_mode = tpv.mode;
  gnss_.tpv_status = tpv.status;
  gnss_.ept_s = tpv.ept_s;
  if (tpv.time) gnss_.last_fix_time = tpv.time;
  if (tpv.leapseconds) gnss_.leap_seconds = tpv.leapseconds;
  if (tpv.mode >= 2) {
    gnss_.lat_deg = tpv.lat_deg;
    gnss_.lon_deg = tpv.lon_deg;
    gnss_.alt_m = tpv.mode == 3 ? tpv.alt_m : std::nullopt;
  }
  if (tpv.mode < 2) {
    health_.OnFailure(absl::FailedPreconditionError(absl::StrCat(
        "the GNSS receiver has no fix (gpsd TPV mode ", tpv.mode,
        "): check the antenna, its cable and sky view; `cgps` or `gpsmon` "
        "show the satellites in view")));
  }
}

void GpsdSource::OnSky(const GpsdSky& sky) {
  // gpsd also sends SKY with only DOPs; keep the last satellite list then.
  if (sky.satellites.empty()) return;
  ++gnss_.sky_messages;
  gnss_.satellites = CountSatellites(sky.satellites);
  gnss_.sky = sky.satellites;
  gnss_.satellites_seen = 0;
  gnss_.satellites_used = 0;
  gnss_.satellites_strong = 0;
  for (const SatelliteCounts& c : gnss_.satellites) {
    gnss_.satellites_seen += c.seen;
    gnss_.satellites_used += c.used;
    gnss_.satellites_strong += c.strong;
  }
}

bool GpsdSource::HasFix(int64_t mono) const {
  return last_tpv_mono_ && mono - *last_tpv_mono_ <= options_.timeout_ns &&
         gnss_.fix_mode >= 2;
}

absl::Status GpsdSource::FixQuality() const {
  if (gnss_.fix_mode == 2) {
    return absl::UnavailableError(
        "the GNSS receiver has only a 2D fix (gpsd TPV mode 2): fewer "
        "satellites than a 3D fix needs; check the sky view");
  }
  return absl::OkStatus();
}

void GpsdSource::OnTimeOffset(const GpsdTimeOffset& t, int64_t mono,
                              std::vector<ReferenceSample>* out) {
  if (t.kind == GpsdTimeOffset::Kind::kPps) {
    ++gnss_.pps_messages;
    if (!HasFix(mono)) return;
    last_pps_mono_ = mono;
    int64_t error = options_.pps_error_ns;
    if (t.precision && *t.precision < 0 && *t.precision > -40) {
      error = std::max<int64_t>(
          error, static_cast<int64_t>(std::ldexp(1e9, *t.precision)));
    }
    Emit(t.real, t.clock_realtime_ns, error, mono, out);
    return;
  }
  ++gnss_.toff_messages;
  last_toff_ = t;
  last_toff_mono_ = mono;
  if (!options_.use_toff || !HasFix(mono)) return;
  if (last_pps_mono_ &&
      mono - *last_pps_mono_ <= options_.pps_preferred_window_ns) {
    return;  // PPS samples are arriving: the serial time adds nothing
  }
  Emit(t.real + options_.toff_delay_ns, t.clock_realtime_ns,
       options_.toff_error_ns, mono, out);
}

void GpsdSource::Emit(core::UtcNs real, int64_t clock_realtime_ns,
                      int64_t error_ns, int64_t mono,
                      std::vector<ReferenceSample>* out) {
  int64_t now_realtime = 0;
  if (!ops_->ReadNs(CLOCK_REALTIME, &now_realtime) ||
      std::llabs(now_realtime - clock_realtime_ns) > kMaxStampAgeNs) {
    ++gnss_.stale_stamps;  // not a stamp of this machine's recent past
    return;
  }
  const std::optional<core::TaiNs> tai =
      UtcToTaiUnambiguous(real, options_.tai_minus_utc);
  if (!tai) return;  // within a second of a leap
  const std::optional<SystemTimeMap::Mapping> m =
      map_.TicksAt(clock_realtime_ns);
  if (!m) return;
  ReferenceSample s;
  s.raw_ticks = m->ticks;
  s.reference_tai = *tai;
  s.uncertainty_ns = m->uncertainty_ns + error_ns;
  s.taken_at = *tai;
  out->push_back(s);
  health_.OnSample(mono, FixQuality());
}

absl::StatusOr<core::UtcNs> GpsdSource::CoarseUtcAt(
    core::UtcNs system_realtime) const {
  const int64_t mono = MonotonicNs(*ops_);
  if (!HasFix(mono)) {
    return absl::UnavailableError("gpsd: no GNSS fix");
  }
  if (!last_toff_ || mono - *last_toff_mono_ > options_.timeout_ns) {
    return absl::UnavailableError("gpsd: no recent TOFF message");
  }
  const int64_t offset = last_toff_->real.value + options_.toff_delay_ns -
                         last_toff_->clock_realtime_ns;
  if (std::llabs(offset) > kMaxCoarseOffsetNs) {
    return absl::OutOfRangeError(
        absl::StrCat("gpsd's time is ", offset / kS,
                     " s from the system clock: too far "
                     "to be a coarse reference (check the receiver's date)"));
  }
  return system_realtime + offset;
}

// ---- Poll -------------------------------------------------------------------

void GpsdSource::CheckTimeout(int64_t mono) {
  const int64_t since = last_tpv_mono_.value_or(created_mono_);
  if (mono - since > options_.timeout_ns &&
      health_.health() != SourceHealth::kDown) {
    health_.OnFailure(absl::UnavailableError(absl::StrFormat(
        "gpsd at %s sent no TPV for %.1f s: is the receiver attached to gpsd "
        "(`gpspipe -w %s`)?",
        endpoint_, (mono - since) / 1e9, endpoint_)));
  }
  health_.Refresh(mono);
}

absl::Status GpsdSource::Poll(std::vector<ReferenceSample>* out) {
  const int64_t mono = MonotonicNs(*ops_);
  absl::Status conn = DriveConnection(mono);
  std::vector<std::string> lines;
  if (conn.ok()) ReadAvailable(mono, &lines);
  // Anchor after reading: every stamp just read lies before this anchor.
  map_.Anchor();
  for (const std::string& line : lines) HandleLine(line, mono, out);
  if (conn_ != Conn::kConnected) {
    if (conn.ok()) conn = absl::UnavailableError(Unreachable());
    health_.OnFailure(conn);
    return conn;
  }
  CheckTimeout(mono);
  return absl::OkStatus();
}

}  // namespace zg::servo
