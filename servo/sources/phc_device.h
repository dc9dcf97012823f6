// SPDX-License-Identifier: Apache-2.0
// PhcDevice: the ioctl layer over a PTP hardware clock (/dev/ptpN), kept
// behind an interface so the PHC source's arithmetic is tested with a fake
// (this build machine has no /dev/ptp*).
//
// Three ways to read a PHC against system time, best first:
//   PTP_SYS_OFFSET_PRECISE   a hardware cross-timestamp (PCIe PTM / ART):
//                            device, CLOCK_REALTIME and CLOCK_MONOTONIC_RAW at
//                            one instant; only some NICs and Time Cards.
//   PTP_SYS_OFFSET_EXTENDED  n triples (system, PHC, system) with the system
//                            reads taken by the driver right around the PHC
//                            register read (tight brackets); the system clock
//                            is CLOCK_REALTIME, or CLOCK_MONOTONIC_RAW on
//                            kernels that accept a clock id in the request.
//   PTP_SYS_OFFSET           n interleaved (system, PHC, ..., system) reads,
//                            brackets include the ioctl's overhead.
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<PhcDevice> dev,
//                       OpenPhcDevice("/dev/ptp0"));
//   std::vector<PhcTriple> triples;
//   ZG_RETURN_IF_ERROR(dev->ReadExtended(CLOCK_REALTIME, 5, &triples));
//
// Control thread only.
#ifndef ZG_SERVO_PHC_DEVICE_H_
#define ZG_SERVO_PHC_DEVICE_H_

#include <time.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zg::servo {

struct PhcCaps {
  int max_adj_ppb = 0;
  int n_ext_ts = 0;
  int n_per_out = 0;
  int n_pins = 0;
  bool pps = false;
  bool cross_timestamping = false;  // PTP_SYS_OFFSET_PRECISE supported
};

// One PHC read bracketed by two system-clock reads, all in ns since the
// respective clock's epoch.
struct PhcTriple {
  int64_t sys_before_ns = 0;
  int64_t phc_ns = 0;
  int64_t sys_after_ns = 0;
};

// A hardware cross-timestamp: the three clocks at one instant.
struct PhcCrossStamp {
  int64_t phc_ns = 0;
  int64_t sys_realtime_ns = 0;
  int64_t sys_monoraw_ns = 0;
};

// Errors follow errno: Unimplemented (EOPNOTSUPP/ENOTTY: the driver or
// kernel lacks the call), InvalidArgument (EINVAL: e.g. a clock id the kernel
// does not accept), Unavailable (EBUSY/EINTR/EAGAIN), Internal otherwise.
class PhcDevice {
 public:
  virtual ~PhcDevice() = default;
  virtual const std::string& path() const = 0;
  virtual absl::StatusOr<PhcCaps> GetCaps() = 0;
  // `samples` in 1..25 (PTP_MAX_SAMPLES); appends that many triples.
  virtual absl::Status ReadExtended(clockid_t sys_clock, int samples,
                                    std::vector<PhcTriple>* out) = 0;
  virtual absl::Status ReadPrecise(PhcCrossStamp* out) = 0;
  // PTP_SYS_OFFSET; system stamps are CLOCK_REALTIME.
  virtual absl::Status ReadBasic(int samples, std::vector<PhcTriple>* out) = 0;
};

// Opens `path` read-only and checks it is a PTP clock (PTP_CLOCK_GETCAPS).
// The error says what an operator should check.
absl::StatusOr<std::unique_ptr<PhcDevice>> OpenPhcDevice(
    const std::string& path);

// errno -> absl::Status with the mapping above; `what` names the call.
absl::Status PhcErrnoStatus(int err, const std::string& what);

}  // namespace zg::servo

#endif  // ZG_SERVO_PHC_DEVICE_H_
