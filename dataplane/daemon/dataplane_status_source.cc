// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's data-plane status for operator threads
// (dataplane_status_source.h).
#include "dataplane/daemon/dataplane_status_source.h"

#include <rte_ethdev.h>

#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/time/tsc.h"
#include "prometheus/metric_family.h"

namespace zg::dataplane {
namespace {

// The modules' counter groups serverstats reports, by metric-name prefix.
constexpr std::pair<const char*, const char*> kGroups[] = {
    {"zeitgeber_nts_ke_", "nts_ke"},
    {"zeitgeber_ntp_", "ntp"},
    {"zeitgeber_ptp_", "ptp"},
};

bool PerWorkerLabel(const std::string& name) {
  return name == "worker" || name == "lcore" || name == "port";
}

// "kod_sent{code=RATE}" from zeitgeber_ntp_kod_sent_total{code="RATE"}.
std::string CounterName(absl::string_view metric, const std::string& prefix,
                        const std::vector<prometheus::ClientMetric::Label>& l) {
  metric.remove_prefix(prefix.size());
  absl::ConsumeSuffix(&metric, "_total");
  std::vector<std::string> labels;
  for (const auto& label : l) {
    if (!PerWorkerLabel(label.name)) {
      labels.push_back(absl::StrCat(label.name, "=", label.value));
    }
  }
  return labels.empty()
             ? std::string(metric)
             : absl::StrCat(metric, "{", absl::StrJoin(labels, ","), "}");
}

}  // namespace

void DataplaneStatusSource::ReadWorker(size_t i, servo::WorkerStatus& w,
                                       uint64_t tsc_now,
                                       const core::ClockModel* model) const {
  const Worker& src = options_.workers[i];
  const WorkerStatsSnapshot s = WorkerStatsSnapshot::Of(*src.stats);
  w.index = src.index;
  w.lcore = src.lcore;
  w.port = options_.port != nullptr ? options_.port->name() : "";
  w.rx_packets = s.rx_packets;
  w.rx_bytes = s.rx_bytes;
  w.tx_packets = s.tx_packets;
  w.tx_bytes = s.tx_bytes;
  w.tx_dropped = s.tx_dropped;
  w.dropped = s.TotalDropped();
  w.bursts = s.bursts;
  w.empty_polls = s.empty_polls;
  w.hw_stamped = s.hw_stamped;
  w.sw_stamped = s.sw_stamped;
  w.model_refresh_failures = s.model_refresh_failures;
  const uint64_t beat = src.stats->heartbeat_tsc.Load();
  if (beat == 0 || options_.tsc_hz <= 0) {
    w.last_progress_age_s = -1;
    w.last_progress_utc = {};
    return;
  }
  w.last_progress_age_s =
      tsc_now > beat ? static_cast<double>(tsc_now - beat) / options_.tsc_hz
                     : 0;
  if (model != nullptr && model->ns_per_tick_q32 != 0) {
    const core::TaiNs tai = model->RawToTai(beat);
    w.last_progress_utc = model->TaiToUtc(tai);
  }
}

void DataplaneStatusSource::SampleServer(servo::DataplaneStatus& d) const {
  WorkerStatsSnapshot total;
  for (const Worker& w : options_.workers) {
    total += WorkerStatsSnapshot::Of(*w.stats);
  }
  servo::ServerStats& s = d.server;
  s.rx_packets = total.rx_packets;
  s.tx_packets = total.tx_packets;
  s.tx_dropped = total.tx_dropped;
  const CounterNames* names = options_.names;
  if (names != nullptr) {
    for (size_t k = 0; k < kMaxFrameKinds; ++k) {
      if (!names->KindNamed(k)) continue;
      s.frames.push_back(
          {names->KindName(k), total.handled[k], total.replied[k]});
    }
    for (size_t r = 0; r < names->num_drop_reasons(); ++r) {
      s.drops.push_back({names->DropReasonName(r), total.dropped[r]});
    }
  }
  if (options_.exporter == nullptr) return;
  // Summed over the per-worker labels, in name order.
  std::map<std::string, std::map<std::string, double>> groups;
  for (const prometheus::MetricFamily& f :
       options_.exporter->ModuleFamilies()) {
    if (f.type != prometheus::MetricType::Counter &&
        f.type != prometheus::MetricType::Gauge) {
      continue;
    }
    for (const auto& [prefix, group] : kGroups) {
      if (!absl::StartsWith(f.name, prefix)) continue;
      for (const prometheus::ClientMetric& m : f.metric) {
        const double v = f.type == prometheus::MetricType::Counter
                             ? m.counter.value
                             : m.gauge.value;
        groups[group][CounterName(f.name, prefix, m.label)] += v;
      }
      break;  // the longest prefix matches first (nts_ke before ntp)
    }
  }
  for (const auto& [group, counters] : groups) {
    servo::CounterGroup g{group, {}};
    for (const auto& [name, v] : counters) {
      g.counters.push_back({name, static_cast<uint64_t>(v < 0 ? 0 : v)});
    }
    s.groups.push_back(std::move(g));
  }
}

void DataplaneStatusSource::SamplePort(servo::DataplaneStatus& d, double dt_s) {
  if (options_.port == nullptr) return;
  const Port& port = *options_.port;
  servo::PortStatus p;
  p.name = port.name();
  p.driver = port.caps().driver;
  p.link_up = port.link().up;
  p.speed_mbps = port.link().speed_mbps;
  p.hardware_timestamps = port.caps().hardware_rx_stamps();
  p.queues = port.num_queues();
  if (options_.stamps != nullptr) {
    const StampPlan& plan = options_.stamps->plan();
    p.stamping = {{"ntp_rx", RxStampSourceName(plan.ntp_rx)},
                  {"ntp_tx", TxStampSourceName(plan.ntp_tx)},
                  {"ptp_rx", RxStampSourceName(plan.ptp_rx)},
                  {"ptp_tx", TxStampSourceName(plan.ptp_tx)}};
    if (options_.stamps->nic() != nullptr) {
      p.nic_clock = options_.stamps->nic()->name();
    }
  }
  rte_eth_stats st{};
  if (rte_eth_stats_get(port.id(), &st) == 0) {
    p.ipackets = st.ipackets;
    p.opackets = st.opackets;
    p.imissed = st.imissed;
    p.ierrors = st.ierrors;
    p.rx_nombuf = st.rx_nombuf;
    p.oerrors = st.oerrors;
  }
  if (dt_s > 0) {
    p.rx_pps = static_cast<double>(p.ipackets - last_ipackets_) / dt_s;
    p.tx_pps = static_cast<double>(p.opackets - last_opackets_) / dt_s;
  }
  last_ipackets_ = p.ipackets;
  last_opackets_ = p.opackets;
  d.ports.push_back(std::move(p));
}

void DataplaneStatusSource::Sample(
    const std::function<void(servo::DataplaneStatus&)>& add) {
  auto d = std::make_shared<servo::DataplaneStatus>();
  const uint64_t tsc = core::ReadTsc();
  const double dt_s =
      last_tsc_ != 0 && options_.tsc_hz > 0
          ? static_cast<double>(tsc - last_tsc_) / options_.tsc_hz
          : 0;
  d->interval_s = dt_s;
  core::ClockModel model;
  const bool have_model =
      options_.tsc_clock != nullptr && options_.tsc_clock->TryRead(&model);
  if (have_model && model.ns_per_tick_q32 != 0) {
    d->sampled_utc = model.TaiToUtc(model.RawToTai(tsc));
  }
  d->workers.resize(options_.workers.size());
  for (size_t i = 0; i < options_.workers.size(); ++i) {
    servo::WorkerStatus& w = d->workers[i];
    ReadWorker(i, w, tsc, have_model ? &model : nullptr);
    if (dt_s > 0 && i < last_workers_.size()) {
      const servo::WorkerStatus& l = last_workers_[i];
      w.rx_pps = static_cast<double>(w.rx_packets - l.rx_packets) / dt_s;
      w.tx_pps = static_cast<double>(w.tx_packets - l.tx_packets) / dt_s;
      w.drop_pps = static_cast<double>(w.dropped + w.tx_dropped - l.dropped -
                                       l.tx_dropped) /
                   dt_s;
    }
  }
  last_workers_ = d->workers;
  last_tsc_ = tsc;
  SamplePort(*d, dt_s);
  SampleServer(*d);
  if (add) add(*d);
  cell_.Publish(std::move(d));
}

std::shared_ptr<const servo::DataplaneStatus> DataplaneStatusSource::Read()
    const {
  std::shared_ptr<const servo::DataplaneStatus> sampled = cell_.Load();
  if (sampled == nullptr) return nullptr;
  auto live = std::make_shared<servo::DataplaneStatus>(*sampled);
  const uint64_t tsc = core::ReadTsc();
  core::ClockModel model;
  const bool have_model =
      options_.tsc_clock != nullptr && options_.tsc_clock->TryRead(&model);
  for (size_t i = 0; i < live->workers.size() && i < options_.workers.size();
       ++i) {
    ReadWorker(i, live->workers[i], tsc, have_model ? &model : nullptr);
  }
  return live;
}

}  // namespace zg::dataplane
