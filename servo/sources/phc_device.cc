// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/phc_device.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

int64_t ToNs(const struct ptp_clock_time& t) {
  return t.sec * 1'000'000'000 + t.nsec;
}

// ptp_sys_offset_extended with its first reserved word as the system clock
// id, the layout of kernels that accept one (older kernels require it 0,
// which is CLOCK_REALTIME).
struct SysOffsetExtendedWithClock {
  unsigned int n_samples;
  clockid_t clockid;
  unsigned int rsv[2];
  struct ptp_clock_time ts[PTP_MAX_SAMPLES][3];
};
static_assert(sizeof(SysOffsetExtendedWithClock) ==
              sizeof(struct ptp_sys_offset_extended));
static_assert(CLOCK_REALTIME == 0);

// The "2" ioctls (strict reserved-field checks) exist since Linux 5.8; fall
// back to the originals on ENOTTY.
int Ioctl2(int fd, unsigned long req2, unsigned long req1, void* arg) {
  int r = ioctl(fd, req2, arg);
  if (r < 0 && errno == ENOTTY && req1 != req2) r = ioctl(fd, req1, arg);
  return r;
}

#ifndef PTP_CLOCK_GETCAPS2
#define PTP_CLOCK_GETCAPS2 PTP_CLOCK_GETCAPS
#endif
#ifndef PTP_SYS_OFFSET2
#define PTP_SYS_OFFSET2 PTP_SYS_OFFSET
#endif
#ifndef PTP_SYS_OFFSET_PRECISE2
#define PTP_SYS_OFFSET_PRECISE2 PTP_SYS_OFFSET_PRECISE
#endif
#ifndef PTP_SYS_OFFSET_EXTENDED2
#define PTP_SYS_OFFSET_EXTENDED2 PTP_SYS_OFFSET_EXTENDED
#endif

class LinuxPhcDevice final : public PhcDevice {
 public:
  LinuxPhcDevice(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LinuxPhcDevice() override { close(fd_); }

  const std::string& path() const override { return path_; }

  absl::StatusOr<PhcCaps> GetCaps() override {
    struct ptp_clock_caps c = {};
    if (Ioctl2(fd_, PTP_CLOCK_GETCAPS2, PTP_CLOCK_GETCAPS, &c) < 0) {
      return PhcErrnoStatus(errno, "PTP_CLOCK_GETCAPS on " + path_);
    }
    PhcCaps caps;
    caps.max_adj_ppb = c.max_adj;
    caps.n_ext_ts = c.n_ext_ts;
    caps.n_per_out = c.n_per_out;
    caps.n_pins = c.n_pins;
    caps.pps = c.pps != 0;
    caps.cross_timestamping = c.cross_timestamping != 0;
    return caps;
  }

  absl::Status ReadExtended(clockid_t sys_clock, int samples,
                            std::vector<PhcTriple>* out) override {
    SysOffsetExtendedWithClock req = {};
    req.n_samples =
        static_cast<unsigned>(std::clamp(samples, 1, PTP_MAX_SAMPLES));
    req.clockid = sys_clock;
    if (Ioctl2(fd_, PTP_SYS_OFFSET_EXTENDED2, PTP_SYS_OFFSET_EXTENDED, &req) <
        0) {
      return PhcErrnoStatus(errno, "PTP_SYS_OFFSET_EXTENDED on " + path_);
    }
    for (unsigned i = 0; i < req.n_samples; ++i) {
      out->push_back(
          {ToNs(req.ts[i][0]), ToNs(req.ts[i][1]), ToNs(req.ts[i][2])});
    }
    return absl::OkStatus();
  }

  absl::Status ReadPrecise(PhcCrossStamp* out) override {
    struct ptp_sys_offset_precise req = {};
    if (Ioctl2(fd_, PTP_SYS_OFFSET_PRECISE2, PTP_SYS_OFFSET_PRECISE, &req) <
        0) {
      return PhcErrnoStatus(errno, "PTP_SYS_OFFSET_PRECISE on " + path_);
    }
    out->phc_ns = ToNs(req.device);
    out->sys_realtime_ns = ToNs(req.sys_realtime);
    out->sys_monoraw_ns = ToNs(req.sys_monoraw);
    return absl::OkStatus();
  }

  absl::Status ReadBasic(int samples, std::vector<PhcTriple>* out) override {
    struct ptp_sys_offset req = {};
    req.n_samples =
        static_cast<unsigned>(std::clamp(samples, 1, PTP_MAX_SAMPLES));
    if (Ioctl2(fd_, PTP_SYS_OFFSET2, PTP_SYS_OFFSET, &req) < 0) {
      return PhcErrnoStatus(errno, "PTP_SYS_OFFSET on " + path_);
    }
    for (unsigned i = 0; i < req.n_samples; ++i) {
      out->push_back({ToNs(req.ts[2 * i]), ToNs(req.ts[2 * i + 1]),
                      ToNs(req.ts[2 * i + 2])});
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  int fd_;
};

}  // namespace

absl::Status PhcErrnoStatus(int err, const std::string& what) {
  const std::string msg = absl::StrCat(what, ": ", strerror(err));
  switch (err) {
    case EOPNOTSUPP:
    case ENOTTY:
      return absl::UnimplementedError(msg);
    case EINVAL:
      return absl::InvalidArgumentError(msg);
    case EBUSY:
    case EINTR:
    case EAGAIN:
      return absl::UnavailableError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::StatusOr<std::unique_ptr<PhcDevice>> OpenPhcDevice(
    const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat(
          "PHC ", path,
          " does not exist. List the PTP clocks with `ls /sys/class/ptp/`; "
          "`ethtool -T <iface>` shows a NIC's 'PTP Hardware Clock: N' "
          "(/dev/ptpN); a Time Card appears once its driver (ptp_ocp) is "
          "loaded"));
    }
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot open PHC ", path, ": ", strerror(err),
          ". Run zeitgeberd as root or give its user read access to the "
          "device (udev rule or group)"));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot open PHC ", path, ": ", strerror(err)));
  }
  auto dev = std::make_unique<LinuxPhcDevice>(path, fd);
  if (absl::StatusOr<PhcCaps> caps = dev->GetCaps(); !caps.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is not a PTP hardware clock (PTP_CLOCK_GETCAPS failed: ",
        caps.status().message(),
        "). Point the PHC source at a /dev/ptpN device"));
  }
  return std::unique_ptr<PhcDevice>(std::move(dev));
}

}  // namespace zg::servo
