// SPDX-License-Identifier: Apache-2.0
// One zeitgeberd per port: before the EAL opens them, zeitgeberd claims the
// devices its EAL options name (each net_af_xdp vdev's interface, each PCI
// device given with -a/--allow) with a lock file per device in the runtime
// directory ($RUNTIME_DIRECTORY under systemd, else /run/zeitgeber), held
// until the process ends, however it ends (flock(2)).
//
// A device another zeitgeberd still holds (running, or still stopping after
// SIGTERM) is waited for, up to `wait`; then the start fails with one line
// that names the holder's pid, instead of the PMD's "Failed to load custom
// XDP program" or "RX queue 0 setup failed: Invalid argument".
//
// Once an AF_XDP interface is claimed, no live zeitgeberd uses it: an XDP
// program of zeitgeber's still attached to it was left by one that was
// killed (SIGKILL, a crash, the systemd watchdog), and would make the PMD
// fail; it is detached, with a warning. It is known as ours by the program
// id the last holder recorded in the lock file (RecordXdpProgram), which
// needs no privilege, or else, with CAP_SYS_ADMIN, by its name
// (zg_xdp_steer). Another program on an interface given xdp_prog= fails
// the start with one line saying how to remove it.
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<PortClaim> claim,
//                       PortClaim::Acquire(eal_args, absl::Seconds(5)));
//   ... Eal::Init(...) ...   // keep `claim` alive as long as the ports
#ifndef ZG_DATAPLANE_PORT_PORT_CLAIM_H_
#define ZG_DATAPLANE_PORT_PORT_CLAIM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace zg::dataplane {

// A device named by the EAL options.
struct ClaimedDevice {
  std::string key;        // "af_xdp-eth1", "pci-0000:3b:00.0": the lock's name
  std::string label;      // "net_af_xdp0 (interface eth1)", "0000:3b:00.0"
  std::string iface;      // AF_XDP only: the interface
  bool xdp_prog = false;  // AF_XDP only: given xdp_prog= (a custom program)
};

// The devices in EAL options (program name excluded): --vdev=net_af_xdp*
// with iface=, -a/--allow/-w PCI addresses (with or without the domain),
// as "--opt=value" or "--opt value".
std::vector<ClaimedDevice> DevicesInEalArgs(absl::Span<char* const> eal_args);

class PortClaim {
 public:
  // Claims every device in `eal_args`, waiting up to `wait` for each one a
  // live zeitgeberd holds; then removes stale XDP programs (see above).
  // `run_dir` "" means $RUNTIME_DIRECTORY or /run/zeitgeber; when it cannot
  // be created nothing is claimed (logged at debug level).
  static absl::StatusOr<std::unique_ptr<PortClaim>> Acquire(
      absl::Span<char* const> eal_args, absl::Duration wait,
      std::string run_dir = "");
  ~PortClaim();  // releases the locks
  // Records the XDP program now attached to claimed interface `iface` in
  // its lock file, for the next holder (after the PMD attached it).
  void RecordXdpProgram(const std::string& iface);
  PortClaim(const PortClaim&) = delete;
  PortClaim& operator=(const PortClaim&) = delete;

 private:
  PortClaim() = default;
  std::vector<int> fds_;
  std::vector<ClaimedDevice> devices_;  // devices_[i] is locked by fds_[i]
};

// If `ifname` has zeitgeber's XDP program attached (id `recorded_id`, the
// one the last holder recorded, or named zg_xdp_steer), detaches it and
// says so; with `custom_program`, any other attached program is an error
// naming it. For an interface no live zeitgeberd holds (PortClaim).
absl::Status RemoveStaleXdpProgram(const std::string& ifname,
                                   bool custom_program,
                                   uint32_t recorded_id = 0);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_PORT_CLAIM_H_
