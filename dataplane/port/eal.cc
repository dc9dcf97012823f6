// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/eal.h"

#include <rte_eal.h>
#include <rte_errno.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

// Written by: Eal::Init and ~Eal (main thread). Read by: Eal::running().
static std::atomic<bool> eal_running{false};
namespace {

constexpr char kHugepageAdvice[] =
    "Reserve and mount hugepages as root (scripts/hugepages.sh 1024, or "
    "echo 1024 > /proc/sys/vm/nr_hugepages && mount -t hugetlbfs nodev "
    "/dev/hugepages), or run without a hugetlbfs mount using --in-memory "
    "(still needs reserved hugepages) or --no-huge -m 512 (tests and rigs "
    "only: slower, no IOVA-contiguous memory for real NICs)";

std::string MeminfoValue(const std::string& meminfo, const char* key) {
  const size_t at = meminfo.find(key);
  if (at == std::string::npos) return "?";
  std::istringstream in(meminfo.substr(at + std::string(key).size()));
  std::string v;
  in >> v;
  return v;
}

bool HugetlbfsMounted() {
  std::ifstream mounts("/proc/mounts");
  std::string line;
  while (std::getline(mounts, line)) {
    if (absl::StrContains(line, " hugetlbfs ")) return true;
  }
  return false;
}

absl::Status EalError(int err) {
  const std::string what =
      absl::StrCat("rte_eal_init failed (", rte_strerror(err),
                   "; EAL messages above have the details). ");
  switch (err) {
    case EACCES:
      return absl::PermissionDeniedError(absl::StrCat(
          what, "The EAL could not use hugepages (", DescribeHugepages(),
          ") or lacks privileges (run as root or grant CAP_SYS_ADMIN, "
          "CAP_NET_RAW, CAP_IPC_LOCK). ",
          kHugepageAdvice));
    case ENOMEM:
      return absl::ResourceExhaustedError(absl::StrCat(
          what, "Not enough memory for the EAL (", DescribeHugepages(),
          "). Lower -m/--socket-mem, or reserve more. ", kHugepageAdvice));
    case ENODEV:
      return absl::NotFoundError(absl::StrCat(
          what,
          "A device given with --vdev or -a/--allow could not be parsed, or "
          "the EAL's memory could not be set up. Check the driver name (for "
          "example --vdev=net_af_xdp0,iface=eth1 or --vdev=net_ring0; the PMD "
          "plugins load from " RTE_EAL_PMD_PATH
          ") and the PCI address (dpdk-devbind.py --status)."));
    case EINVAL:
      return absl::InvalidArgumentError(absl::StrCat(
          what,
          "The EAL options are invalid: check -l/--lcores lists only CPUs "
          "this process may use (taskset -p $$, /sys/fs/cgroup cpuset), and "
          "that zeitgeberd's own flags come after '--'."));
    case EALREADY:
      return absl::FailedPreconditionError(absl::StrCat(
          what, "The EAL was already initialised in this process."));
    case EAGAIN:
      return absl::UnavailableError(absl::StrCat(
          what,
          "VFIO or a bus was not available: load vfio-pci (modprobe "
          "vfio-pci) and bind the NIC (dpdk-devbind.py -b vfio-pci ADDR), or "
          "use --no-pci with virtual devices."));
    case ENOTSUP:
      return absl::UnimplementedError(absl::StrCat(
          what,
          "This CPU or system is not supported by the EAL (invariant "
          "TSC and SSE4.2 are required)."));
    default:
      return absl::InternalError(absl::StrCat(
          what,
          "If another DPDK process runs with the same --file-prefix, give "
          "this one its own (--file-prefix=zg1)."));
  }
}

}  // namespace

std::string DescribeHugepages() {
  std::ifstream f("/proc/meminfo");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string m = ss.str();
  return absl::StrCat(
      "hugepages: ", MeminfoValue(m, "HugePages_Total:"), " reserved, ",
      MeminfoValue(m, "HugePages_Free:"), " free, ",
      MeminfoValue(m, "Hugepagesize:"),
      " kB each; hugetlbfs mounted: ", HugetlbfsMounted() ? "yes" : "no");
}

absl::StatusOr<std::unique_ptr<Eal>> Eal::Init(int argc, char** argv) {
  const int consumed = rte_eal_init(argc, argv);
  if (consumed < 0) return EalError(rte_errno);
  eal_running.store(true);
  return std::unique_ptr<Eal>(new Eal(consumed));
}

bool Eal::running() { return eal_running.load(); }

absl::StatusOr<std::unique_ptr<Eal>> Eal::Init(
    const std::vector<std::string>& args) {
  // rte_eal_init keeps pointers into argv (e.g. the program name), so the
  // strings must outlive the EAL: they live until the process exits.
  static std::vector<std::string> storage;
  static std::vector<char*> argv;
  storage = args;
  argv.clear();
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return Init(static_cast<int>(storage.size()), argv.data());
}

Eal::~Eal() {
  eal_running.store(false);
  // DPDK 22.11's rte_eal_cleanup frees the EAL's memory without stopping
  // its interrupt thread, which may still be finishing a driver's deferred
  // unregistration: net_memif closed with its peer connected hands its
  // control channel to rte_intr_callback_unregister_pending, and the thread
  // then walked freed interrupt sources (SIGSEGV in rte_intr_fd_get at exit,
  // seen in CI's zg_loadgen_memif). Give it a moment first; exit only.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  rte_eal_cleanup();
}

}  // namespace zg::dataplane
