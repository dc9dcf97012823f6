// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/testing/emulated_nic_vdev.h"

#include <rte_devargs.h>
#include <rte_ethdev.h>

#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "tests/dataplane/testing/emulated_nic_args.h"
#include "tests/dataplane/testing/ethdev_pmd_abi.h"

namespace zg::dataplane::testing {
namespace {

// struct rte_vdev_device and struct rte_vdev_driver (DPDK 22.11's
// bus_vdev_driver.h, not installed either: see ethdev_pmd_abi.h).
struct VdevDevice {
  void* next[2];  // RTE_TAILQ_ENTRY
  pmd_abi::Device device;
};
struct VdevDriver {
  void* next[2];  // RTE_TAILQ_ENTRY
  pmd_abi::Driver driver;
  int (*probe)(VdevDevice*);
  int (*remove)(VdevDevice*);
  void* dma_map;
  void* dma_unmap;
  uint32_t drv_flags;
};
static_assert(offsetof(VdevDevice, device) == 16);
static_assert(offsetof(VdevDriver, probe) == 48);

}  // namespace
}  // namespace zg::dataplane::testing

// Exported by librte_bus_vdev.so.23 (version INTERNAL).
extern "C" void rte_vdev_register(zg::dataplane::testing::VdevDriver* driver);

namespace zg::dataplane::testing {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<EmulatedNic>, std::less<>> nics;
};
// Never destroyed: rte_eal_cleanup removes the vdevs, possibly after exit
// has begun.
Registry& TheRegistry() {
  static Registry* r = new Registry;
  return *r;
}

int Probe(VdevDevice* vdev) {
  const std::string_view name = vdev->device.name;
  const size_t prefix = sizeof(kEmulatedNicVdevPrefix) - 1;
  if (name.size() <= prefix || !name.starts_with(kEmulatedNicVdevPrefix)) {
    std::fprintf(stderr, "%.*s: an emulated NIC's vdev name is %s<tag>\n",
                 static_cast<int>(name.size()), name.data(),
                 kEmulatedNicVdevPrefix);
    return -EINVAL;
  }
  const auto* da = static_cast<const rte_devargs*>(vdev->device.devargs);
  const char* args = da != nullptr && da->args != nullptr ? da->args : "";
  absl::StatusOr<EmulatedNicConfig> config = ParseEmulatedNicArgs(args);
  if (!config.ok()) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(name.size()),
                 name.data(), std::string(config.status().message()).c_str());
    return -EINVAL;
  }
  const std::string_view tag = name.substr(prefix);
  std::unique_ptr<EmulatedNic> nic =
      EmulatedNic::Create(std::string(tag), *config);
  // The port's device is the vdev (its devargs, its driver once probed).
  pmd_abi::View(rte_eth_dev_allocated(vdev->device.name))->device =
      &vdev->device;
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.nics[std::string(name)] = std::move(nic);
  return 0;
}

int Remove(VdevDevice* vdev) {
  std::unique_ptr<EmulatedNic> nic;
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.nics.find(std::string_view(vdev->device.name));
    if (it == r.nics.end()) return -ENODEV;
    nic = std::move(it->second);
    r.nics.erase(it);
  }
  return 0;  // `nic` closes its port (if still open) and frees it here
}

}  // namespace

void RegisterEmulatedNicVdev() {
  static VdevDriver* driver = [] {
    auto* d = new VdevDriver{};
    d->driver.name = "net_zg_emu";
    d->probe = Probe;
    d->remove = Remove;
    rte_vdev_register(d);
    return d;
  }();
  (void)driver;
}

EmulatedNic* FindEmulatedNic(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.nics.find(name);
  return it == r.nics.end() ? nullptr : it->second.get();
}

}  // namespace zg::dataplane::testing
