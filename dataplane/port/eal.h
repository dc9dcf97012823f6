// SPDX-License-Identifier: Apache-2.0
// DPDK EAL start-up and shutdown for zeitgeberd and the dataplane tests.
//
// zeitgeberd follows the DPDK convention
//   zeitgeberd [EAL options] -- [zeitgeberd flags]
// Eal::Init hands argv to rte_eal_init, and on failure turns rte_errno plus
// what it can see of the machine (hugepages, hugetlbfs mounts) into an error
// an operator can act on. The EAL prints its own details to stderr first.
// rte_eal_init can succeed only once per process; the Eal object's
// destructor runs rte_eal_cleanup.
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<Eal> eal, Eal::Init(argc, argv));
//   int app_argc = argc - eal->consumed_args();
//   char** app_argv = argv + eal->consumed_args();  // app_argv[0] = prog name
#ifndef ZG_DATAPLANE_PORT_EAL_H_
#define ZG_DATAPLANE_PORT_EAL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace zg::dataplane {

class Eal {
 public:
  // Initialises the EAL from argv (argv[0] is the program name). The EAL may
  // reorder argv; argv[consumed_args()] is then the program name again,
  // followed by the application's flags.
  static absl::StatusOr<std::unique_ptr<Eal>> Init(int argc, char** argv);
  // Convenience for tests: args[0] is the program name.
  static absl::StatusOr<std::unique_ptr<Eal>> Init(
      const std::vector<std::string>& args);

  ~Eal();  // rte_eal_cleanup
  Eal(const Eal&) = delete;
  Eal& operator=(const Eal&) = delete;

  int consumed_args() const { return consumed_; }

  // Whether an Eal is initialised and not yet cleaned up: EAL memory
  // (rte_malloc, rte_lpm, mempools) may be freed only then. Objects that can
  // outlive the Eal (e.g. a plugin's tables, destroyed after the daemon)
  // leave their memory to the process exit when it is false.
  static bool running();

 private:
  explicit Eal(int consumed) : consumed_(consumed) {}
  int consumed_;
};

// What the machine offers DPDK, for error messages: e.g.
// "hugepages: 256 reserved, 256 free, 2048 kB each; hugetlbfs mounted: no".
std::string DescribeHugepages();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_EAL_H_
