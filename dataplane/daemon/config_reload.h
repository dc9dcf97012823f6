// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's configuration reload (SIGHUP), on the control thread:
//
//   1. re-read every --flagfile given at start (recursively) into one flat
//      argument list; an unreadable file or an unknown flag rejects;
//   2. flags that changed but cannot change at runtime (addresses, ports,
//      queues...) are logged "needs restart" and not applied;
//   3. the reloadable flags (those the components apply:
//      PipelineFactory::ReloadableFlags) take their re-read values (a
//      malformed one rejects), and
//      DaemonConfigFromFlags makes the DaemonConfig they give;
//   4. PipelineFactory::Reload: every component builds and validates its new
//      configuration and stages its publication;
//   5. all accepted: the staged publications run (SwappableConfig::Publish,
//      workers switch at their next burst boundary). Any error: nothing is
//      published, the reloadable flags get their old values back, the old
//      configuration stays in force.
// Every reload and its outcome goes to the log, the audit log
// (config_change, reason "reload (SIGHUP)") and the metrics:
//   zeitgeber_config_reloads_total{outcome="ok"|"rejected"}
//   zeitgeber_config_last_reload_successful (1 or 0)
//   zeitgeber_config_last_reload_success_timestamp_seconds (start-up counts)
//   zeitgeber_config_retired_pending (old configs waiting for their grace
//     period: stays above 0 only if a worker stopped passing boundaries)
//
//   ZG_ASSIGN_OR_RETURN(auto reloader, ConfigReloader::Create(
//       {.args = app_args, .factory = &factory, .audit = audit_fn}));
//   if (hangup) reloader->Reload();    // control loop
#ifndef ZG_DATAPLANE_DAEMON_CONFIG_RELOAD_H_
#define ZG_DATAPLANE_DAEMON_CONFIG_RELOAD_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/trust/reload.h"
#include "dataplane/worker/pipeline.h"
#include "servo/audit/audit_log.h"
#include "servo/control/source_change.h"

namespace prometheus {
class Counter;
class Gauge;
class Registry;
}  // namespace prometheus

namespace zg::dataplane {

struct ReloadOutcome {
  bool ok = false;
  std::string error;                       // rejected: why
  std::vector<std::string> changed;        // reloadable flags: old -> new
  std::vector<std::string> components;     // what the components staged
  std::vector<std::string> needs_restart;  // changed, not applied
  // What it did to the reference sources (--source): set by zeitgeberd
  // when the reload changed them (dataplane/daemon/source_reload.h).
  std::optional<servo::SourceChangeResult> sources;
};

class ConfigReloader {
 public:
  using AuditFn = std::function<void(
      std::vector<std::pair<std::string, servo::AuditValue>>)>;
  struct Options {
    std::vector<std::string> args;  // zeitgeberd's flags as given (no argv[0])
    PipelineFactory* factory = nullptr;
    // Default: factory->ReloadableFlags().
    std::optional<std::vector<std::string>> reloadable;
    AuditFn audit;  // may be empty (tests, no audit log)
    ReaderEpochs* epochs = &DataplaneEpochs();  // for the pending gauge
    // Build ReloadArgs::config with DaemonConfigFromFlags (zeitgeberd's
    // flags linked in); false: a default DaemonConfig (tests).
    bool daemon_config = true;
  };

  // Reads the flagfiles once more for the baseline (what "changed" means).
  static absl::StatusOr<std::unique_ptr<ConfigReloader>> Create(
      Options options);

  // One reload; logs, audits (with `reason`) and counts its outcome.
  // Control thread.
  ReloadOutcome Reload(const std::string& reason = "reload (SIGHUP)");

  absl::Status AddMetrics(prometheus::Registry& registry);
  void UpdateMetrics();  // with every exporter update

  uint64_t reloads_ok() const { return ok_; }
  uint64_t reloads_rejected() const { return rejected_; }

 private:
  explicit ConfigReloader(Options options) : options_(std::move(options)) {}
  // Steps 1-5 above; `out` gets what is known even when it fails.
  absl::Status Run(ReloadOutcome& out);
  void Report(const ReloadOutcome& out, const std::string& reason);

  Options options_;
  std::vector<std::string> reloadable_;  // flag names, without "--"
  std::vector<std::string> baseline_;    // expanded at start: restart checks
  std::vector<std::string> applied_;     // expanded at the last good load
  uint64_t ok_ = 0;
  uint64_t rejected_ = 0;
  absl::Time last_ok_;
  bool last_ok_flag_ = true;
  prometheus::Counter* ok_counter_ = nullptr;
  prometheus::Counter* rejected_counter_ = nullptr;
  prometheus::Gauge* last_success_ = nullptr;
  prometheus::Gauge* last_successful_ = nullptr;
  prometheus::Gauge* pending_ = nullptr;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_CONFIG_RELOAD_H_
