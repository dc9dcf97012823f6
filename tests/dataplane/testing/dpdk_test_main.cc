// main() of the dataplane integration tests: one EAL per test binary
// (no hugepages, no shared config files, no PCI, a --file-prefix unique to this
// process, lcore 0 = main on the first allowed CPU, lcore 1 = worker on the
// second).
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dataplane/eal.h"
#include "gtest/gtest.h"

// One EAL for the whole test binary.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
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
      absl::StrCat("--lcores=0@", cpus[0], ",1@", cpus[1]),
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
