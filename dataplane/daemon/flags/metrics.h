// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's metrics flags, the "Metrics" group of `zeitgeberd -- --help`:
// where the Prometheus exporter listens (dataplane/metrics/
// metrics_exporter.h) and how often the counters and link state it serves
// are refreshed.
//
//   --metrics_address=127.0.0.1:9123   HOST:PORT, [::1]:9123; "" turns it off
//   --stats_interval=1s                >= 10ms
//
//   ZG_RETURN_IF_ERROR(ReadMetricsFlags(c));   // in DaemonConfigFromFlags
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_METRICS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_METRICS_H_

#include "absl/status/status.h"

namespace zg::dataplane {

struct DaemonConfig;

// Fills c.metrics_address and c.stats_interval (errors name the flag).
absl::Status ReadMetricsFlags(DaemonConfig& c);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_METRICS_H_
