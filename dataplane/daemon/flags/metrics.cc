// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/metrics.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "dataplane/daemon/flags.h"

ABSL_FLAG(std::string, metrics_address, "127.0.0.1:9123",
          "HOST:PORT for the Prometheus exporter ([::1]:9123 for IPv6); empty "
          "to disable. Loopback by default: expose it deliberately.");
ABSL_FLAG(absl::Duration, stats_interval, absl::Seconds(1),
          "How often metrics and link state are refreshed.");

namespace zg::dataplane {

absl::Status ReadMetricsFlags(DaemonConfig& c) {
  c.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  if (!c.metrics_address.empty() &&
      c.metrics_address.find(':') == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_address=", c.metrics_address,
        ": expected HOST:PORT, e.g. 127.0.0.1:9123 or [::1]:9123"));
  }
  c.stats_interval = absl::GetFlag(FLAGS_stats_interval);
  if (c.stats_interval < absl::Milliseconds(10)) {
    return absl::InvalidArgumentError("--stats_interval must be >= 10ms");
  }
  return absl::OkStatus();
}

}  // namespace zg::dataplane
