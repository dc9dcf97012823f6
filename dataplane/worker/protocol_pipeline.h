// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's protocol pipeline: one classify step (core::ClassifyFrame),
// one handler per protocol, shared stamping and TX (dataplane/worker/worker.h).
//
//   FrameKind                         handler
//   kArpRequest, kIcmpEchoRequest,    L2L3Handler
//   (dataplane/worker/l2l3_handler.h) kIcmp6EchoRequest, kNeighborSolicitation
//   kNtp                              NtpHandler (dataplane/ntp/ntp_handler.h),
//                                     with an optional per-client
//                                     NtpRequestPolicy (rate limiting, ACL)
//   kPtpEvent, kPtpGeneral, kPtpL2    a ProtocolPlugin: the PTP grandmaster
//                                     (dataplane/ptp/ptp_plugin.h); without
//                                     one, counted as worker_no_handler
//   kOther and every FrameDrop        counted drops (frame_<reason>)
//
//   PtpPlugin ptp;                            // dataplane/ptp/ptp_plugin.h
//   ProtocolPipelineFactory factory({.plugins = {&ptp}});
//   return RunDaemon(argc, argv, factory);    // dataplane/daemon/daemon.h
#ifndef ZG_DATAPLANE_WORKER_PROTOCOL_PIPELINE_H_
#define ZG_DATAPLANE_WORKER_PROTOCOL_PIPELINE_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_handler.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/ntp_policy.h"
#include "dataplane/ntp/nts_auth.h"
#include "dataplane/worker/frame_classifier.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// A protocol whose handlers sit next to NTP in every worker's pipeline. Its
// handlers read the ParsedFrame the classifier leaves (frame_classifier.h).
class ProtocolPlugin {
 public:
  virtual ~ProtocolPlugin() = default;
  // Names its drop reasons (control thread, once, before any Create).
  virtual absl::Status RegisterNames(CounterNames& names) = 0;
  // Sets its handlers (Pipeline::SetHandler on its FrameKinds; a kind that
  // already has a handler is an error).
  virtual absl::Status AddHandlers(const WorkerSetup& setup,
                                   Pipeline& pipeline) = 0;
  // Optional control-plane side, forwarded by the factory in plugin order
  // (see PipelineFactory in dataplane/worker/pipeline.h for when each runs).
  virtual absl::Status Configure(const DaemonConfig& /*config*/) {
    return absl::OkStatus();
  }
  virtual void ControlStep(const ControlTick& /*tick*/) {}
  virtual std::vector<std::shared_ptr<prometheus::Collectable>>
  ScrapeCollectables() {
    return {};
  }
  virtual void Observe(const PipelineObservation& /*observation*/) {}
  // PipelineFactory::QueryPtpSubscribers; false: not this plugin's (then
  // `done` is left alone).
  virtual bool QueryPtpSubscribers(
      uint32_t /*top*/, const PipelineFactory::PtpSubscribersDone& /*done*/) {
    return false;
  }
  virtual std::vector<std::string> ReloadableFlags() const { return {}; }
  virtual absl::Status Reload(const ReloadArgs& /*reload*/) {
    return absl::OkStatus();
  }
  virtual void Report() {}
  virtual void Shutdown() {}
  virtual bool WantsPtpGroups() const { return false; }
};

class ProtocolPipelineFactory final : public PipelineFactory {
 public:
  struct Options {
    // Per-client NTP policy (rate limiting, ACL); null: answer every valid
    // request. Must outlive the factory's pipelines' creation.
    NtpPolicyFactory* ntp_policy = nullptr;
    // Further protocols (the PTP grandmaster), in order.
    std::vector<ProtocolPlugin*> plugins;
    // Symmetric-key NTP authentication (--ntp_keys, ntp_auth.h); null or
    // without keys: requests with a MAC are dropped. Must outlive the factory.
    NtpAuthFactory* ntp_auth = nullptr;
    // NTS-protected NTP (--nts_master_key, nts_auth.h); null or without a
    // master key: NTS requests are dropped. Must outlive the factory.
    NtsFactory* nts = nullptr;
    // NTP interleaved mode (--ntp_interleave, ntp_interleave.h); null or
    // off: basic replies only. Must outlive the factory.
    NtpInterleaveFactory* ntp_interleave = nullptr;
  };

  ProtocolPipelineFactory() = default;
  explicit ProtocolPipelineFactory(Options options)
      : options_(std::move(options)) {}

  absl::Status RegisterNames(CounterNames& names) override;
  absl::StatusOr<Pipeline> Create(const WorkerSetup& setup) override;
  absl::Status Configure(const DaemonConfig& config) override;
  void ControlStep(const ControlTick& tick) override;
  std::vector<std::shared_ptr<prometheus::Collectable>> ScrapeCollectables()
      override;
  void Observe(const PipelineObservation& observation) override;
  void QueryPtpSubscribers(uint32_t top, PtpSubscribersDone done) override;
  // The NTP policy's client records (NtpPolicyFactory::QueryClients).
  absl::StatusOr<nlohmann::json> QueryNtpClients(
      const core::NtpClientQuery& query,
      const core::PublishedClock& clock) const override;
  // The NTP policy's and the plugins' together.
  std::vector<std::string> ReloadableFlags() const override;
  // The NTP policy first, then the plugins in order; the first error wins.
  absl::Status Reload(const ReloadArgs& reload) override;
  void Report() override;
  void Shutdown() override;
  bool WantsPtpGroups() const override;

  // Valid after RegisterNames (tests look counters up by them).
  const FrameDropIndex& frame_drops() const { return frame_drops_; }
  const NtpDropIndex& ntp_drops() const { return ntp_drops_; }

 private:
  Options options_;
  bool registered_ = false;
  FrameDropIndex frame_drops_;
  NtpDropIndex ntp_drops_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_PROTOCOL_PIPELINE_H_
