// SPDX-License-Identifier: Apache-2.0
// main() of the dataplane integration tests: one EAL per process, and
// --test_file=PATH for the folder binary (tests/util/test_file_filter.h)
// (no hugepages, no shared config files, no PCI, a --file-prefix unique to this
// process, lcore 0 = main on the first allowed CPU, lcore 1 = worker on the
// second; -DZG_DPDK_TEST_WORKERS=N adds workers 2..N on the same CPUs).
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dataplane/port/eal.h"
#include "gtest/gtest.h"
#include "tests/util/test_file_filter.h"

// Worker lcores beyond the first, for binaries compiled with
// -DZG_DPDK_TEST_WORKERS=N (N > 1): lcore k on the two CPUs in turn.
std::string MoreWorkers(const int* cpus) {
#ifdef ZG_DPDK_TEST_WORKERS
  std::string out;
  for (int k = 2; k <= ZG_DPDK_TEST_WORKERS; ++k) {
    absl::StrAppend(&out, ",", k, "@", cpus[k % 2]);
  }
  return out;
#else
  (void)cpus;
  return "";
#endif
}

// One EAL for the whole test binary.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!zg::testutil::SelectTestFile(&argc, argv)) return 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  int cpus[2] = {-1, -1};
  for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; ++c) {
    if (CPU_ISSET(c, &set)) cpus[n++] = c;
  }
  if (cpus[1] < 0) cpus[1] = cpus[0];  // one CPU: both lcores share it
  const std::vector<std::string> args = {
      "dataplane_test",
      "--no-huge",
      "--no-shconf",
      "-m",
      "256",
      "--no-pci",
      absl::StrCat("--file-prefix=zgtest", getpid()),
      absl::StrCat("--lcores=0@", cpus[0], ",1@", cpus[1], MoreWorkers(cpus)),
      "--no-telemetry",
      "--log-level=lib.eal:warning"};
  auto eal = zg::dataplane::Eal::Init(args);
  if (!eal.ok()) {
    std::fprintf(stderr, "%s\n", std::string(eal.status().message()).c_str());
    return 2;
  }
  const int rc = RUN_ALL_TESTS();
  eal->reset();
  return rc;
}
