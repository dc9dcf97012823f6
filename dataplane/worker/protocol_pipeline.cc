// SPDX-License-Identifier: Apache-2.0
#include "dataplane/worker/protocol_pipeline.h"

#include <memory>

#include "core/base/status_macros.h"
#include "dataplane/worker/l2l3_handler.h"

namespace zg::dataplane {

absl::Status ProtocolPipelineFactory::RegisterNames(CounterNames& names) {
  if (registered_) {
    return absl::FailedPreconditionError(
        "ProtocolPipelineFactory::RegisterNames called twice");
  }
  ZG_ASSIGN_OR_RETURN(frame_drops_, RegisterFrameNames(names));
  ZG_ASSIGN_OR_RETURN(ntp_drops_, RegisterNtpNames(names));
  if (options_.ntp_policy != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_policy->RegisterNames(names));
  }
  if (options_.ntp_auth != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_auth->RegisterNames(names));
  }
  if (options_.nts != nullptr) {
    ZG_RETURN_IF_ERROR(options_.nts->RegisterNames(names));
  }
  for (ProtocolPlugin* plugin : options_.plugins) {
    ZG_RETURN_IF_ERROR(plugin->RegisterNames(names));
  }
  registered_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Pipeline> ProtocolPipelineFactory::Create(
    const WorkerSetup& setup) {
  if (!registered_) {
    return absl::FailedPreconditionError(
        "ProtocolPipelineFactory::Create before RegisterNames");
  }
  ZG_ASSIGN_OR_RETURN(PortAddressTable ports, BuildPortAddresses(setup));
  Pipeline p;
  p.SetClassifier(
      std::make_unique<CoreFrameClassifier>(std::move(ports), frame_drops_));
  for (core::FrameKind kind :
       {core::FrameKind::kArpRequest, core::FrameKind::kIcmpEchoRequest,
        core::FrameKind::kIcmp6EchoRequest,
        core::FrameKind::kNeighborSolicitation}) {
    ZG_RETURN_IF_ERROR(
        p.SetHandler(kind, std::make_unique<L2L3Handler>(frame_drops_)));
  }
  std::unique_ptr<NtpRequestPolicy> policy;
  if (options_.ntp_policy != nullptr) {
    ZG_ASSIGN_OR_RETURN(policy, options_.ntp_policy->Create(setup));
  }
  std::unique_ptr<NtpWorkerAuth> auth;
  if (options_.ntp_auth != nullptr) {
    ZG_ASSIGN_OR_RETURN(auth, options_.ntp_auth->Create(setup));
  }
  std::unique_ptr<NtsWorkerAuth> nts;
  if (options_.nts != nullptr) {
    ZG_ASSIGN_OR_RETURN(nts, options_.nts->Create(setup));
  }
  std::unique_ptr<NtpWorkerInterleave> interleave;
  if (options_.ntp_interleave != nullptr) {
    ZG_ASSIGN_OR_RETURN(interleave, options_.ntp_interleave->Create(setup));
  }
  ZG_RETURN_IF_ERROR(p.SetHandler(
      core::FrameKind::kNtp,
      std::make_unique<NtpHandler>(frame_drops_, ntp_drops_, std::move(policy),
                                   std::move(auth), std::move(nts),
                                   std::move(interleave))));
  // PTP (kPtpEvent, kPtpGeneral, kPtpL2) comes as a plugin.
  for (ProtocolPlugin* plugin : options_.plugins) {
    ZG_RETURN_IF_ERROR(plugin->AddHandlers(setup, p));
  }
  return p;
}

absl::Status ProtocolPipelineFactory::Configure(const DaemonConfig& config) {
  if (options_.ntp_auth != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_auth->Configure(config));
  }
  if (options_.nts != nullptr) {
    ZG_RETURN_IF_ERROR(options_.nts->Configure(config));
  }
  if (options_.ntp_interleave != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_interleave->Configure(config));
  }
  for (ProtocolPlugin* plugin : options_.plugins) {
    ZG_RETURN_IF_ERROR(plugin->Configure(config));
  }
  return absl::OkStatus();
}

void ProtocolPipelineFactory::ControlStep(const ControlTick& tick) {
  if (options_.nts != nullptr) options_.nts->ControlStep(tick);
  for (ProtocolPlugin* plugin : options_.plugins) plugin->ControlStep(tick);
}

std::vector<std::shared_ptr<prometheus::Collectable>>
ProtocolPipelineFactory::ScrapeCollectables() {
  std::vector<std::shared_ptr<prometheus::Collectable>> out;
  if (options_.ntp_auth != nullptr) {
    out.push_back(options_.ntp_auth->ScrapeCollectable());
  }
  if (options_.nts != nullptr) out.push_back(options_.nts->ScrapeCollectable());
  if (options_.ntp_interleave != nullptr &&
      options_.ntp_interleave->enabled()) {
    out.push_back(options_.ntp_interleave->ScrapeCollectable());
  }
  for (ProtocolPlugin* plugin : options_.plugins) {
    for (auto& c : plugin->ScrapeCollectables()) out.push_back(std::move(c));
  }
  return out;
}

void ProtocolPipelineFactory::Observe(const PipelineObservation& o) {
  for (ProtocolPlugin* plugin : options_.plugins) plugin->Observe(o);
}

void ProtocolPipelineFactory::QueryPtpSubscribers(uint32_t top,
                                                  PtpSubscribersDone done) {
  for (ProtocolPlugin* plugin : options_.plugins) {
    if (plugin->QueryPtpSubscribers(top, done)) return;
  }
  PipelineFactory::QueryPtpSubscribers(top, std::move(done));
}

absl::StatusOr<nlohmann::json> ProtocolPipelineFactory::QueryNtpClients(
    const core::NtpClientQuery& query,
    const core::PublishedClock& clock) const {
  if (options_.ntp_policy == nullptr) {
    return PipelineFactory::QueryNtpClients(query, clock);
  }
  return options_.ntp_policy->QueryClients(query, clock);
}

std::vector<std::string> ProtocolPipelineFactory::ReloadableFlags() const {
  std::vector<std::string> flags;
  if (options_.ntp_auth != nullptr)
    flags = options_.ntp_auth->ReloadableFlags();
  if (options_.nts != nullptr) {
    for (std::string& f : options_.nts->ReloadableFlags())
      flags.push_back(std::move(f));
  }
  if (options_.ntp_policy != nullptr) {
    for (std::string& f : options_.ntp_policy->ReloadableFlags())
      flags.push_back(std::move(f));
  }
  for (const ProtocolPlugin* plugin : options_.plugins) {
    for (std::string& f : plugin->ReloadableFlags())
      flags.push_back(std::move(f));
  }
  return flags;
}

absl::Status ProtocolPipelineFactory::Reload(const ReloadArgs& reload) {
  if (options_.ntp_auth != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_auth->Reload(reload));
  }
  if (options_.nts != nullptr) {
    ZG_RETURN_IF_ERROR(options_.nts->Reload(reload));
  }
  if (options_.ntp_policy != nullptr) {
    ZG_RETURN_IF_ERROR(options_.ntp_policy->Reload(reload));
  }
  for (ProtocolPlugin* plugin : options_.plugins) {
    ZG_RETURN_IF_ERROR(plugin->Reload(reload));
  }
  return absl::OkStatus();
}

void ProtocolPipelineFactory::Report() {
  if (options_.ntp_auth != nullptr) options_.ntp_auth->Report();
  if (options_.nts != nullptr) options_.nts->Report();
  if (options_.ntp_interleave != nullptr) options_.ntp_interleave->Report();
  for (ProtocolPlugin* plugin : options_.plugins) plugin->Report();
}

void ProtocolPipelineFactory::Shutdown() {
  if (options_.ntp_policy != nullptr) options_.ntp_policy->Shutdown();
  for (ProtocolPlugin* plugin : options_.plugins) plugin->Shutdown();
}

bool ProtocolPipelineFactory::WantsPtpGroups() const {
  for (const ProtocolPlugin* plugin : options_.plugins) {
    if (plugin->WantsPtpGroups()) return true;
  }
  return false;
}

}  // namespace zg::dataplane
