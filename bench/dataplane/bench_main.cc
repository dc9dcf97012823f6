// SPDX-License-Identifier: Apache-2.0
// The data-plane benchmarks' shared main and reporter (bench_main.h).
#include "bench/dataplane/bench_main.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "dataplane/port/eal.h"

namespace zg::dataplane::bench {
int RunDataplaneBenchmarks(
    int argc, char** argv, const EalBenchmarkOptions& options,
    const std::function<void(const BestTimeReporter&)>& summarise) {
  benchmark::Initialize(&argc, argv);
  absl::StatusOr<std::unique_ptr<Eal>> eal = Eal::Init(
      {options.program, "--no-huge", "--no-shconf", "-m",
       absl::StrCat(options.memory_mb), "--no-pci", "--no-telemetry",
       "--log-level=lib.eal:error",
       absl::StrCat("--file-prefix=", options.program, getpid()), "-l", "0"});
  if (!eal.ok()) {
    std::fprintf(stderr, "%s\n", std::string(eal.status().message()).c_str());
    return 2;
  }
  BestTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (summarise) summarise(reporter);
  benchmark::Shutdown();
  std::fflush(stdout);
  std::_Exit(0);
}

}  // namespace zg::dataplane::bench
