// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/daemon.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <time.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "core/net/frame.h"
#include "dataplane/clock/nic_clock.h"
#include "dataplane/daemon/config_reload.h"
#include "dataplane/daemon/daemon_alarms.h"
#include "dataplane/daemon/daemon_service.h"
#include "dataplane/daemon/dataplane_status_source.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/fleet_control.h"
#include "dataplane/daemon/log.h"
#include "dataplane/daemon/nic_check.h"
#include "dataplane/daemon/service_notify.h"
#include "dataplane/daemon/source_reload.h"
#include "dataplane/daemon/stamp_setup.h"
#include "dataplane/daemon/status_page_service.h"
#include "dataplane/daemon/test_stall_hook.h"
#include "dataplane/daemon/worker_watch.h"
#include "dataplane/metrics/metrics_exporter.h"
#include "dataplane/nts/nts_ke_server.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/port/port_claim.h"
#include "dataplane/port/xdp_hwts.h"
#include "dataplane/port/xdp_steering.h"
#include "dataplane/snmp/snmp_agent.h"
#include "dataplane/worker/worker.h"
#include "dataplane/worker/worker_stats.h"
#include "servo/clock/system_time.h"
#include "servo/control/control_plane.h"
#include "servo/control/tick_schedule.h"
#include "servo/holdover/holdover.h"

namespace zg::dataplane {
namespace {

// Written by: the signal handlers. Read by: the control loop.
std::atomic<int> g_signal{0};       // SIGINT/SIGTERM: stop
std::atomic<bool> g_hangup{false};  // SIGHUP: audit log, flagfile reload
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);

void OnSignal(int sig) { g_signal.store(sig, std::memory_order_relaxed); }
void OnHangup(int) { g_hangup.store(true, std::memory_order_relaxed); }

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = &OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hup {};
  hup.sa_handler = &OnHangup;
  sigemptyset(&hup.sa_mask);
  hup.sa_flags = SA_RESTART;
  sigaction(SIGHUP, &hup, nullptr);
}

void ControlLog(servo::LogLevel level, const std::string& message) {
  switch (level) {
    case servo::LogLevel::kInfo:
      LogInfo(message);
      break;
    case servo::LogLevel::kWarning:
      LogWarning(message);
      break;
    case servo::LogLevel::kError:
      LogError(message);
      break;
  }
}

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns`; false if a signal
// (SIGTERM, SIGHUP) woke it first.
bool SleepUntil(int64_t deadline_ns) {
  const timespec ts{static_cast<time_t>(deadline_ns / 1'000'000'000),
                    static_cast<long>(deadline_ns % 1'000'000'000)};
  return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == 0;
}

uint32_t AutoMbufs(const DaemonConfig& c, unsigned queues) {
  const uint32_t per_queue = c.rx_desc + c.tx_desc + 2 * kBurstSize;
  const uint32_t need = per_queue * queues + kMbufCacheSize * (queues + 1);
  uint32_t n = 4095;
  while (n < need) n = n * 2 + 1;
  return n;
}

// How long a start waits for a port that a stopping zeitgeberd still holds
// (its shutdown takes well under a second).
constexpr absl::Duration kPortClaimWait = absl::Seconds(5);

// Runs one shutdown step and logs its time at debug level.
template <typename Step>
void TimedStep(absl::string_view what, Step step) {
  const absl::Time start = absl::Now();
  step();
  if (LogEnabled(LogLevel::kDebug)) {
    LogDebug(absl::StrCat("shutdown: ", what, " in ",
                          absl::FormatDuration(absl::Trunc(
                              absl::Now() - start, absl::Microseconds(100)))));
  }
}

// What the SIGHUP reloader sees: the pipeline's reloadable flags, the
// reference sources (--source) and, with an NTS-KE server, its certificate
// and key (--nts_cert, --nts_key).
class ReloadTargets : public PipelineFactory {
 public:
  ReloadTargets(PipelineFactory* pipeline, servo::ControlPlane* control,
                NtsKeServer* nts_ke)
      : pipeline_(pipeline), sources_(control), nts_ke_(nts_ke) {}
  absl::Status RegisterNames(CounterNames& names) override {
    return pipeline_->RegisterNames(names);
  }
  absl::StatusOr<Pipeline> Create(const WorkerSetup& setup) override {
    return pipeline_->Create(setup);
  }
  std::vector<std::string> ReloadableFlags() const override {
    std::vector<std::string> f = pipeline_->ReloadableFlags();
    for (std::string& n : sources_.ReloadableFlags()) f.push_back(n);
    if (nts_ke_ != nullptr) {
      for (std::string& n : nts_ke_->ReloadableFlags()) f.push_back(n);
    }
    return f;
  }
  absl::Status Reload(const ReloadArgs& reload) override {
    ZG_RETURN_IF_ERROR(pipeline_->Reload(reload));
    ZG_RETURN_IF_ERROR(sources_.Reload(reload));
    return nts_ke_ == nullptr ? absl::OkStatus() : nts_ke_->Reload(reload);
  }
  // What the latest reload did to the sources (none: nothing).
  const std::optional<servo::SourceChangeResult>& source_result() const {
    return sources_.last_result();
  }

 private:
  PipelineFactory* pipeline_;
  SourceReload sources_;
  NtsKeServer* nts_ke_;
};

class Daemon {
 public:
  Daemon(DaemonConfig config, PipelineFactory* factory,
         std::vector<std::string> app_args, NtsKeystoreSource nts_keystore)
      : config_(std::move(config)),
        factory_(factory),
        app_args_(std::move(app_args)),
        nts_keystore_(std::move(nts_keystore)) {}
  ~Daemon() { TearDown(); }

  int Run(std::vector<char*> eal_argv);

 private:
  // One port's state: the device, its XDP program, stamps and clocks.
  struct ServingPort {
    ServedPort config;  // name, addresses, VLAN
    std::unique_ptr<Port> port;
    std::string xdp_iface;       // set when the XDP program was configured
    bool xdp_rx_stamps = false;  // the XDP program appends RX stamps
    std::string xdp_phc;  // zg_xdp_hwts.o swapped in: its PHC (/dev/ptpN)
    // The stamp plan and the clock of its RX stamps (stamps->nic()).
    std::unique_ptr<PortStamps> stamps;
    // Written by: control thread. Read by: workers (once per burst).
    std::unique_ptr<core::PublishedClock> nic_clock =
        std::make_unique<core::PublishedClock>();
    std::unique_ptr<core::PublishedClock> timesync_clock =
        std::make_unique<core::PublishedClock>();  // PTP's timesync stamps
  };
  // Opens and starts every --port; a port that fails is reported and left
  // out (failed_ports_), and the others serve. Fails if none starts.
  absl::Status SetUpPorts();
  absl::Status SetUpPort(ServingPort& p, unsigned queues);
  absl::Status SetUpXdpSteering(ServingPort& p);
  // --xdp_rx_metadata: zg_xdp_hwts.o for zg_xdp.o where it can (logs why
  // not otherwise); sets p.xdp_phc.
  void SwapInXdpRxMetadata(ServingPort& p, const std::string& iface,
                           const std::string& xdp_prog);
  absl::Status SetUpStamps(ServingPort& p);
  // Each worker queue's launch times, where the plan schedules TX.
  TxScheduler::Config TxScheduling(const ServingPort& p) const;
  // Every configured port, started or not, in --port order, and whether its
  // link is up (a port that failed to start is down).
  std::vector<std::pair<std::string, bool>> PortLinks() const;
  // stats_ of worker w on port k.
  WorkerStats& StatsOf(size_t w, size_t k) {
    return stats_[w * ports_.size() + k];
  }
  absl::Status SetUpControlPlane();
  absl::Status SetUpWorkers();
  absl::Status SetUpNtsKe();
  absl::Status SetUpReload();
  absl::Status StartMetrics();
  // The alarms only the data plane can judge, the data plane's status
  // snapshot, and the SNMP subagent.
  absl::Status SetUpAlarms();
  // Feeds DaemonAlarms before each control Tick.
  void UpdateAlarms();
  // Drain files, health, the anycast route (fleet_control.h); before Tick.
  absl::Status SetUpFleet();
  void StepFleet(int64_t mono_ns);
  // Samples and publishes the data plane's status for other threads (the
  // control socket, SNMP), with the pipeline's alarms and PTP port.
  void PublishDataplane();
  // The operator side: zgctl's control socket and the snapshots it reads.
  absl::Status SetUpService();
  // The status page (--status_address): the command table's reads, its
  // changes for users, on threads of its own.
  absl::Status SetUpStatusPage();
  // What SIGHUP does, and zgctl reload: audit log reopen, leap file and
  // flagfile reload, recorded with `reason`. Control thread.
  ReloadOutcome Reload(const std::string& reason);
  // Returns why it stopped (for the audit log's stop record).
  std::string ControlLoop();
  // The service manager's side of the control loop (service_notify.h):
  // READY=1 once, STATUS= each stats interval, WATCHDOG=1 while every
  // worker progresses.
  void NotifyServiceManager(absl::Time now);
  std::string StatusLine(absl::Time now);
  void StopWorkers();
  // Stops and frees everything in teardown order, each step timed (debug
  // log); the destructor calls it for the paths that return early.
  void TearDown();
  void Report();
  void ReportClock();

  DaemonConfig config_;
  PipelineFactory* factory_;
  std::vector<std::string> app_args_;  // flags as given, for SIGHUP reloads
  NtsKeystoreSource nts_keystore_;     // for the NTS-KE server
  // The NTS-KE server's own thread (--nts_ke_address; null without).
  std::unique_ptr<NtsKeServer> nts_ke_;
  std::unique_ptr<ReloadTargets> reload_targets_;
  // Declaration order is teardown order, reversed: workers stop first, the
  // EAL is cleaned up last, and the ports' claim released after it.
  std::unique_ptr<PortClaim> claim_;
  std::unique_ptr<Eal> eal_;
  std::vector<unsigned> lcores_;
  std::unique_ptr<MbufPools> pools_;
  // The ports that started, in --port order.
  std::vector<ServingPort> ports_;
  // The --port values that failed to start: name, why (reported as down).
  std::vector<std::pair<std::string, std::string>> failed_ports_;
  // Written by: control thread. Read by: workers (once per burst).
  core::PublishedClock tsc_clock_;
  // Reads each port's stamps->nic() (declared after: destroyed first).
  std::unique_ptr<servo::ControlPlane> control_;
  std::unique_ptr<ConfigReloader> reloader_;  // audits through control_
  CounterNames names_;
  // One per worker and port (StatsOf(w, k)): written by worker w, read by
  // the control thread.
  std::unique_ptr<WorkerStats[]> stats_;
  size_t stats_count_ = 0;
  // Written by: control thread. Read by: workers.
  std::atomic<bool> stop_{false};
  std::unique_ptr<WorkerGroup> group_;
  std::unique_ptr<MetricsExporter> exporter_;
  // systemd: notifications and the watchdog's view of the workers.
  ServiceNotifier notifier_ = ServiceNotifier::FromEnvironment();
  std::unique_ptr<WorkerWatch> watch_;
  std::unique_ptr<TestStallHook> stall_hook_;  // --test_stall_file only
  bool ready_ = false;                         // READY=1 sent
  absl::Time next_watchdog_;                   // when WATCHDOG=1 is next due
  absl::Time last_status_ = absl::InfinitePast();  // request counts' time
  uint64_t last_ntp_ = 0, last_ptp_ = 0;           // requests handled by then
  absl::Time stop_requested_;  // the signal or --run_for, for the total
  bool torn_down_ = false;
  std::unique_ptr<DaemonAlarms> daemon_alarms_;
  // Drain and the anycast route (its BIRD thread); after daemon_alarms_.
  std::unique_ptr<FleetControl> fleet_;
  std::optional<core::UtcNs> nts_cert_not_after_;
  // The data plane's status: written by the control thread (each stats
  // interval), read by the SNMP and control socket threads. Reads stats_,
  // ports_ (their stamps) and the exporter's module families.
  std::unique_ptr<DataplaneStatusSource> dataplane_status_;
  std::unique_ptr<snmp::SnmpAgent> snmp_;  // --snmp_agentx; stopped first
  // zgctl's control socket; stopped first.
  std::unique_ptr<DaemonService> service_;
  // The status page: runs service_'s commands, so declared after it
  // (destroyed before it) and stopped before it.
  std::unique_ptr<StatusPageService> status_page_;
};

int Daemon::Run(std::vector<char*> eal_argv) {
  SendDpdkLogToJournal();
  // Before the EAL opens the devices: one zeitgeberd per port.
  absl::StatusOr<std::unique_ptr<PortClaim>> claim = PortClaim::Acquire(
      absl::MakeConstSpan(eal_argv).subspan(1), kPortClaimWait);
  if (!claim.ok()) {
    LogError(claim.status().message());
    return kExitPort;
  }
  claim_ = std::move(*claim);
  absl::StatusOr<std::unique_ptr<Eal>> eal =
      Eal::Init(static_cast<int>(eal_argv.size()), eal_argv.data());
  if (!eal.ok()) {
    LogError(eal.status().message());
    return kExitEal;
  }
  eal_ = std::move(*eal);
  lcores_ = WorkerLcores();
  if (lcores_.empty()) {
    LogError(
        "no worker lcores: give the EAL at least two cores, e.g. -l 0-1 "
        "(the first runs the control thread, the others one worker each)");
    return kExitEal;
  }
  if (absl::Status s = SetUpPorts(); !s.ok()) {
    LogError(s.message());
    return kExitPort;
  }
  if (config_.nic_check) {
    return RunNicCheck(*ports_.front().port, *ports_.front().stamps,
                       pools_.get());
  }
  if (absl::Status s = SetUpControlPlane(); !s.ok()) {
    LogError(s.message());
    return kExitControl;
  }
  if (absl::Status s = SetUpWorkers(); !s.ok()) {
    LogError(s.message());
    return kExitPipeline;
  }
  if (absl::Status s = SetUpNtsKe(); !s.ok()) {
    LogError(s.message());
    return kExitConfig;
  }
  if (absl::Status s = SetUpReload(); !s.ok()) {
    LogError(s.message());
    return kExitConfig;
  }
  if (absl::Status s = StartMetrics(); !s.ok()) {
    LogError(s.message());
    return kExitMetrics;
  }
  if (absl::Status s = SetUpAlarms(); !s.ok()) {
    LogError(s.message());
    return kExitConfig;
  }
  if (absl::Status s = SetUpFleet(); !s.ok()) {
    LogError(s.message());
    return kExitConfig;
  }
  if (absl::Status s = SetUpService(); !s.ok()) {
    LogError(s.message());
    return kExitControlSocket;
  }
  if (absl::Status s = SetUpStatusPage(); !s.ok()) {
    LogError(s.message());
    return kExitStatusPage;
  }
  InstallSignalHandlers();
  if (!config_.service.test_stall_file.empty()) {
    stall_hook_ = std::make_unique<TestStallHook>(
        config_.service.test_stall_file, lcores_.size());
  }
  group_ = std::make_unique<WorkerGroup>();
  std::vector<std::unique_ptr<Worker>> workers;
  for (size_t i = 0; i < lcores_.size(); ++i) {
    // Worker i serves queue i of every port: RSS spreads each port's
    // clients over its queues by address, so one client reaches one worker
    // per port, and the worker's per-client tables see all its packets.
    WorkerSetup setup{lcores_[i],
                      static_cast<unsigned>(i),
                      static_cast<unsigned>(lcores_.size()),
                      {},
                      config_.addresses,
                      config_.vlan_id,
                      control_->tsc().calibration().hz};
    std::vector<WorkerQueue> queues;
    for (size_t k = 0; k < ports_.size(); ++k) {
      const ServingPort& sp = ports_[k];
      const Port& port = *sp.port;
      WorkerPort wp{
          port.id(),
          static_cast<uint16_t>(i),
          port.mac(),
          port.mtu(),
          port.tx_offloads(),
          sp.stamps->plan(),
          sp.stamps->timesync() != nullptr ? sp.timesync_clock.get() : nullptr,
          port.link().speed_mbps,
          port.steers_by_address()};
      wp.own_addresses = true;
      wp.addresses = sp.config.addresses;
      wp.vlan_id = sp.config.vlan_id;
      wp.name = port.name();
      setup.ports.push_back(std::move(wp));
      Timestamper::Config stamping{&tsc_clock_, nullptr, {}};
      if (sp.stamps->nic() != nullptr) {
        stamping.nic_clock = sp.nic_clock.get();
        stamping.nic_field = sp.stamps->field();
      }
      queues.push_back({port.queue(static_cast<uint16_t>(i)), stamping,
                        port.tx_offloads(), sp.stamps->plan(), TxScheduling(sp),
                        &StatsOf(i, k)});
    }
    absl::StatusOr<Pipeline> pipeline = factory_->Create(setup);
    if (!pipeline.ok()) {
      LogError(absl::StrCat("worker ", i, ": ", pipeline.status().message()));
      return kExitPipeline;
    }
    workers.push_back(std::make_unique<Worker>(
        std::move(queues), std::move(*pipeline), &StatsOf(i, 0), &stop_));
    workers.back()->SetIdleSleep(
        static_cast<uint64_t>(absl::ToInt64Nanoseconds(config_.idle_sleep)));
    if (stall_hook_ != nullptr)
      workers.back()->SetTestStall(stall_hook_->flag(i));
    if (absl::Status s = workers.back()->AttachEpochs(&DataplaneEpochs(), i);
        !s.ok()) {
      LogError(s.message());
      return kExitPipeline;
    }
  }
  // The pipeline's own families, once every worker's pipeline exists.
  for (auto& c : factory_->ScrapeCollectables()) {
    exporter_->AddCollectable(std::move(c));
  }
  if (absl::Status s = group_->Launch(std::move(workers)); !s.ok()) {
    LogError(s.message());
    StopWorkers();
    return kExitPipeline;
  }
  std::vector<const WorkerStats*> watched;
  for (size_t i = 0; i < lcores_.size(); ++i) watched.push_back(&StatsOf(i, 0));
  watch_ = std::make_unique<WorkerWatch>(std::move(watched), lcores_,
                                         control_->tsc().calibration().hz,
                                         config_.service.worker_stall_limit);
  LogInfo(absl::StrCat(
      "zeitgeberd running: ", lcores_.size(), " worker(s) on lcore(s) ",
      absl::StrJoin(lcores_, ","), ", port(s) ",
      absl::StrJoin(ports_, ", ", [](std::string* out, const ServingPort& p) {
        absl::StrAppend(out, p.port->name());
      })));
  const std::string why = ControlLoop();
  stop_requested_ = absl::Now();
  notifier_.Stopping(why);
  TimedStep("anycast route withdrawn",
            [&] { fleet_->WithdrawForExit(absl::Seconds(1)); });
  // zgctl sees the daemon gone from here on.
  TimedStep("status page closed", [&] { status_page_.reset(); });
  TimedStep("control socket closed", [&] { service_.reset(); });
  TimedStep("SNMP subagent stopped", [&] { snmp_.reset(); });
  TimedStep("NTS-KE server stopped", [&] {
    if (nts_ke_ != nullptr) nts_ke_->Stop();
  });
  TimedStep("workers drained and stopped", [&] { StopWorkers(); });
  TimedStep("control plane stopped", [&] { control_->Stop(why); });
  TimedStep("final report", [&] { Report(); });
  TearDown();
  LogInfo(absl::StrCat("stopped in ", absl::FormatDuration(absl::Trunc(
                                          absl::Now() - stop_requested_,
                                          absl::Milliseconds(1)))));
  return kExitOk;
}

absl::Status Daemon::SetUpPorts() {
  const unsigned queues = static_cast<unsigned>(lcores_.size());
  const unsigned all_queues =
      queues * static_cast<unsigned>(config_.ports.size());
  pools_ = std::make_unique<MbufPools>(config_.mbufs_per_socket != 0
                                           ? config_.mbufs_per_socket
                                           : AutoMbufs(config_, all_queues));
  for (const ServedPort& served : config_.ports) {
    ServingPort p;
    p.config = served;
    absl::Status s = SetUpPort(p, queues);
    if (s.ok()) s = SetUpXdpSteering(p);
    if (s.ok()) s = SetUpStamps(p);
    if (!s.ok()) {
      if (config_.ports.size() > 1) {
        LogError(
            absl::StrCat("port ", served.name,
                         " failed to start, the others serve: ", s.message()));
      }
      failed_ports_.push_back({served.name, std::string(s.message())});
      continue;
    }
    ports_.push_back(std::move(p));
  }
  if (ports_.empty()) {
    return failed_ports_.size() == 1
               ? absl::UnavailableError(failed_ports_.front().second)
               : absl::UnavailableError("no --port started");
  }
  return absl::OkStatus();
}

absl::Status Daemon::SetUpPort(ServingPort& p, unsigned queues) {
  PortOptions o;
  o.name = p.config.name;
  o.num_queues = static_cast<uint16_t>(queues);
  o.rx_desc = config_.rx_desc;
  o.tx_desc = config_.tx_desc;
  o.mtu = config_.mtu;
  o.rx_timestamp = config_.hw_timestamps;
  o.timesync = config_.timesync;
  o.tx_schedule = config_.stamps.tx_schedule == TxScheduleMode::kAuto;
  o.tx_checksum_offload = config_.tx_checksum_offload;
  for (unsigned lcore : lcores_) {
    o.queue_sockets.push_back(static_cast<int>(rte_lcore_to_socket_id(lcore)));
  }
  ZG_ASSIGN_OR_RETURN(p.port, Port::Open(o, pools_.get()));
  ZG_RETURN_IF_ERROR(p.port->Start());
  LogInfo(p.port->Describe());
  return absl::OkStatus();
}

absl::Status Daemon::SetUpXdpSteering(ServingPort& p) {
  const Port& port = *p.port;
  if (port.caps().driver != "net_af_xdp") return absl::OkStatus();
  const std::string devargs = port.devargs();
  const std::optional<std::string> iface = DevargValue(devargs, "iface");
  if (!DevargValue(devargs, "xdp_prog").has_value()) {
    LogWarning(absl::StrCat(
        port.name(),
        ": AF_XDP without xdp_prog=: the PMD's default program sends every "
        "frame of the queue to zeitgeberd, so the kernel no longer sees ARP, "
        "ICMP or SSH on ",
        iface.value_or("the interface"),
        ". Use xdp_prog=<builddir>/dataplane/zg_xdp.o"));
    return absl::OkStatus();
  }
  // Which program is ours, should this process be killed (port_claim.h).
  if (iface.has_value()) claim_->RecordXdpProgram(*iface);
  if (!config_.xdp_steering || !iface.has_value()) return absl::OkStatus();
  if (p.config.addresses.empty()) {
    LogWarning(absl::StrCat("XDP steering on ", *iface,
                            ": no address to serve, so nothing is steered"));
  }
  p.xdp_rx_stamps = config_.xdp_rx_timestamps && !config_.fake_nic_clock;
  ZG_RETURN_IF_ERROR(
      ConfigureXdpSteering(*iface, p.config.addresses, p.config.vlan_id,
                           factory_->WantsPtpGroups(), p.xdp_rx_stamps));
  if (p.xdp_rx_stamps && config_.stamps.xdp_rx_metadata) {
    SwapInXdpRxMetadata(p, *iface, *DevargValue(devargs, "xdp_prog"));
  }
  p.xdp_iface = *iface;
  LogInfo(absl::StrCat("XDP steering on ", *iface, ": UDP 123/319/320 to ",
                       p.config.addresses.size(), " address(es), vlan ",
                       p.config.vlan_id, "; everything else to the kernel"));
  return absl::OkStatus();
}

TxScheduler::Config Daemon::TxScheduling(const ServingPort& p) const {
  TxScheduler::Config c;
  if (p.stamps->plan().ntp_tx != TxStampSource::kScheduled) return c;
  c.field = p.port->tx_launch_field();
  c.lead_ns = p.stamps->plan().tx_schedule_lead_ns;
  c.link_mbps = p.port->link().speed_mbps;  // 0 (down, unknown): 10G
  return c;
}

void Daemon::SwapInXdpRxMetadata(ServingPort& p, const std::string& iface,
                                 const std::string& xdp_prog) {
  const std::optional<std::string> phc = InterfacePhc(iface);
  if (!phc.has_value()) {
    LogInfo(absl::StrCat("--xdp_rx_metadata: ", iface,
                         " has no PTP hardware clock (ethtool -T), so its "
                         "driver has no RX hardware stamps; keeping ",
                         xdp_prog, " (kernel receive times)"));
    return;
  }
  const size_t slash = xdp_prog.rfind('/');
  const std::string hwts =
      (slash == std::string::npos ? std::string()
                                  : xdp_prog.substr(0, slash + 1)) +
      "zg_xdp_hwts.o";
  if (absl::Status s = SwapInXdpHwts(iface, hwts); !s.ok()) {
    LogWarning(absl::StrCat("--xdp_rx_metadata: keeping ", xdp_prog, ": ",
                            s.message()));
    return;
  }
  p.xdp_phc = *phc;
  LogInfo(absl::StrCat("--xdp_rx_metadata: ", hwts, " on ", iface,
                       ": RX stamps from the driver (", *phc,
                       ") where it has them"));
}

absl::Status Daemon::SetUpStamps(ServingPort& p) {
  PortStampOptions o{.fake_nic_clock = config_.fake_nic_clock,
                     .flags = config_.stamps};
  o.flags.xdp_rx_stamps = p.xdp_rx_stamps;
  o.xdp_phc = p.xdp_phc;
  ZG_ASSIGN_OR_RETURN(p.stamps, PortStamps::SetUp(*p.port, o));
  LogInfo(p.stamps->Describe());
  if (config_.fake_nic_clock) {
    LogWarning("--fake_nic_clock: RX stamps come from a synthetic NIC clock");
  }
  return absl::OkStatus();
}

std::vector<std::pair<std::string, bool>> Daemon::PortLinks() const {
  std::vector<std::pair<std::string, bool>> out;
  for (const ServedPort& served : config_.ports) {
    bool up = false;
    for (const ServingPort& p : ports_) {
      if (p.config.name == served.name) up = p.port->link().up;
    }
    out.push_back({served.name, up});
  }
  return out;
}

absl::Status Daemon::SetUpControlPlane() {
  servo::ControlPlaneConfig c = config_.control;
  c.version = ZG_VERSION;
  c.log = &ControlLog;
  for (const ServedPort& served : config_.ports) {
    c.settings.push_back({"port", served.name});
  }
  c.settings.push_back(
      {"publish_interval", absl::FormatDuration(config_.publish_interval)});
  c.settings.push_back(
      {"idle_sleep", absl::FormatDuration(config_.idle_sleep)});
  if (c.audit.path.empty()) {
    LogWarning(
        "no --audit_log: source, selection and holdover changes go to this "
        "log only");
  }
  ZG_ASSIGN_OR_RETURN(control_,
                      servo::ControlPlane::Create(std::move(c), &tsc_clock_));
  bool nic_clocks = false;
  for (ServingPort& p : ports_) {
    if (NicClock* nic = p.stamps->nic(); nic != nullptr) {
      // Before any worker runs: the first Tick publishes the NIC model too.
      control_->AddNicClock(nic->name(), NicClockReader(nic),
                            p.nic_clock.get());
      nic_clocks = true;
    }
    if (NicClock* ts = p.stamps->timesync(); ts != nullptr) {
      // PTP's hardware stamps: the timesync registers' own clock, tracked
      // (and its correlation error bounded) like the RX-stamp clock.
      control_->AddNicClock(ts->name(), NicClockReader(ts),
                            p.timesync_clock.get());
      nic_clocks = true;
    }
  }
  if (nic_clocks) control_->Tick();
  const servo::TscCalibration cal = control_->tsc().calibration();
  LogInfo(absl::StrCat("control plane: TSC ", static_cast<int64_t>(cal.hz),
                       " Hz (+-", cal.uncertainty_ppb,
                       " ppb against CLOCK_MONOTONIC_RAW; DPDK says ",
                       rte_get_tsc_hz(), " Hz), ",
                       control_->discipline().source_count(), " source(s)"));
  return absl::OkStatus();
}

absl::Status Daemon::SetUpWorkers() {
  ZG_RETURN_IF_ERROR(factory_->RegisterNames(names_));
  stats_count_ = lcores_.size() * ports_.size();
  stats_ = std::make_unique<WorkerStats[]>(stats_count_);
  return absl::OkStatus();
}

absl::Status Daemon::SetUpNtsKe() {
  if (!config_.nts_ke.enabled()) return absl::OkStatus();
  if (!nts_keystore_ || nts_keystore_() == nullptr) {
    return absl::FailedPreconditionError(
        "--nts_ke_address needs --nts_master_key (the NTS cookie keys)");
  }
  ZG_ASSIGN_OR_RETURN(nts_ke_,
                      NtsKeServer::Start(config_.nts_ke, nts_keystore_));
  return absl::OkStatus();
}

absl::Status Daemon::SetUpReload() {
  reload_targets_ =
      std::make_unique<ReloadTargets>(factory_, control_.get(), nts_ke_.get());
  ZG_ASSIGN_OR_RETURN(
      reloader_,
      ConfigReloader::Create({.args = app_args_,
                              .factory = reload_targets_.get(),
                              .audit = [this](auto values) {
                                control_->RecordConfigChange(std::move(values));
                              }}));
  const std::vector<std::string> flags = reload_targets_->ReloadableFlags();
  LogInfo(flags.empty() ? std::string("reload: SIGHUP reloads no flag")
                        : absl::StrCat("reload: SIGHUP reloads --",
                                       absl::StrJoin(flags, ", --")));
  return absl::OkStatus();
}

absl::Status Daemon::StartMetrics() {
  std::vector<MetricsExporter::WorkerSource> workers;
  for (size_t i = 0; i < lcores_.size(); ++i) {
    for (size_t k = 0; k < ports_.size(); ++k) {
      workers.push_back({&StatsOf(i, k), absl::StrCat(i),
                         absl::StrCat(lcores_[i]), ports_[k].port->name()});
    }
  }
  std::vector<MetricsExporter::ClockSource> clocks = {{&tsc_clock_, "tsc"}};
  std::vector<Port*> ports;
  for (const ServingPort& p : ports_) {
    if (p.stamps->nic() != nullptr) {
      clocks.push_back(
          {p.nic_clock.get(), absl::StrCat("nic:", p.stamps->nic()->name())});
    }
    if (p.stamps->timesync() != nullptr) {
      clocks.push_back({p.timesync_clock.get(), p.stamps->timesync()->name()});
    }
    ports.push_back(p.port.get());
  }
  ZG_ASSIGN_OR_RETURN(
      exporter_, MetricsExporter::Start(config_.metrics_address, &names_,
                                        std::move(workers), std::move(clocks),
                                        std::move(ports),
                                        static_cast<double>(rte_get_tsc_hz())));
  exporter_->AttachControlPlane(control_.get());
  for (const ServingPort& p : ports_) {
    ZG_RETURN_IF_ERROR(p.stamps->AddMetrics(exporter_->registry()));
  }
  ZG_RETURN_IF_ERROR(reloader_->AddMetrics(exporter_->registry()));
  if (nts_ke_ != nullptr) {
    exporter_->AddCollectable(nts_ke_->ScrapeCollectable());
  }
  if (!config_.metrics_address.empty()) {
    LogInfo(absl::StrCat("metrics on http://", config_.metrics_address,
                         "/metrics (port ", exporter_->listening_port(), ")"));
  }
  return absl::OkStatus();
}

absl::Status Daemon::SetUpAlarms() {
  exporter_->AttachAlarms(control_.get());
  daemon_alarms_ = std::make_unique<DaemonAlarms>(
      &control_->alarms(),
      [&] {
        std::vector<std::string> names;
        for (const ServedPort& served : config_.ports) {
          names.push_back(served.name);
        }
        return names;
      }(),
      lcores_.size(), static_cast<double>(rte_get_tsc_hz()));
  if (config_.nts_ke.enabled() && !config_.nts_ke.cert_path.empty()) {
    absl::StatusOr<core::UtcNs> t =
        CertificateNotAfter(config_.nts_ke.cert_path);
    if (t.ok()) nts_cert_not_after_ = *t;
  }
  std::vector<DataplaneStatusSource::Worker> workers;
  for (size_t i = 0; i < lcores_.size(); ++i) {
    for (size_t k = 0; k < ports_.size(); ++k) {
      workers.push_back({&StatsOf(i, k), static_cast<unsigned>(i), lcores_[i],
                         ports_[k].port->name()});
    }
  }
  std::vector<DataplaneStatusSource::PortSource> port_sources;
  for (const ServingPort& p : ports_) {
    port_sources.push_back({p.port.get(), p.stamps.get()});
  }
  std::vector<std::string> absent;
  for (const auto& [name, why] : failed_ports_) absent.push_back(name);
  dataplane_status_ =
      std::make_unique<DataplaneStatusSource>(DataplaneStatusSource::Options{
          .workers = std::move(workers),
          .ports = std::move(port_sources),
          .absent_ports = std::move(absent),
          .names = &names_,
          .exporter = exporter_.get(),
          .tsc_clock = &tsc_clock_,
          .tsc_hz = control_->tsc().calibration().hz});
  UpdateAlarms();
  PublishDataplane();
  if (config_.alarms.snmp_agentx.empty()) return absl::OkStatus();
  snmp::SnmpAgent::Options o;
  o.agentx_socket = config_.alarms.snmp_agentx;
  o.heartbeat_interval = config_.alarms.snmp_heartbeat_interval;
  o.software_version = ZG_VERSION;
  o.snapshots = control_.get();
  o.dataplane = dataplane_status_.get();
  o.log = [](const std::string& m) { LogInfo(m); };
  ZG_ASSIGN_OR_RETURN(snmp_, snmp::SnmpAgent::Start(std::move(o)));
  return absl::OkStatus();
}

void Daemon::UpdateAlarms() {
  const int64_t mono = servo::MonotonicNs(servo::RealSystemClockOps());
  std::vector<bool> links;
  for (const auto& [name, up] : PortLinks()) links.push_back(up);
  daemon_alarms_->UpdateLinks(links, mono);
  std::vector<uint64_t> beats(lcores_.size());
  for (size_t i = 0; i < lcores_.size(); ++i) {
    beats[i] = StatsOf(i, 0).heartbeat_tsc.Load();
  }
  daemon_alarms_->UpdateWorkers(beats, core::ReadTsc(), mono);
  // The draining alarm: FleetControl (zgctl drain, the drain files).
  if (nts_ke_ != nullptr) {
    NtsKeServer::Refusals r = nts_ke_->refusals();
    daemon_alarms_->UpdateNtsKe(
        {r.rate_limited, r.full, std::move(r.top_source)}, nts_cert_not_after_,
        core::UtcNs{absl::GetCurrentTimeNanos()}, mono);
  }
}

absl::Status Daemon::SetUpFleet() {
  fleet_ = std::make_unique<FleetControl>(
      config_.fleet,
      FleetControl::Hooks{.audit =
                              [this](auto values) {
                                control_->RecordConfigChange(std::move(values));
                              },
                          .alarms = daemon_alarms_.get()});
  ZG_RETURN_IF_ERROR(fleet_->Start());
  return fleet_->AddMetrics(exporter_->registry());
}

void Daemon::StepFleet(int64_t mono_ns) {
  servo::HealthInputs h;
  h.sync = control_->discipline().status().state;
  if (watch_ != nullptr) h.stalled_workers = watch_->StalledWorkers();
  // Every port serves the same service (one anycast address per server):
  // any port down, or never started, is a port serving it down.
  for (const auto& [name, up] : PortLinks()) {
    if (!up) h.ports_down.push_back(name);
  }
  fleet_->Step(h, mono_ns);
}

void Daemon::PublishDataplane() {
  dataplane_status_->Sample([this](servo::DataplaneStatus& d) {
    factory_->Observe({&control_->alarms(),
                       servo::MonotonicNs(servo::RealSystemClockOps()), &d});
  });
}

absl::Status Daemon::SetUpService() {
  DaemonService::Hooks hooks;
  hooks.control = control_.get();
  hooks.reload = [this](const std::string& reason) { return Reload(reason); };
  hooks.ptp_subscribers = [this](uint32_t top,
                                 PipelineFactory::PtpSubscribersDone done) {
    factory_->QueryPtpSubscribers(top, std::move(done));
  };
  hooks.ntp_clients = [this](const core::NtpClientQuery& q) {
    return factory_->QueryNtpClients(q, tsc_clock_);
  };
  hooks.drain = [this](bool drain, const std::string& who) {
    fleet_->SetOperatorDrain(drain, who);
    StepFleet(servo::MonotonicNs(servo::RealSystemClockOps()));
  };
  hooks.fleet_status = [this](servo::ServiceStatus& s) {
    s.drain = fleet_->drain_state();
    s.drain_reason = fleet_->drain().reason();
    if (!fleet_->config().anycast_enabled()) return;
    s.anycast = fleet_->policy().announce() ? "announced" : "withdrawn";
    s.anycast_why = fleet_->withdrawn_why();
    const std::shared_ptr<const servo::BirdStatus> b = fleet_->bird();
    s.bird_reachable = b != nullptr && b->reachable;
  };
  ZG_ASSIGN_OR_RETURN(service_, DaemonService::Start(
                                    {.socket = config_.control_socket,
                                     .audit_log = config_.control.audit.path,
                                     .version = ZG_VERSION},
                                    std::move(hooks), dataplane_status_.get()));
  return absl::OkStatus();
}

ReloadOutcome Daemon::Reload(const std::string& reason) {
  control_->Reopen(reason);
  ReloadOutcome out = reloader_->Reload(reason);
  daemon_alarms_->OnReload(out.ok, out.error,
                           servo::MonotonicNs(servo::RealSystemClockOps()));
  if (config_.nts_ke.enabled() && !config_.nts_ke.cert_path.empty()) {
    absl::StatusOr<core::UtcNs> t =
        CertificateNotAfter(config_.nts_ke.cert_path);
    if (t.ok()) nts_cert_not_after_ = *t;
  }
  out.sources = reload_targets_->source_result();
  if (status_page_ != nullptr) {
    if (absl::Status s = status_page_->Reload(); !s.ok()) {
      LogWarning(absl::StrCat("status page: ", s.message(),
                              "; the previous certificate and users stay"));
    }
  }
  return out;
}

absl::Status Daemon::SetUpStatusPage() {
  if (!config_.status_page.enabled) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(
      status_page_,
      StatusPageService::Start(config_.status_page,
                               {.commands = &service_->commands(),
                                .requests = &service_->requests(),
                                .control = control_.get(),
                                .audit_log = config_.control.audit.path}));
  LogInfo(absl::StrCat("status page on ",
                       status_page_->https() ? "https://" : "http://",
                       config_.status_page.options.address, "/"));
  return absl::OkStatus();
}

std::string Daemon::ControlLoop() {
  const absl::Time start = absl::Now();
  absl::Time next_stats = start;
  // Why, once a stop that waits for the drain grace is under way.
  std::string stopping;
  // A signal or --run_for: "" to go on, or why the loop must end now.
  auto stop_now = [&](absl::Time now) -> std::string {
    std::string why;
    if (const int sig = g_signal.exchange(0, std::memory_order_relaxed);
        sig != 0) {
      why = absl::StrCat("signal ", sig, " (", strsignal(sig), ")");
    } else if (stopping.empty() && config_.run_for > absl::ZeroDuration() &&
               now - start >= config_.run_for) {
      why = absl::StrCat("--run_for=", absl::FormatDuration(config_.run_for),
                         " elapsed");
    }
    if (!why.empty()) {
      if (!stopping.empty()) {
        LogInfo(absl::StrCat(why, " while draining: stopping now"));
        return stopping;
      }
      if (!fleet_->StopNeedsGrace()) {
        LogInfo(absl::StrCat(why, ": stopping"));
        return why;
      }
      // ntpresponder's order: withdraw first, answer through the grace.
      LogInfo(absl::StrCat(
          why, ": withdrawing the anycast route, answering for --drain_grace=",
          absl::FormatDuration(config_.fleet.drain_grace),
          ", then stopping (signal again to stop at once)"));
      fleet_->Stopping();
      stopping = why;
    }
    if (!stopping.empty() && fleet_->StopReady()) {
      LogInfo(absl::StrCat(stopping, ": drained, stopping"));
      return stopping;
    }
    return "";
  };
  servo::TickSchedule schedule(
      absl::ToInt64Nanoseconds(config_.publish_interval), MonotonicNs());
  for (;;) {
    if (!SleepUntil(schedule.deadline_ns())) {  // a signal
      if (std::string why = stop_now(absl::Now()); !why.empty()) return why;
      continue;
    }
    const uint64_t late_before = schedule.stats().late_ticks;
    schedule.Begin(MonotonicNs());
    if (schedule.stats().late_ticks != late_before) {
      LogWarning(absl::StrCat(
          "control thread: a tick began ",
          absl::FormatDuration(
              absl::Nanoseconds(schedule.stats().last_lateness_ns)),
          " late; the served model aged that much more than planned"));
    }
    const absl::Time now = absl::Now();
    if (std::string why = stop_now(now); !why.empty()) return why;
    if (g_hangup.exchange(false, std::memory_order_relaxed)) {
      LogInfo(
          "SIGHUP: re-opening the audit log, reloading the leap file and "
          "the flagfile's reloadable flags");
      Reload("reload (SIGHUP)");
    }
    DataplaneEpochs().Reclaim();  // configs every worker has moved past
    UpdateAlarms();
    StepFleet(servo::MonotonicNs(servo::RealSystemClockOps()));
    control_->Tick();
    factory_->ControlStep({&tsc_clock_, core::ReadTsc(),
                           control_->tsc().calibration().hz,
                           [this](auto values) {
                             control_->RecordConfigChange(std::move(values));
                           }});
    if (stall_hook_ != nullptr) stall_hook_->Poll();
    NotifyServiceManager(now);
    if (now >= next_stats) {
      for (ServingPort& p : ports_) p.port->PollLink();
      reloader_->UpdateMetrics();
      fleet_->UpdateMetrics();
      exporter_->Update();
      PublishDataplane();
      if (ready_) notifier_.Status(StatusLine(now));
      next_stats = now + config_.stats_interval;
    }
    service_->AfterTick(schedule.stats());
    dataplane_status_->Flush();  // a sample no free slot took, if any
  }
}

void Daemon::NotifyServiceManager(absl::Time now) {
  // Always checked: a stalled worker is logged with or without systemd.
  const bool progressing = watch_->Check(core::ReadTsc());
  if (!notifier_.enabled()) return;
  if (!ready_) {
    if (!watch_->AllPolling() || tsc_clock_.Generation() == 0) return;
    notifier_.Ready(StatusLine(now));
    ready_ = true;
    next_watchdog_ = now;
    LogInfo(absl::StrCat(
        "ready (systemd notified)",
        notifier_.watchdog_timeout() > absl::ZeroDuration()
            ? absl::StrCat("; watchdog ",
                           absl::FormatDuration(notifier_.watchdog_timeout()))
            : ""));
  }
  if (notifier_.watchdog_timeout() <= absl::ZeroDuration() ||
      now < next_watchdog_) {
    return;
  }
  // Withheld while a worker is stalled (WorkerWatch logged why); fed again
  // on the first tick every worker progresses.
  if (progressing) {
    notifier_.Watchdog();
    next_watchdog_ = now + notifier_.watchdog_timeout() / 2;
  }
}

std::string Daemon::StatusLine(absl::Time now) {
  uint64_t ntp = 0, ptp = 0;
  for (size_t i = 0; i < stats_count_; ++i) {
    const auto& handled = stats_[i].handled;
    ntp += handled[static_cast<size_t>(core::FrameKind::kNtp)].Load();
    for (core::FrameKind k :
         {core::FrameKind::kPtpEvent, core::FrameKind::kPtpGeneral,
          core::FrameKind::kPtpL2}) {
      ptp += handled[static_cast<size_t>(k)].Load();
    }
  }
  const double dt = last_status_ == absl::InfinitePast()
                        ? 0
                        : absl::ToDoubleSeconds(now - last_status_);
  const double ntp_rate =
      dt > 0 ? static_cast<double>(ntp - last_ntp_) / dt : 0;
  const double ptp_rate =
      dt > 0 ? static_cast<double>(ptp - last_ptp_) / dt : 0;
  last_status_ = now;
  last_ntp_ = ntp;
  last_ptp_ = ptp;
  return ServiceStatusLine(control_->Snapshot(), ntp_rate, ptp_rate,
                           lcores_.size());
}

void Daemon::StopWorkers() {
  if (group_ == nullptr) return;
  stop_.store(true, std::memory_order_relaxed);
  group_->Join();
  group_.reset();
  DataplaneEpochs().Reclaim();  // every worker is offline: frees them all
}

void Daemon::TearDown() {
  if (torn_down_) return;
  torn_down_ = true;
  // Both read the snapshots, the control plane and the factory.
  TimedStep("status page freed", [&] { status_page_.reset(); });
  TimedStep("control socket freed", [&] { service_.reset(); });
  TimedStep("SNMP subagent freed", [&] { snmp_.reset(); });
  TimedStep("data-plane status freed", [&] { dataplane_status_.reset(); });
  // Its keystore source may point into the factory.
  TimedStep("NTS-KE server freed", [&] { nts_ke_.reset(); });
  TimedStep("workers stopped", [&] { StopWorkers(); });
  // Before the EAL goes: EAL memory the pipeline's control side holds, and
  // configs replaced by reloads.
  TimedStep("pipeline shut down", [&] {
    factory_->Shutdown();
    DataplaneEpochs().Reclaim();
  });
  TimedStep("metrics exporter stopped", [&] { exporter_.reset(); });
  TimedStep("control plane freed", [&] {
    reloader_.reset();  // audits through control_
    control_.reset();   // reads each port's stamps->nic()
  });
  TimedStep("stamps freed", [&] {
    for (ServingPort& p : ports_) p.stamps.reset();
  });
  TimedStep("ports closed", [&] { ports_.clear(); });
  TimedStep("mbuf pools freed", [&] { pools_.reset(); });
  TimedStep("EAL cleaned up", [&] { eal_.reset(); });
  claim_.reset();
}

void Daemon::ReportClock() {
  const servo::ControlPlaneStatus st = control_->Snapshot();
  std::string selected = "none";
  for (const servo::SourceSnapshot& src : st.sources) {
    if (src.discipline.selected) selected = src.name;
  }
  LogInfo(absl::StrCat(
      "final clock: ", servo::SyncStateName(st.discipline.state), ", class ",
      st.model.ptp_quality.clock_class, ", stratum ", st.model.stratum,
      ", bound ", st.discipline.bound_ns, " ns, source ", selected, ", steps ",
      st.discipline.steps, ", audit records ",
      st.audit_enabled ? absl::StrCat(st.audit.records) : "off"));
}

void Daemon::Report() {
  if (nts_ke_ != nullptr) nts_ke_->Report();
  if (exporter_ != nullptr) exporter_->Update();  // final scrape is accurate
  factory_->Report();
  WorkerStatsSnapshot total;
  for (size_t i = 0; i < lcores_.size(); ++i) {
    for (size_t k = 0; k < ports_.size(); ++k) {
      const WorkerStatsSnapshot s = WorkerStatsSnapshot::Of(StatsOf(i, k));
      LogInfo(absl::StrCat("worker ", i, " (lcore ", lcores_[i], ") port ",
                           ports_[k].port->name(), ": rx ", s.rx_packets,
                           " tx ", s.tx_packets, " tx_dropped ", s.tx_dropped,
                           " dropped ", s.TotalDropped(), " bursts ", s.bursts,
                           " hw_stamped ", s.hw_stamped));
      total += s;
    }
  }
  std::string kinds, drops;
  for (size_t k = 0; k < kMaxFrameKinds; ++k) {
    if (total.handled[k] != 0) {
      absl::StrAppend(&kinds, " ", names_.KindName(k), "=", total.handled[k]);
    }
  }
  for (size_t r = 0; r < kMaxDropReasons; ++r) {
    if (total.dropped[r] != 0) {
      absl::StrAppend(&drops, " ", names_.DropReasonName(r), "=",
                      total.dropped[r]);
    }
  }
  LogInfo(absl::StrCat(
      "final counters: rx_packets=", total.rx_packets,
      " rx_bytes=", total.rx_bytes, " tx_packets=", total.tx_packets,
      " tx_bytes=", total.tx_bytes, " tx_dropped=", total.tx_dropped,
      " model_refresh_failures=", total.model_refresh_failures,
      " hw_stamped=", total.hw_stamped, " sw_stamped=", total.sw_stamped,
      " bursts=", total.bursts, " empty_polls=", total.empty_polls));
  LogInfo(absl::StrCat("final handled:", kinds.empty() ? " none" : kinds));
  ReportClock();
  LogInfo(absl::StrCat("final dropped:", drops.empty() ? " none" : drops));
  for (const ServingPort& p : ports_) {
    rte_eth_stats ps{};
    if (rte_eth_stats_get(p.port->id(), &ps) == 0) {
      LogInfo(absl::StrCat("final port ", p.port->name(),
                           ": ipackets=", ps.ipackets,
                           " opackets=", ps.opackets, " imissed=", ps.imissed,
                           " ierrors=", ps.ierrors, " rx_nombuf=", ps.rx_nombuf,
                           " oerrors=", ps.oerrors));
    }
    if (!p.xdp_iface.empty()) {
      absl::StatusOr<XdpSteeringCounters> x =
          ReadXdpSteeringCounters(p.xdp_iface);
      if (x.ok()) {
        LogInfo(absl::StrCat("final xdp ", p.xdp_iface,
                             ": steered=", x->steered, " passed=", x->passed));
      }
    }
  }
}

}  // namespace

int RunDaemon(int argc, char** argv, PipelineFactory& factory,
              NtsKeystoreSource nts_keystore) {
  SplitArgs split = SplitArgs::At(argc, argv);
  if (VersionRequested(split.eal)) {
    PrintVersion(DaemonHelp());
    return 0;
  }
  // zeitgeberd's flags first: a typo stops us before the EAL touches devices.
  absl::StatusOr<DaemonConfig> config = ParseDaemonFlags(split.app);
  if (!config.ok()) {
    LogError(config.status().message());
    return kExitConfig;
  }
  SetLogLevel(config->service.log_level);
  if (absl::Status s = factory.Configure(*config); !s.ok()) {
    LogError(s.message());
    return kExitConfig;
  }
  Daemon daemon(
      std::move(*config), &factory,
      std::vector<std::string>(split.app.begin() + 1, split.app.end()),
      std::move(nts_keystore));
  return daemon.Run(std::move(split.eal));
}

}  // namespace zg::dataplane
