// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's PTP grandmaster as a ProtocolPlugin of the protocol pipeline
// (dataplane/worker/protocol_pipeline.h): the --ptp_* flags
// (dataplane/daemon/flags/ptp.h), one PtpWorker per worker as the handler of
// kPtpEvent, kPtpGeneral and kPtpL2 frames and as the worker's FrameSource
// (Announce, Sync, Follow_Up), the control side (BMCA and port state,
// dataplane/ptp/ptp_port.h) on the control thread, and the zeitgeber_ptp_*
// metrics (dataplane/ptp/ptp_metrics.h). With --ptp=false (the default) it adds
// nothing.
//
//   PtpPlugin ptp;
//   ProtocolPipelineFactory factory({.plugins = {&ptp}});
//   return RunDaemon(argc, argv, factory);
//
// Tests configure it without flags: PtpPlugin ptp(PtpFlagsConfig{...}).
#ifndef ZG_DATAPLANE_PTP_PTP_PLUGIN_H_
#define ZG_DATAPLANE_PTP_PTP_PLUGIN_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ptp/ptp_subscriber_export.h"
#include "core/time/clock_model.h"
#include "dataplane/daemon/flags/ptp.h"
#include "dataplane/ptp/ptp_metrics.h"
#include "dataplane/ptp/ptp_port.h"
#include "dataplane/ptp/ptp_worker.h"
#include "dataplane/worker/protocol_pipeline.h"

namespace zg::dataplane {

// The one PTP port's name: its alarms' instance and its status row.
inline constexpr char kPtpPortName[] = "ptp0";

class PtpPlugin final : public ProtocolPlugin {
 public:
  // Configure() reads the --ptp_* flags.
  PtpPlugin() = default;
  // A fixed configuration (tests); Configure() then only checks it against
  // the served addresses.
  explicit PtpPlugin(PtpFlagsConfig config);
  ~PtpPlugin() override;

  absl::Status Configure(const DaemonConfig& config) override;
  absl::Status RegisterNames(CounterNames& names) override;
  absl::Status AddHandlers(const WorkerSetup& setup,
                           Pipeline& pipeline) override;
  void ControlStep(const ControlTick& tick) override;
  // The zeitgeber_ptp_* families (ptp_metrics.h); none with --ptp=false.
  std::vector<std::shared_ptr<prometheus::Collectable>> ScrapeCollectables()
      override;
  // status->ptp (port state, the announced dataset, messages and grants;
  // ptp_status.cc) and the port's alarms: ptp_port_state_changed,
  // ptp_tx_budget_saturated (grants over 90% of --ptp_tx_budget).
  void Observe(const PipelineObservation& observation) override;
  // One query at a time: each worker walks its table (core/ptp/
  // ptp_subscriber_export.h); ControlStep answers when all have (or, after
  // 5 s, says which has not).
  bool QueryPtpSubscribers(
      uint32_t top, const PipelineFactory::PtpSubscribersDone& done) override;
  // SIGHUP: new admission limits (from the re-read --ptp_* admission flags)
  // and access list (reload.config->access.ptp), validated, then staged;
  // workers take them at their next burst. Live grants keep their rates
  // until renewed.
  absl::Status Reload(const ReloadArgs& reload) override;
  // What Reload applies: with --ptp, --ptp_allow/--ptp_deny and (from the
  // flags) the admission flags; any other change needs a restart.
  std::vector<std::string> ReloadableFlags() const override;
  void Report() override;
  // The workers stopped, the EAL still runs: frees the access list's tables.
  void Shutdown() override { acl_.reset(); }
  bool WantsPtpGroups() const override { return config_.enabled; }

  bool enabled() const { return config_.enabled; }
  // Null until the first AddHandlers (tests read the port state from it).
  const PtpPortRuntime* runtime() const { return runtime_.get(); }
  const PtpDropBases& drops() const { return drops_; }
  const std::vector<std::unique_ptr<PtpWorkerStats>>& stats() const {
    return stats_;
  }

 private:
  // Checks the transports against the served address families.
  absl::Status CheckTransports(const DaemonConfig& config);

  PtpFlagsConfig config_;
  bool from_flags_ = true;
  AccessConfig access_;  // DaemonConfig::access (Configure)
  // --ptp_allow / --ptp_deny: built by the first AddHandlers (the EAL's
  // tables), rebuilt on reload. Written by: control thread. Read by:
  // workers (Current(), once per burst).
  std::unique_ptr<ReloadableAccessList> acl_;
  // The admission limits: published at Configure and on reload. Written
  // by: control thread. Read by: workers (once per burst).
  std::unique_ptr<SwappableConfig<PtpAdmissionPolicy>> admission_;
  uint64_t admission_generation_ = 0;
  PtpDropBases drops_;
  // Written by: control thread (setup, ControlStep). Read by: workers (the
  // runtime's published snapshot and rings only).
  std::unique_ptr<PtpPortRuntime> runtime_;
  // The port's one timesync TX latch, shared by its workers
  // (ptp_tx_stamp.h).
  std::unique_ptr<TimesyncTxLatch> tx_latch_ =
      std::make_unique<TimesyncTxLatch>();
  std::vector<std::unique_ptr<PtpWorkerStats>> stats_;
  // One per worker (the worker writes, the control thread reads: see the
  // header).
  std::vector<std::unique_ptr<core::PtpSubscriberExport>> exports_;
  struct SubscriberQuery {
    uint32_t top = 0;
    PipelineFactory::PtpSubscribersDone done;
    std::vector<uint64_t> generations;  // per worker
    uint64_t started_tsc = 0;
  };
  std::optional<SubscriberQuery> query_;  // control thread
  void PollSubscriberQuery(uint64_t tsc, double tsc_hz);
  // The port's part of the operator status (ptp_status.cc).
  void FillStatus(servo::PtpStatus& status) const;
  std::optional<core::ClockReader> clock_;
  uint64_t observed_state_changes_ = 0;  // Observe(): at the last call
  bool started_ = false;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_PLUGIN_H_
