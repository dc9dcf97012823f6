// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/pps_device.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/timepps.h>
#include <unistd.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace zg::servo {
namespace {

int64_t ToNs(const struct timespec& t) {
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

class LinuxPpsDevice final : public PpsDevice {
 public:
  LinuxPpsDevice(std::string path, pps_handle_t handle)
      : path_(std::move(path)), handle_(handle) {}
  // LinuxPPS: the handle is the fd; destroying it closes the device.
  ~LinuxPpsDevice() override { time_pps_destroy(handle_); }

  const std::string& path() const override { return path_; }

  absl::Status Configure(PpsEdge edge) override {
    int caps = 0;
    if (time_pps_getcap(handle_, &caps) < 0) {
      return absl::InternalError(
          absl::StrCat("time_pps_getcap on ", path_, ": ", strerror(errno)));
    }
    const int capture =
        edge == PpsEdge::kAssert ? PPS_CAPTUREASSERT : PPS_CAPTURECLEAR;
    if ((caps & capture) == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(path_, " cannot capture the ",
                       edge == PpsEdge::kAssert ? "assert" : "clear",
                       " edge (capabilities 0x", absl::Hex(caps),
                       "); configure the other edge"));
    }
    pps_params_t params = {};
    if (time_pps_getparams(handle_, &params) < 0) {
      return absl::InternalError(
          absl::StrCat("time_pps_getparams on ", path_, ": ", strerror(errno)));
    }
    params.mode |= capture | PPS_TSFMT_TSPEC;
    if (time_pps_setparams(handle_, &params) < 0) {
      const int err = errno;
      return (err == EPERM || err == EACCES)
                 ? absl::PermissionDeniedError(absl::StrCat(
                       "time_pps_setparams on ", path_, ": ", strerror(err),
                       ": enabling PPS capture needs CAP_SYS_TIME (run as "
                       "root, or configure the edge beforehand with "
                       "`ppsctl`/udev and disable configure_device)"))
                 : absl::InternalError(absl::StrCat(
                       "time_pps_setparams on ", path_, ": ", strerror(err)));
    }
    return absl::OkStatus();
  }

  absl::Status Fetch(PpsFetch* out) override {
    pps_info_t info = {};
    struct timespec zero = {0, 0};
    if (time_pps_fetch(handle_, PPS_TSFMT_TSPEC, &info, &zero) < 0) {
      return absl::UnavailableError(
          absl::StrCat("time_pps_fetch on ", path_, ": ", strerror(errno)));
    }
    out->assert_sequence = info.assert_sequence;
    out->assert_realtime_ns = ToNs(info.assert_timestamp);
    out->clear_sequence = info.clear_sequence;
    out->clear_realtime_ns = ToNs(info.clear_timestamp);
    return absl::OkStatus();
  }

 private:
  std::string path_;
  pps_handle_t handle_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PpsDevice>> OpenPpsDevice(
    const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(absl::StrCat(
          "PPS device ", path,
          " does not exist. List PPS sources with `ls /sys/class/pps/` "
          "(`cat /sys/class/pps/pps0/name`); a serial-port PPS needs `ldattach "
          "PPS /dev/ttyS0`, a GPIO PPS the pps-gpio device-tree overlay, a "
          "PHC's PPS output `echo 1 > /sys/class/ptp/ptp0/pps_enable`"));
    }
    if (err == EACCES || err == EPERM) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot open PPS device ", path, ": ", strerror(err),
          ". Run zeitgeberd as root or grant access (udev rule or group)"));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot open PPS device ", path, ": ", strerror(err)));
  }
  pps_handle_t handle;
  if (time_pps_create(fd, &handle) < 0) {
    const int err = errno;
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is not a PPS device (time_pps_create: ", strerror(err),
        "). Check the path; `ppstest ", path, "` should print edges"));
  }
  return std::unique_ptr<PpsDevice>(new LinuxPpsDevice(path, handle));
}

}  // namespace zg::servo
