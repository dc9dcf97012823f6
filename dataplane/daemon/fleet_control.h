// SPDX-License-Identifier: Apache-2.0
// FleetControl: the control thread's side of leaving and rejoining the
// fleet (doc/anycast.md). Each control loop pass it
//   - reads the drain files (--drain_file, --force_undrain_file; at most
//     every 100 ms) and moves the drain state (servo/fleet/drain_control.h);
//   - judges health (servo/fleet/anycast_policy.h) and, with --bird_socket,
//     asks the BIRD thread (servo/fleet/bird_control.h) to announce or
//     withdraw the route: never waiting for BIRD;
//   - sets the draining, withdrawn and bgp_speaker_unreachable alarms;
//   - audits every change (config_change records: drain_state, anycast).
// Its metrics: zeitgeber_drain_state, zeitgeber_drain_transitions_total,
// zeitgeber_anycast_{announced,healthy}, zeitgeber_anycast_changes_total,
// zeitgeber_bgp_speaker_{reachable,in_effect,failures_total}.
//
// The stop order (ntpresponder's): Stopping() starts DRAINING (withdraw
// first), the server answers through --drain_grace, then StopReady().
//
//   FleetControl fleet(config.fleet, {.audit = ..., .alarms = &alarms});
//   ZG_RETURN_IF_ERROR(fleet.Start());
//   each pass: fleet.Step({.sync = ..., .stalled_workers = ...}, mono_ns);
//
// Control thread only (the BIRD thread is its own).
#ifndef ZG_DATAPLANE_DAEMON_FLEET_CONTROL_H_
#define ZG_DATAPLANE_DAEMON_FLEET_CONTROL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "dataplane/daemon/daemon_alarms.h"
#include "dataplane/daemon/flags/fleet.h"
#include "servo/audit/audit_log.h"
#include "servo/fleet/anycast_policy.h"
#include "servo/fleet/bird_control.h"
#include "servo/fleet/drain_control.h"

namespace prometheus {
class Counter;
class Gauge;
class Registry;
}  // namespace prometheus

namespace zg::dataplane {

class FleetControl {
 public:
  struct Hooks {
    // Records a config_change (ControlPlane::RecordConfigChange).
    std::function<void(std::vector<std::pair<std::string, servo::AuditValue>>)>
        audit;
    DaemonAlarms* alarms = nullptr;
  };
  FleetControl(FleetConfig config, Hooks hooks);
  ~FleetControl();

  // Starts the BIRD thread with --bird_socket (it withdraws the route at
  // once: nothing is announced until the server is healthy).
  absl::Status Start();

  // zgctl drain (true) / undrain (false), by `who`; applied by the next Step.
  void SetOperatorDrain(bool drain, const std::string& who);
  // A stop was asked: DRAINING (route withdrawn) from the next Step on.
  void Stopping() { stopping_ = true; }
  // Whether the stop may go on: DRAINED.
  bool StopReady() const {
    return drain_.state() == servo::DrainState::kDrained;
  }
  // Whether a stop should wait for the grace: only with an anycast route,
  // and only if not DRAINED already.
  bool StopNeedsGrace() const {
    return config_.anycast_enabled() && !StopReady();
  }

  // Once per control loop pass.
  void Step(const servo::HealthInputs& health, int64_t mono_ns);

  // At the end: withdraw, and wait up to `wait` for BIRD to confirm.
  void WithdrawForExit(absl::Duration wait);

  absl::Status AddMetrics(prometheus::Registry& registry);
  void UpdateMetrics();

  servo::DrainState drain_state() const { return drain_.state(); }
  const servo::DrainControl& drain() const { return drain_; }
  const servo::AnycastPolicy& policy() const { return policy_; }
  // Null without --bird_socket.
  std::shared_ptr<const servo::BirdStatus> bird() const {
    return bird_ == nullptr ? nullptr : bird_->Status();
  }
  const FleetConfig& config() const { return config_; }
  // Why the route was last announced or withdrawn.
  const std::string& withdrawn_why() const { return withdrawn_why_; }

 private:
  void ReadFiles(int64_t mono_ns);
  void Audit(std::vector<std::pair<std::string, servo::AuditValue>> values);

  FleetConfig config_;
  Hooks hooks_;
  servo::DrainControl drain_;
  servo::AnycastPolicy policy_;
  std::unique_ptr<servo::BirdControl> bird_;
  bool stopping_ = false;
  servo::DrainInputs files_;
  int64_t next_file_check_ = 0;
  std::string withdrawn_why_ = "not yet healthy since start";
  // Metrics (null before AddMetrics).
  prometheus::Gauge* state_gauge_ = nullptr;
  prometheus::Counter* transitions_[3] = {nullptr, nullptr, nullptr};
  prometheus::Gauge* announced_ = nullptr;
  prometheus::Gauge* healthy_ = nullptr;
  prometheus::Counter* announces_ = nullptr;
  prometheus::Counter* withdraws_ = nullptr;
  prometheus::Gauge* bird_reachable_ = nullptr;
  prometheus::Gauge* bird_in_effect_ = nullptr;
  prometheus::Counter* bird_failures_ = nullptr;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLEET_CONTROL_H_
