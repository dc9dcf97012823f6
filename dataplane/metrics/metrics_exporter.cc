// SPDX-License-Identifier: Apache-2.0
#include "dataplane/metrics/metrics_exporter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rte_ethdev.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/time/tsc.h"
#include "dataplane/clock/tx_scheduler.h"
#include "dataplane/metrics/alarm_collector.h"
#include "dataplane/metrics/control_metrics.h"
#include "dataplane/metrics/worker_collector.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

namespace zg::dataplane {
namespace {

using prometheus::Counter;
using prometheus::Gauge;
using prometheus::Labels;

constexpr const char* kSyncStates[] = {
    "freerun", "locking", "locked", "holdover_in_spec", "holdover_out_of_spec"};

Labels With(Labels l, const std::string& k, const std::string& v) {
  l[k] = v;
  return l;
}

void Advance(Counter* c, uint64_t now, uint64_t before) {
  if (c != nullptr && now > before)
    c->Increment(static_cast<double>(now - before));
}

}  // namespace

struct MetricsExporter::ClockSeries {
  ClockSource src;
  std::array<Gauge*, std::size(kSyncStates)> state = {};
  Gauge* synchronized = nullptr;
  Gauge* error_bound = nullptr;
  Gauge* stratum = nullptr;
  Gauge* age = nullptr;
  Gauge* utc_offset = nullptr;
  Gauge* clock_class = nullptr;
  Gauge* clock_accuracy = nullptr;
};

struct MetricsExporter::PortSeries {
  Port* port;
  Gauge* link_up = nullptr;
  Gauge* speed = nullptr;
  Gauge* hw = nullptr;
  Counter* missed = nullptr;
  Counter* ierrors = nullptr;
  Counter* nombuf = nullptr;
  Counter* oerrors = nullptr;
  Counter* nic_late = nullptr;  // send-on-timestamp ports only
  uint64_t last_nic_late = 0;
  rte_eth_stats last = {};
};

absl::StatusOr<std::unique_ptr<MetricsExporter>> MetricsExporter::Start(
    const std::string& address, const CounterNames* names,
    std::vector<WorkerSource> workers, std::vector<ClockSource> clocks,
    std::vector<Port*> ports, double tsc_hz) {
  std::unique_ptr<MetricsExporter> e(new MetricsExporter());
  e->names_ = names;
  e->tsc_hz_ = tsc_hz;
  e->registry_ = std::make_shared<prometheus::Registry>();
  e->BuildFamilies();
  e->workers_ =
      std::make_shared<WorkerCollector>(names, std::move(workers), tsc_hz);
  for (ClockSource& c : clocks) {
    auto s = std::make_unique<ClockSeries>();
    s->src = std::move(c);
    e->clocks_.push_back(std::move(s));
  }
  for (Port* p : ports) {
    auto s = std::make_unique<PortSeries>();
    s->port = p;
    e->ports_.push_back(std::move(s));
  }
  e->Update();  // create every series before the first scrape
  if (!address.empty()) {
    try {
      e->exposer_ = std::make_unique<prometheus::Exposer>(address, 1);
    } catch (const std::exception& ex) {
      return absl::UnavailableError(absl::StrCat(
          "cannot serve metrics on ", address, ": ", ex.what(),
          ". Is another process (or another zeitgeberd) using that port? "
          "Pick another with --metrics_address=HOST:PORT, or "
          "--metrics_address= to disable the exporter"));
    }
    e->exposer_->RegisterCollectable(e->registry_);
    e->host_ = address.substr(0, address.rfind(':'));
    e->exposer_->RegisterCollectable(e->workers_);
  }
  return e;
}

namespace {

// Opens and closes one TCP connection to HOST:PORT ("127.0.0.1", "[::1]";
// an unspecified address means loopback), without waiting for it.
void Knock(std::string host, int port) {
  if (host.size() >= 2 && host.front() == '[') {
    host = host.substr(1, host.size() - 2);
  }
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (host.find(':') == std::string::npos) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &a->sin_addr) != 1) return;
    if (a->sin_addr.s_addr == htonl(INADDR_ANY)) {
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    len = sizeof(*a);
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET6, host.c_str(), &a->sin6_addr) != 1) return;
    if (IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr)) a->sin6_addr = in6addr_loopback;
    len = sizeof(*a);
  }
  const int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  (void)connect(fd, reinterpret_cast<sockaddr*>(&ss), len);
  close(fd);
}

}  // namespace

MetricsExporter::~MetricsExporter() {
  if (exposer_ == nullptr) return;
  // civetweb's listening thread polls its sockets for up to 2 s
  // (SOCKET_TIMEOUT_QUANTUM) before it sees the stop request, and the
  // Exposer's destructor waits for it: a connection ends the poll at once.
  const int port = listening_port();
  std::atomic<bool> stopped{false};
  std::thread stopper([this, &stopped] {
    exposer_.reset();
    stopped.store(true, std::memory_order_release);
  });
  while (!stopped.load(std::memory_order_acquire)) {
    Knock(host_, port);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stopper.join();
}

void MetricsExporter::BuildFamilies() {
  auto counter = [&](const std::string& name, const std::string& help) {
    counters_[name] =
        &prometheus::BuildCounter().Name(name).Help(help).Register(*registry_);
  };
  auto gauge = [&](const std::string& name, const std::string& help) {
    gauges_[name] =
        &prometheus::BuildGauge().Name(name).Help(help).Register(*registry_);
  };
  gauge("zeitgeber_clock_sync_state",
        "1 for the published clock's current state, 0 for the others.");
  gauge("zeitgeber_clock_synchronized",
        "1 if time served now may be called synchronised.");
  gauge("zeitgeber_clock_error_bound_seconds",
        "Bound on the published clock's error now, including growth.");
  gauge("zeitgeber_clock_stratum", "NTP stratum served.");
  gauge("zeitgeber_clock_model_age_seconds",
        "Time since the published model's anchor.");
  gauge("zeitgeber_clock_utc_offset_seconds", "TAI - UTC in effect.");
  gauge("zeitgeber_clock_class", "PTP clockClass served.");
  gauge("zeitgeber_clock_accuracy",
        "PTP clockAccuracy served (IEEE 1588 enumeration; 254 unknown).");
  gauge("zeitgeber_port_link_up", "1 if the port's link is up.");
  gauge("zeitgeber_port_link_speed_bytes_per_second",
        "Link speed (Mb/s x 125000).");
  gauge("zeitgeber_port_hardware_timestamps",
        "1 if the port's RX timestamps come from the NIC clock.");
  counter("zeitgeber_port_rx_missed_total",
          "Frames the NIC dropped for lack of RX descriptors (imissed).");
  counter("zeitgeber_port_rx_errors_total", "Erroneous frames received.");
  counter("zeitgeber_port_rx_nombuf_total", "RX mbuf allocation failures.");
  counter("zeitgeber_port_tx_errors_total", "Failed transmissions.");
  counter("zeitgeber_port_tx_schedule_late_total",
          "Frames the NIC reports it sent past their send-on-timestamp "
          "launch time (xstats; --tx_schedule ports only).");
  gauge("zeitgeber_build_info", "Always 1; labelled with the version.");
  gauges_["zeitgeber_build_info"]->Add({{"version", ZG_VERSION}}).Set(1);
}

void MetricsExporter::Update() {
  core::ClockModel tsc_model;
  if (!clocks_.empty()) clocks_.front()->src.clock->TryRead(&tsc_model);
  for (auto& c : clocks_) UpdateClock(*c, tsc_model);
  for (auto& p : ports_) UpdatePort(*p);
  if (control_ != nullptr) control_metrics_->Update(control_->Snapshot());
}

void MetricsExporter::AttachControlPlane(const servo::ControlPlane* control) {
  control_ = control;
  if (control_ != nullptr && control_metrics_ == nullptr) {
    control_metrics_ = std::make_unique<ControlMetrics>(*registry_);
  }
  if (control_ != nullptr) Update();
}

void MetricsExporter::AttachAlarms(const servo::ControlSnapshots* snapshots) {
  alarms_ = std::make_shared<AlarmCollector>(snapshots);
  if (exposer_ != nullptr) exposer_->RegisterCollectable(alarms_);
}

void MetricsExporter::AddCollectable(
    std::shared_ptr<prometheus::Collectable> c) {
  if (exposer_ != nullptr) exposer_->RegisterCollectable(c);
  collectables_.push_back(std::move(c));
}

void MetricsExporter::StopServing() { exposer_.reset(); }

void MetricsExporter::UpdateClock(ClockSeries& c,
                                  const core::ClockModel& tsc_model) {
  const Labels labels = {{"clock", c.src.name}};
  if (c.synchronized == nullptr) {
    for (size_t i = 0; i < std::size(kSyncStates); ++i) {
      c.state[i] = &gauges_["zeitgeber_clock_sync_state"]->Add(
          With(labels, "state", kSyncStates[i]));
    }
    c.synchronized = &gauges_["zeitgeber_clock_synchronized"]->Add(labels);
    c.error_bound =
        &gauges_["zeitgeber_clock_error_bound_seconds"]->Add(labels);
    c.stratum = &gauges_["zeitgeber_clock_stratum"]->Add(labels);
    c.age = &gauges_["zeitgeber_clock_model_age_seconds"]->Add(labels);
    c.utc_offset = &gauges_["zeitgeber_clock_utc_offset_seconds"]->Add(labels);
    c.clock_class = &gauges_["zeitgeber_clock_class"]->Add(labels);
    c.clock_accuracy = &gauges_["zeitgeber_clock_accuracy"]->Add(labels);
  }
  core::ClockModel m;  // default: never published, unsynchronised
  c.src.clock->TryRead(&m);
  // "Now" from the TSC model (NIC models are anchored on the same TAI scale).
  const core::TaiNs now = tsc_model.RawToTai(core::ReadTsc());
  for (size_t i = 0; i < std::size(kSyncStates); ++i) {
    c.state[i]->Set(static_cast<size_t>(m.state) == i ? 1 : 0);
  }
  c.synchronized->Set(m.IsSynchronized(now) ? 1 : 0);
  c.error_bound->Set(static_cast<double>(m.ErrorBoundNs(now)) * 1e-9);
  c.stratum->Set(m.stratum);
  c.age->Set(m.ns_per_tick_q32 == 0 ? 0.0
                                    : static_cast<double>(m.AgeNs(now)) * 1e-9);
  c.utc_offset->Set(m.UtcOffsetAt(now));
  c.clock_class->Set(m.ptp_quality.clock_class);
  c.clock_accuracy->Set(m.ptp_quality.clock_accuracy);
}

void MetricsExporter::UpdatePort(PortSeries& p) {
  const Labels labels = {{"port", p.port->name()}};
  if (p.link_up == nullptr) {
    p.link_up = &gauges_["zeitgeber_port_link_up"]->Add(labels);
    p.speed =
        &gauges_["zeitgeber_port_link_speed_bytes_per_second"]->Add(labels);
    p.hw = &gauges_["zeitgeber_port_hardware_timestamps"]->Add(labels);
    p.missed = &counters_["zeitgeber_port_rx_missed_total"]->Add(labels);
    p.ierrors = &counters_["zeitgeber_port_rx_errors_total"]->Add(labels);
    p.nombuf = &counters_["zeitgeber_port_rx_nombuf_total"]->Add(labels);
    p.oerrors = &counters_["zeitgeber_port_tx_errors_total"]->Add(labels);
    if (p.port->caps().send_on_timestamp) {
      p.nic_late =
          &counters_["zeitgeber_port_tx_schedule_late_total"]->Add(labels);
    }
  }
  if (p.nic_late != nullptr) {
    if (const std::optional<uint64_t> late = ReadNicLateLaunches(p.port->id());
        late.has_value()) {
      Advance(p.nic_late, *late, p.last_nic_late);
      p.last_nic_late = *late;
    }
  }
  p.link_up->Set(p.port->link().up ? 1 : 0);
  p.speed->Set(static_cast<double>(p.port->link().speed_mbps) * 1e6 / 8);
  p.hw->Set(p.port->caps().hardware_rx_stamps() ? 1 : 0);
  rte_eth_stats s{};
  if (rte_eth_stats_get(p.port->id(), &s) != 0) return;
  Advance(p.missed, s.imissed, p.last.imissed);
  Advance(p.ierrors, s.ierrors, p.last.ierrors);
  Advance(p.nombuf, s.rx_nombuf, p.last.rx_nombuf);
  Advance(p.oerrors, s.oerrors, p.last.oerrors);
  p.last = s;
}

int MetricsExporter::listening_port() const {
  if (exposer_ == nullptr) return 0;
  const std::vector<int> ports = exposer_->GetListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

std::vector<prometheus::MetricFamily> MetricsExporter::ModuleFamilies() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (const auto& c : collectables_) {
    for (prometheus::MetricFamily& f : c->Collect()) {
      families.push_back(std::move(f));
    }
  }
  return families;
}

std::string MetricsExporter::Serialize() const {
  std::vector<prometheus::MetricFamily> families = ModuleFamilies();
  for (const prometheus::Collectable* c :
       {static_cast<const prometheus::Collectable*>(workers_.get()),
        static_cast<const prometheus::Collectable*>(alarms_.get())}) {
    if (c == nullptr) continue;
    for (prometheus::MetricFamily& f : c->Collect()) {
      families.push_back(std::move(f));
    }
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace zg::dataplane
