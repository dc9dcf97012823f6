// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's PTP grandmaster as a ProtocolPlugin of the protocol pipeline
// (dataplane/worker/protocol_pipeline.h): the --ptp_* flags
// (dataplane/daemon/flags/ptp.h), one PtpWorker per worker and port as the
// handler of kPtpEvent, kPtpGeneral and kPtpL2 frames and as the worker's
// FrameSource (Announce, Sync, Follow_Up), the control side (BMCA and port
// state, dataplane/ptp/ptp_port.h) on the control thread, and the
// zeitgeber_ptp_* metrics (dataplane/ptp/ptp_metrics.h). With --ptp=false
// (the default) it adds nothing.
//
// Several --port: one PTP port per interface, as a boundary-clock-shaped
// grandmaster has them. The ports share one clock identity (from the first
// port's MAC) and are numbered 1, 2, ... in the order the workers list
// them; each has its own BMCA state (a better master heard on one port
// makes that port PASSIVE, not the others), its own multicast schedule,
// unicast subscribers and TX latch. A worker serves queue i of every port
// and hands each frame to the PtpWorker of the port it arrived on
// (ptp_port_mux.h).
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

// PTP port i's name (ptp0, ptp1, ...): its alarms' instance and its status
// and SNMP row.
std::string PtpPortName(size_t index);

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
  // ptp_tx_budget_saturated (grants over 90% of --ptp_tx_budget). Each
  // port's link (status->ports) goes to its runtime: down makes the PTP
  // port FAULTY at the next ControlStep, up LISTENING again.
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
  // PTP ports (one per served --port), known after the first AddHandlers.
  size_t port_count() const { return ports_.size(); }
  // Null until the first AddHandlers (tests read the port state from it).
  const PtpPortRuntime* runtime(size_t port = 0) const {
    return port < ports_.size() ? ports_[port]->runtime.get() : nullptr;
  }
  const PtpDropBases& drops() const { return drops_; }
  // Port `port`'s PTP counters, one per worker.
  const std::vector<std::unique_ptr<PtpWorkerStats>>& stats(
      size_t port = 0) const {
    return ports_.at(port)->stats;
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
  // One PTP port: built by the first worker's AddHandlers that serves it,
  // joined by the others'.
  struct Port {
    std::string name;       // PtpPortName(index)
    std::string interface;  // the --port's name (metrics' port label)
    uint16_t port_id = 0;   // the DPDK port
    // Written by: control thread (setup, ControlStep). Read by: workers
    // (the runtime's published snapshot and rings only).
    std::unique_ptr<PtpPortRuntime> runtime;
    // The port's one timesync TX latch, shared by its workers
    // (ptp_tx_stamp.h).
    std::unique_ptr<TimesyncTxLatch> tx_latch =
        std::make_unique<TimesyncTxLatch>();
    std::vector<std::unique_ptr<PtpWorkerStats>> stats;  // per worker
    // Per worker (the worker writes, the control thread reads: see the
    // header).
    std::vector<std::unique_ptr<core::PtpSubscriberExport>> exports;
    uint64_t observed_state_changes = 0;  // Observe(): at the last call
  };
  // The port serving DPDK port `port_id` (created with the next number if
  // new).
  Port& PortFor(uint16_t port_id, const std::string& interface,
                const core::PtpClockIdentity& clock, unsigned workers,
                double tsc_hz);
  std::vector<std::unique_ptr<Port>> ports_;
  // Worker `setup`'s PtpWorker for port `wp` (addresses `local`), one of
  // the clock's `number_ports`, taking originated frames from `pool`.
  absl::StatusOr<std::shared_ptr<PtpWorker>> CreateWorker(
      const WorkerSetup& setup, const WorkerPort& wp,
      const core::LocalAddresses& local, uint16_t number_ports, Port& port,
      rte_mempool* pool);
  struct SubscriberQuery {
    uint32_t top = 0;
    PipelineFactory::PtpSubscribersDone done;
    // Per export, ports_ in order, each port's workers in order.
    std::vector<uint64_t> generations;
    uint64_t started_tsc = 0;
  };
  std::optional<SubscriberQuery> query_;  // control thread
  void PollSubscriberQuery(uint64_t tsc, double tsc_hz);
  // The ports' part of the operator status (ptp_status.cc).
  void FillStatus(std::vector<servo::PtpStatus>& status) const;
  void FillPortStatus(const Port& port, servo::PtpStatus& status) const;
  void ObservePort(Port& port, const PipelineObservation& o);
  std::optional<core::ClockReader> clock_;
  bool started_ = false;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_PLUGIN_H_
