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
#include "dataplane/ptp/ptp_port_mux.h"
#include "dataplane/worker/frame_classifier.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane {

std::string PtpPortName(size_t index) { return absl::StrCat("ptp", index); }

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

PtpPlugin::Port& PtpPlugin::PortFor(uint16_t port_id,
                                    const std::string& interface,
                                    const core::PtpClockIdentity& clock,
                                    unsigned workers, double tsc_hz) {
  for (auto& p : ports_) {
    if (p->port_id == port_id) return *p;
  }
  auto p = std::make_unique<Port>();
  p->name = PtpPortName(ports_.size());
  p->interface = interface.empty() ? absl::StrCat("port", port_id) : interface;
  p->port_id = port_id;
  const core::PtpPortIdentity identity{
      clock, static_cast<uint16_t>(ports_.size() + 1)};
  p->runtime =
      std::make_unique<PtpPortRuntime>(config_.port, identity, workers, tsc_hz);
  ports_.push_back(std::move(p));
  return *ports_.back();
}

absl::Status PtpPlugin::AddHandlers(const WorkerSetup& setup,
                                    Pipeline& pipeline) {
  if (!config_.enabled) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(PortAddressTable addresses, BuildPortAddresses(setup));
  if (addresses.empty() || setup.ports.empty()) {
    return absl::InvalidArgumentError("PTP: the worker has no port");
  }
  const unsigned workers = std::max(1u, setup.workers);
  const double tsc_hz =
      setup.tsc_hz > 0 ? setup.tsc_hz : static_cast<double>(rte_get_tsc_hz());
  // One clock identity for every port: the first port's MAC's.
  const core::PtpClockIdentity clock =
      ports_.empty()
          ? core::PtpClockIdentity::FromMac(addresses.front().second.mac().b)
          : ports_.front()->runtime->port().clock_identity;
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
  // One pool for the worker's ports: only this worker allocates from it.
  rte_mempool* pool = rte_pktmbuf_pool_create(
      pool_name.c_str(), kPtpPoolMbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
      static_cast<int>(rte_lcore_to_socket_id(setup.lcore_id)));
  if (pool == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot create the PTP mbuf pool ", pool_name, " (", kPtpPoolMbufs,
        " mbufs): ", rte_strerror(rte_errno), "; give the EAL more memory"));
  }
  // The worker's ports with addresses: each a PTP port.
  std::vector<std::pair<const WorkerPort*, const core::LocalAddresses*>> served;
  for (const WorkerPort& wp : setup.ports) {
    for (const auto& [port_id, local] : addresses) {
      if (port_id == wp.port_id) served.push_back({&wp, &local});
    }
  }
  std::vector<std::shared_ptr<PtpWorker>> by_port;
  for (const auto& [wp, local] : served) {
    Port& port = PortFor(wp->port_id, wp->name, clock, workers, tsc_hz);
    ZG_ASSIGN_OR_RETURN(
        std::shared_ptr<PtpWorker> w,
        CreateWorker(setup, *wp, *local, static_cast<uint16_t>(served.size()),
                     port, pool));
    by_port.push_back(std::move(w));
  }
  if (by_port.empty()) {
    return absl::InvalidArgumentError(
        "PTP: the worker's ports have no address");
  }
  for (core::FrameKind k :
       {core::FrameKind::kPtpEvent, core::FrameKind::kPtpGeneral,
        core::FrameKind::kPtpL2}) {
    ZG_RETURN_IF_ERROR(pipeline.SetHandler(
        k, by_port.size() == 1
               ? by_port.front()->MakeHandler()
               : MakePtpPortMuxHandler(
                     by_port, static_cast<uint8_t>(
                                  drops_.port +
                                  static_cast<uint8_t>(
                                      core::PtpPortDrop::kWrongTransport)))));
  }
  pipeline.SetSource(by_port.size() == 1 ? by_port.front()->MakeSource()
                                         : MakePtpPortMuxSource(by_port));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<PtpWorker>> PtpPlugin::CreateWorker(
    const WorkerSetup& setup, const WorkerPort& wp,
    const core::LocalAddresses& local, uint16_t number_ports, Port& port,
    rte_mempool* pool) {
  const unsigned workers = std::max(1u, setup.workers);
  PtpWorkerConfig c;
  c.port = config_.port;
  // Send-on-timestamp: Syncs go one-step with their exact launch time as
  // originTimestamp, no Follow_Up (ptp_tx_schedule.cc).
  if (PtpSchedulesSyncs(wp)) c.port.two_step = false;
  c.admission = config_.admission;
  c.identity = port.runtime->port();
  c.number_ports = number_ports;
  c.local = local;
  c.worker_index = setup.worker_index;
  c.workers = workers;
  c.pool = pool;
  c.seed = std::random_device{}() ^ (uint64_t{std::random_device{}()} << 32);
  c.acl = acl_.get();
  c.admission_swap = admission_.get();
  c.port_id = wp.port_id;
  c.stamps = wp.stamps;
  c.timesync_clock = wp.timesync_clock;
  c.tx_latch = port.tx_latch.get();
  c.link_mbps = wp.link_mbps;
  c.steers_by_address = wp.steers_by_address;
  port.exports.push_back(std::make_unique<core::PtpSubscriberExport>());
  c.subscriber_export = port.exports.back().get();
  if (setup.worker_index == 0 && workers > 1 && !wp.steers_by_address &&
      config_.port.unicast_negotiation) {
    LogWarning(absl::StrCat(
        "PTP: ", workers, " workers on port ", wp.name,
        " whose queues are not spread by "
        "IP address only, so a client's Delay_Req (port 319) may reach "
        "another worker than its grant (port 320): Delay_Resp grants are "
        "NOT enforced. On AF_XDP hash on addresses only: ethtool -N IFACE "
        "rx-flow-hash udp4 sd; ethtool -N IFACE rx-flow-hash udp6 sd"));
  }
  port.stats.push_back(std::make_unique<PtpWorkerStats>());
  return PtpWorker::Create(c, port.runtime.get(), drops_,
                           port.stats.back().get());
}

void PtpPlugin::ControlStep(const ControlTick& tick) {
  if (ports_.empty() || tick.tsc_clock == nullptr) return;
  if (!clock_.has_value()) clock_.emplace(tick.tsc_clock);
  const core::ClockModel& model = clock_->Refresh();
  if (!started_) {
    for (auto& p : ports_) p->runtime->Start(model, tick.tsc);
    started_ = true;
    return;
  }
  for (auto& p : ports_) p->runtime->Step(model, tick.tsc);
  PollSubscriberQuery(tick.tsc, tick.tsc_hz);
}

std::vector<std::shared_ptr<prometheus::Collectable>>
PtpPlugin::ScrapeCollectables() {
  if (ports_.empty()) return {};
  std::vector<PtpMetrics::Port> ports;
  for (const auto& p : ports_) {
    PtpMetrics::Port m{p->interface, p->runtime.get(), {}};
    for (const auto& s : p->stats) m.workers.push_back(s.get());
    ports.push_back(std::move(m));
  }
  return {std::make_shared<PtpMetrics>(std::move(ports))};
}

void PtpPlugin::Observe(const PipelineObservation& o) {
  if (ports_.empty()) return;
  if (o.status != nullptr) FillStatus(o.status->ptp);
  for (auto& p : ports_) ObservePort(*p, o);
}

void PtpPlugin::ObservePort(Port& port, const PipelineObservation& o) {
  if (o.status != nullptr) {
    for (const servo::PortStatus& s : o.status->ports) {
      if (s.name == port.interface) port.runtime->SetLinkUp(s.link_up);
    }
  }
  if (o.alarms == nullptr) return;
  const PtpPortRuntime& rt = *port.runtime;
  if (rt.state_changes() != port.observed_state_changes) {
    if (port.observed_state_changes != 0 || rt.state_changes() > 1) {
      o.alarms->Notice(
          servo::AlarmId::kPtpPortStateChanged, port.name,
          absl::StrCat("PTP port ", port.name, " (", port.interface,
                       ") is now ", core::PtpPortStateName(rt.state())),
          o.mono_ns);
    }
    port.observed_state_changes = rt.state_changes();
  }
  // The budget holds per port (each worker its shard of it).
  uint64_t committed = 0, budget = 0;
  for (const auto& s : port.stats) {
    committed += s->committed_units.Load();
    budget += s->budget_units.Load();
  }
  const bool saturated = budget > 0 && committed * 10 > budget * 9;
  o.alarms->Set(
      servo::AlarmId::kPtpTxBudgetSaturated, port.name, saturated,
      absl::StrFormat(
          "PTP unicast grants on %s (%s) commit %.0f of "
          "--ptp_tx_budget=%.0f messages/s",
          port.name, port.interface,
          static_cast<double>(committed) / core::kPtpRateUnitsPerMessage,
          static_cast<double>(budget) / core::kPtpRateUnitsPerMessage),
      o.mono_ns);
}

void PtpPlugin::Report() {
  for (const auto& p : ports_) {
    std::string sent;
    for (size_t t = 0; t < core::kPtpMessageTypeCount; ++t) {
      uint64_t n = 0;
      for (const auto& s : p->stats) n += s->sent[t].Load();
      if (n != 0) {
        absl::StrAppend(
            &sent, " ",
            core::PtpMessageTypeName(static_cast<core::PtpMessageType>(t)), "=",
            n);
      }
    }
    uint64_t subscribers = 0;
    for (const auto& s : p->stats) subscribers += s->unicast_subscribers.Load();
    LogInfo(absl::StrCat(
        "final PTP port ", p->name, " (", p->interface, "): state ",
        core::PtpPortStateName(p->runtime->state()), ", state changes ",
        p->runtime->state_changes(), ", unicast subscribers ", subscribers,
        ", sent:", sent.empty() ? " none" : sent));
  }
}

}  // namespace zg::dataplane
