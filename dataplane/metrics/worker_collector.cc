// SPDX-License-Identifier: Apache-2.0
// WorkerCollector (worker_collector.h): worker counters at scrape time.
#include "dataplane/metrics/worker_collector.h"

#include "core/time/tsc.h"
#include "dataplane/metrics/scrape_families.h"

namespace zg::dataplane {
namespace {

// Worker counters that map one-to-one onto a snapshot field.
struct WorkerCounterDef {
  const char* name;
  const char* help;
  uint64_t WorkerStatsSnapshot::*field;
};
constexpr WorkerCounterDef kWorkerCounters[] = {
    {"zeitgeber_rx_packets_total", "Frames received by the worker.",
     &WorkerStatsSnapshot::rx_packets},
    {"zeitgeber_rx_bytes_total", "Frame bytes received (no FCS).",
     &WorkerStatsSnapshot::rx_bytes},
    {"zeitgeber_tx_packets_total", "Frames accepted by tx_burst.",
     &WorkerStatsSnapshot::tx_packets},
    {"zeitgeber_tx_bytes_total", "Frame bytes accepted by tx_burst.",
     &WorkerStatsSnapshot::tx_bytes},
    {"zeitgeber_tx_dropped_total",
     "Replies tx_burst did not accept (queue full), freed.",
     &WorkerStatsSnapshot::tx_dropped},
    {"zeitgeber_tx_finalise_splits_total",
     "TX batches sent in more than one tx_burst so that late-written "
     "transmit times (NTS, MAC replies) stay within 1 us of departure.",
     &WorkerStatsSnapshot::tx_finalise_splits},
    {"zeitgeber_tx_scheduled_total",
     "Frames sent with a send-on-timestamp launch time (--tx_schedule): "
     "their transmit timestamp is exact.",
     &WorkerStatsSnapshot::tx_scheduled},
    {"zeitgeber_tx_schedule_late_total",
     "Scheduled frames whose launch time had passed when handed to tx_burst "
     "(--tx_schedule_lead too short): they left at once, stamp early.",
     &WorkerStatsSnapshot::tx_schedule_late},
    {"zeitgeber_worker_bursts_total", "rx_burst calls that returned frames.",
     &WorkerStatsSnapshot::bursts},
    {"zeitgeber_worker_empty_polls_total",
     "rx_burst calls that returned no frames.",
     &WorkerStatsSnapshot::empty_polls},
    {"zeitgeber_clock_model_refresh_failures_total",
     "Per-burst ClockModel reads that were torn or found nothing published.",
     &WorkerStatsSnapshot::model_refresh_failures},
};

constexpr char kStamps[] = "zeitgeber_rx_timestamps_total";
constexpr char kStampsHelp[] =
    "Receive timestamps by raw clock: nic (hardware) or tsc (software).";
constexpr char kHandled[] = "zeitgeber_frames_handled_total";
constexpr char kHandledHelp[] =
    "Frames dispatched to the handler of their kind.";
constexpr char kReplied[] = "zeitgeber_frames_replied_total";
constexpr char kRepliedHelp[] =
    "Replies queued for transmission, by the kind of frame answered.";
constexpr char kDropped[] = "zeitgeber_frames_dropped_total";
constexpr char kDroppedHelp[] = "Frames dropped, by reason.";
constexpr char kHeartbeat[] = "zeitgeber_worker_heartbeat_age_seconds";
constexpr char kHeartbeatHelp[] =
    "Time since the worker's last loop iteration.";

ScrapeFamilies::Labels With(ScrapeFamilies::Labels l, const char* k,
                            std::string v) {
  l.emplace_back(k, std::move(v));
  return l;
}

}  // namespace

std::vector<prometheus::MetricFamily> WorkerCollector::Collect() const {
  ScrapeFamilies f;
  for (const WorkerCounterDef& d : kWorkerCounters) {
    f.Declare(d.name, d.help, prometheus::MetricType::Counter);
  }
  f.Declare(kStamps, kStampsHelp, prometheus::MetricType::Counter);
  f.Declare(kHandled, kHandledHelp, prometheus::MetricType::Counter);
  f.Declare(kReplied, kRepliedHelp, prometheus::MetricType::Counter);
  f.Declare(kDropped, kDroppedHelp, prometheus::MetricType::Counter);
  f.Declare(kHeartbeat, kHeartbeatHelp, prometheus::MetricType::Gauge);
  for (const WorkerStatsSource& w : workers_) {
    const WorkerStatsSnapshot s = WorkerStatsSnapshot::Of(*w.stats);
    const ScrapeFamilies::Labels labels = {
        {"worker", w.worker}, {"lcore", w.lcore}, {"port", w.port}};
    for (const WorkerCounterDef& d : kWorkerCounters) {
      f.Counter(d.name, d.help, labels, static_cast<double>(s.*d.field));
    }
    f.Counter(kStamps, kStampsHelp, With(labels, "source", "nic"),
              static_cast<double>(s.hw_stamped));
    f.Counter(kStamps, kStampsHelp, With(labels, "source", "tsc"),
              static_cast<double>(s.sw_stamped));
    for (size_t k = 0; k < kMaxFrameKinds; ++k) {
      if (!names_->KindNamed(k) && s.handled[k] == 0 && s.replied[k] == 0) {
        continue;
      }
      f.Counter(kHandled, kHandledHelp,
                With(labels, "kind", names_->KindName(k)),
                static_cast<double>(s.handled[k]));
      f.Counter(kReplied, kRepliedHelp,
                With(labels, "kind", names_->KindName(k)),
                static_cast<double>(s.replied[k]));
    }
    for (size_t r = 0; r < kMaxDropReasons; ++r) {
      if (r >= names_->num_drop_reasons() && s.dropped[r] == 0) continue;
      f.Counter(kDropped, kDroppedHelp,
                With(labels, "reason", names_->DropReasonName(r)),
                static_cast<double>(s.dropped[r]));
    }
    const uint64_t beat = w.stats->heartbeat_tsc.Load();
    const uint64_t tsc = core::ReadTsc();
    f.Gauge(kHeartbeat, kHeartbeatHelp, labels,
            beat == 0 || tsc < beat
                ? 0.0
                : static_cast<double>(tsc - beat) / tsc_hz_);
  }
  return f.Take();
}

}  // namespace zg::dataplane
