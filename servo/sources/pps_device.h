// SPDX-License-Identifier: Apache-2.0
// PpsDevice: the RFC 2783 PPS API (pps-tools' <sys/timepps.h>) over a
// /dev/ppsN device, behind an interface so the PPS source is tested with a
// fake (this build machine has no /dev/pps*).
//
// The kernel stamps each edge with CLOCK_REALTIME in its interrupt handler;
// time_pps_fetch with a zero timeout returns the latest assert and clear
// stamps and their sequence numbers without waiting.
//
//   ZG_ASSIGN_OR_RETURN(auto dev, OpenPpsDevice("/dev/pps0"));
//   ZG_RETURN_IF_ERROR(dev->Configure(PpsEdge::kAssert));
//   PpsFetch f;
//   ZG_RETURN_IF_ERROR(dev->Fetch(&f));
//
// Control thread only.
#ifndef ZG_SERVO_PPS_DEVICE_H_
#define ZG_SERVO_PPS_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace zg::servo {

enum class PpsEdge : uint8_t { kAssert, kClear };

// The latest edges the kernel saw. Stamps are CLOCK_REALTIME ns.
struct PpsFetch {
  uint64_t assert_sequence = 0;
  int64_t assert_realtime_ns = 0;
  uint64_t clear_sequence = 0;
  int64_t clear_realtime_ns = 0;
};

class PpsDevice {
 public:
  virtual ~PpsDevice() = default;
  virtual const std::string& path() const = 0;
  // Checks the device can capture `edge` and enables capture of it with
  // timespec stamps (time_pps_getcap / getparams / setparams; needs
  // CAP_SYS_TIME).
  virtual absl::Status Configure(PpsEdge edge) = 0;
  // time_pps_fetch with a zero timeout: never blocks.
  virtual absl::Status Fetch(PpsFetch* out) = 0;
};

// Opens `path` and checks it is a PPS source (time_pps_create). The error
// says what an operator should check.
absl::StatusOr<std::unique_ptr<PpsDevice>> OpenPpsDevice(
    const std::string& path);

}  // namespace zg::servo

#endif  // ZG_SERVO_PPS_DEVICE_H_
