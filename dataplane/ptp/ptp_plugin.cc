// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ptp/ptp_plugin.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"
#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_port_state.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "dataplane/port/eal.h"
#include "dataplane/worker/frame_classifier.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane {
namespace {

// Originated PTP frames (Announce, Sync, Follow_Up) come from a small pool
// per worker. Never freed: the port may still hold some in its TX ring when
// the plugin goes away; the EAL releases the memory at exit.
constexpr unsigned kPtpPoolMbufs = 4095;

}  // namespace

PtpPlugin::PtpPlugin(PtpFlagsConfig config)
    : config_(std::move(config)), from_flags_(false) {}

PtpPlugin::~PtpPlugin() {
  // zeitgeberd's Eal (rte_eal_cleanup) goes before the plugins: past it
  // the access list's rte_lpm tables are left to the process exit
  // (freeing them then would crash).
  if (!Eal::running()) (void)acl_.release();
}

absl::Status PtpPlugin::Configure(const DaemonConfig& config) {
  if (from_flags_) {
    ZG_ASSIGN_OR_RETURN(config_, PtpConfigFromFlags());
  }
  if (!config_.enabled) return absl::OkStatus();
  access_ = config.access;
  auto first = std::make_unique<PtpAdmissionPolicy>();
  first->config = config_.admission;
  first->generation = ++admission_generation_;
  admission_ = std::make_unique<SwappableConfig<PtpAdmissionPolicy>>(
      std::unique_ptr<const PtpAdmissionPolicy>(std::move(first)));
  LogInfo(absl::StrCat("PTP admission: ",
                       core::DescribePtpAdmission(config_.admission)));
  return CheckTransports(config);
}

std::vector<std::string> PtpPlugin::ReloadableFlags() const {
  if (!config_.enabled) return {};
  std::vector<std::string> flags = {"ptp_allow", "ptp_deny"};
  if (from_flags_) {
    for (const char* f :
         {"ptp_max_grants_per_source", "ptp_min_log_interval_per_source",
          "ptp_tx_budget", "ptp_refusal_rate", "ptp_cancel_requires_auth"}) {
      flags.push_back(f);
    }
  }
  return flags;
}

absl::Status PtpPlugin::Reload(const ReloadArgs& reload) {
  if (!config_.enabled || admission_ == nullptr) return absl::OkStatus();
  if (from_flags_) {
    ZG_ASSIGN_OR_RETURN(core::PtpAdmissionConfig next,
                        PtpAdmissionConfigFromFlags(config_.port.two_step));
    if (!(next == admission_->Current()->config)) {
      auto policy = std::make_unique<PtpAdmissionPolicy>();
      policy->config = next;
      policy->generation = ++admission_generation_;
      reload.plan->StagePublish(
          *admission_,
          std::unique_ptr<const PtpAdmissionPolicy>(std::move(policy)),
          absl::StrCat("PTP admission: ", core::DescribePtpAdmission(next)));
    }
  }
  if (acl_ != nullptr) ZG_RETURN_IF_ERROR(acl_->Reload(reload));
  return absl::OkStatus();
}

absl::Status PtpPlugin::CheckTransports(const DaemonConfig& config) {
  bool v4 = false, v6 = false;
  for (const InterfaceAddress& a : config.addresses) {
    (a.family == InterfaceAddress::kIpv4 ? v4 : v6) = true;
  }
  uint8_t& t = config_.port.transports;
  if (!config_.transports_explicit && (t & core::kPtpTransportUdpIpv4) != 0 &&
      !v4) {
    // The profile's default transport needs an address we do not have:
    // serve what we can (Layer 2 where the profile allows it).
    t = static_cast<uint8_t>(t & ~core::kPtpTransportUdpIpv4);
    if (v6) t |= core::kPtpTransportUdpIpv6;
    const uint8_t allowed =
        core::GetPtpProfile(config_.port.profile).allowed_transports;
    if (t == 0) t = allowed & core::kPtpTransportL2;
    if (t == 0) {
      return absl::InvalidArgumentError(
          "--ptp: the PTP profile needs UDP and no --address is served; add "
          "an --address or choose a profile that allows --ptp_transport=l2");
    }
    LogWarning(absl::StrCat("PTP: no IPv4 --address, serving ",
                            core::PtpTransportsToString(t)));
  }
  if ((t & core::kPtpTransportUdpIpv4) != 0 && !v4) {
    return absl::InvalidArgumentError(
        "--ptp_transport includes udp4 but no IPv4 --address is served; add "
        "one or choose --ptp_transport=l2 (or --ptp=false)");
  }
  if ((t & core::kPtpTransportUdpIpv6) != 0 && !v6) {
    return absl::InvalidArgumentError(
        "--ptp_transport includes udp6 but no IPv6 --address is served");
  }
  return absl::OkStatus();
}

absl::Status PtpPlugin::RegisterNames(CounterNames& names) {
  if (!config_.enabled) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(drops_, RegisterPtpDropReasons(names));
  return absl::OkStatus();
}

absl::Status PtpPlugin::AddHandlers(const WorkerSetup& setup,
                                    Pipeline& pipeline) {
  if (!config_.enabled) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(PortAddressTable ports, BuildPortAddresses(setup));
  if (ports.empty()) {
    return absl::InvalidArgumentError("PTP: the worker has no port");
  }
  if (ports.size() > 1) {
    // One PTP port per interface (port numbers under one clock identity)
    // is not built yet: a worker's PTP state sends on one port only.
    return absl::UnimplementedError(absl::StrCat(
        "PTP on ", ports.size(),
        " ports in one zeitgeberd is not supported yet: give one --port, "
        "or serve PTP from a zeitgeberd of its own"));
  }
  const core::LocalAddresses& local = ports.front().second;
  const unsigned workers = std::max(1u, setup.workers);
  const core::PtpPortIdentity identity{
      core::PtpClockIdentity::FromMac(local.mac().b), 1};
  if (runtime_ == nullptr) {
    runtime_ = std::make_unique<PtpPortRuntime>(
        config_.port, identity, workers,
        setup.tsc_hz > 0 ? setup.tsc_hz
                         : static_cast<double>(rte_get_tsc_hz()));
  }
  if (acl_ == nullptr) {  // always (an empty list costs nothing): a
                          // reload may add rules
    auto acl = std::make_unique<ReloadableAccessList>(AccessProtocol::kPtp);
    ZG_RETURN_IF_ERROR(acl->Configure(access_));
    if (!access_.ptp.empty()) {
      LogInfo(absl::StrCat("PTP access list: ",
                           acl->Current()->list->description()));
    }
    acl_ = std::move(acl);
  }
  // Unique per process: tests build several plugins in one EAL.
  static std::atomic<unsigned> pools{0};
  const std::string pool_name =
      absl::StrCat("zg_ptp_", setup.worker_index, "_", pools++);
  rte_mempool* pool = rte_pktmbuf_pool_create(
      pool_name.c_str(), kPtpPoolMbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
      static_cast<int>(rte_lcore_to_socket_id(setup.lcore_id)));
  if (pool == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot create the PTP mbuf pool ", pool_name, " (", kPtpPoolMbufs,
        " mbufs): ", rte_strerror(rte_errno), "; give the EAL more memory"));
  }
  PtpWorkerConfig c;
  c.port = config_.port;
  // Send-on-timestamp: Syncs go one-step with their exact launch time as
  // originTimestamp, no Follow_Up (ptp_tx_schedule.cc).
  if (PtpSchedulesSyncs(setup)) c.port.two_step = false;
  c.admission = config_.admission;
  c.identity = identity;
  c.local = local;
  c.worker_index = setup.worker_index;
  c.workers = workers;
  c.pool = pool;
  c.seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  c.acl = acl_.get();
  c.admission_swap = admission_.get();
  // PTP runs on the worker's first port.
  const WorkerPort& wp = setup.ports.front();
  c.port_id = wp.port_id;
  c.stamps = wp.stamps;
  c.timesync_clock = wp.timesync_clock;
  c.tx_latch = tx_latch_.get();
  c.link_mbps = wp.link_mbps;
  c.steers_by_address = wp.steers_by_address;
  exports_.push_back(std::make_unique<core::PtpSubscriberExport>());
  c.subscriber_export = exports_.back().get();
  if (setup.worker_index == 0 && workers > 1 && !wp.steers_by_address &&
      config_.port.unicast_negotiation) {
    LogWarning(absl::StrCat(
        "PTP: ", workers,
        " workers on a port whose queues are not spread by "
        "IP address only, so a client's Delay_Req (port 319) may reach "
        "another worker than its grant (port 320): Delay_Resp grants are "
        "NOT enforced. On AF_XDP hash on addresses only: ethtool -N IFACE "
        "rx-flow-hash udp4 sd; ethtool -N IFACE rx-flow-hash udp6 sd"));
  }
  stats_.push_back(std::make_unique<PtpWorkerStats>());
  ZG_ASSIGN_OR_RETURN(
      std::shared_ptr<PtpWorker> w,
      PtpWorker::Create(c, runtime_.get(), drops_, stats_.back().get()));
  for (core::FrameKind k :
       {core::FrameKind::kPtpEvent, core::FrameKind::kPtpGeneral,
        core::FrameKind::kPtpL2}) {
    ZG_RETURN_IF_ERROR(pipeline.SetHandler(k, w->MakeHandler()));
  }
  pipeline.SetSource(w->MakeSource());
  return absl::OkStatus();
}

void PtpPlugin::ControlStep(const ControlTick& tick) {
  if (runtime_ == nullptr || tick.tsc_clock == nullptr) return;
  if (!clock_.has_value()) clock_.emplace(tick.tsc_clock);
  const core::ClockModel& model = clock_->Refresh();
  if (!started_) {
    runtime_->Start(model, tick.tsc);
    started_ = true;
    return;
  }
  runtime_->Step(model, tick.tsc);
  PollSubscriberQuery(tick.tsc, tick.tsc_hz);
}

std::vector<std::shared_ptr<prometheus::Collectable>>
PtpPlugin::ScrapeCollectables() {
  if (runtime_ == nullptr) return {};
  std::vector<const PtpWorkerStats*> stats;
  for (const auto& s : stats_) stats.push_back(s.get());
  return {std::make_shared<PtpMetrics>(runtime_.get(), std::move(stats))};
}

void PtpPlugin::Observe(const PipelineObservation& o) {
  if (runtime_ == nullptr) return;
  constexpr const char* kPort = kPtpPortName;
  uint64_t committed = 0, budget = 0;
  for (const auto& s : stats_) {
    committed += s->committed_units.Load();
    budget += s->budget_units.Load();
  }
  const core::PtpPortState state = runtime_->state();
  if (o.status != nullptr) FillStatus(o.status->ptp);
  if (o.alarms == nullptr) return;
  if (runtime_->state_changes() != observed_state_changes_) {
    if (observed_state_changes_ != 0 || runtime_->state_changes() > 1) {
      o.alarms->Notice(servo::AlarmId::kPtpPortStateChanged, kPort,
                       absl::StrCat("PTP port ", kPort, " is now ",
                                    core::PtpPortStateName(state)),
                       o.mono_ns);
    }
    observed_state_changes_ = runtime_->state_changes();
  }
  const bool saturated = budget > 0 && committed * 10 > budget * 9;
  o.alarms->Set(
      servo::AlarmId::kPtpTxBudgetSaturated, "", saturated,
      absl::StrFormat(
          "PTP unicast grants commit %.0f of "
          "--ptp_tx_budget=%.0f messages/s",
          static_cast<double>(committed) / core::kPtpRateUnitsPerMessage,
          static_cast<double>(budget) / core::kPtpRateUnitsPerMessage),
      o.mono_ns);
}

void PtpPlugin::Report() {
  if (runtime_ == nullptr) return;
  std::string sent;
  for (size_t t = 0; t < core::kPtpMessageTypeCount; ++t) {
    uint64_t n = 0;
    for (const auto& s : stats_) n += s->sent[t].Load();
    if (n != 0) {
      absl::StrAppend(
          &sent, " ",
          core::PtpMessageTypeName(static_cast<core::PtpMessageType>(t)), "=",
          n);
    }
  }
  uint64_t subscribers = 0;
  for (const auto& s : stats_) subscribers += s->unicast_subscribers.Load();
  LogInfo(absl::StrCat(
      "final PTP: state ", core::PtpPortStateName(runtime_->state()),
      ", state changes ", runtime_->state_changes(), ", unicast subscribers ",
      subscribers, ", sent:", sent.empty() ? " none" : sent));
}

}  // namespace zg::dataplane
