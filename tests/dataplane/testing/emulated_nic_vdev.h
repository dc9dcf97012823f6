// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: the emulated NIC (emulated_nic.h) as a DPDK virtual device, so
// the EAL makes it from --vdev=net_zg_emu_<tag>[,<args>] (args:
// emulated_nic_args.h), e.g. for zeitgeberd's whole body (RunDaemon) in a
// test binary, or a test makes one with rte_vdev_init. The port is named as
// the vdev; its devargs are the vdev's. The EmulatedNic stays in a registry
// until the vdev is removed (rte_vdev_uninit, or rte_eal_cleanup), and the
// test reaches it by name. Never linked into zeitgeberd.
//
//   RegisterEmulatedNicVdev();   // before the EAL probes (or rte_vdev_init)
//   RunDaemon(... "--vdev=net_zg_emu_0,timesync=1" ...);
//   EmulatedNic* nic = FindEmulatedNic("net_zg_emu_0");  // null until probed
//
// Thread-safety: the registry is guarded by a mutex; a pointer Find returns
// is valid until that vdev is removed.
#ifndef ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_VDEV_H_
#define ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_VDEV_H_

#include <string>

#include "tests/dataplane/testing/emulated_nic.h"

namespace zg::dataplane::testing {

// The vdev driver's name: vdev names start with it.
inline constexpr char kEmulatedNicVdevPrefix[] = "net_zg_emu_";

// Registers the vdev driver (once; later calls do nothing).
void RegisterEmulatedNicVdev();
// The NIC the vdev `name` made, or null.
EmulatedNic* FindEmulatedNic(const std::string& name);

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_VDEV_H_
