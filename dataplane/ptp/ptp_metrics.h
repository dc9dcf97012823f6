// SPDX-License-Identifier: Apache-2.0
// Prometheus metrics of zeitgeberd's PTP grandmaster, added to the daemon's
// registry (MetricsExporter::registry()) and refreshed by the control thread
// with every exporter update. All prefixed zeitgeber_ptp_:
//
//   port_state {state}                 1 for the current state, else 0
//   port_state_changes_total
//   foreign_masters                    foreign-master records in use
//   clock_class, clock_accuracy        as announced now
//   announces_received_total {verdict} accepted, from_self, ... (BMCA)
//   announce_ring_overflows_total      Announce lost between worker and BMCA
//   messages_sent_total {type}         SYNC, FOLLOW_UP, ANNOUNCE, ...
//   unicast_subscribers                all workers' shards
//   unicast_grants_total {type}, unicast_renewals_total {type},
//   unicast_cancels_total {type}, unicast_expiries_total {type},
//   unicast_denials_total {reason}     incl. per_source, budget, acl,
//                                      table_full (refused grants)
//   unicast_reductions_total {reason}  interval, budget (reduced grants)
//   unicast_cancels_refused_total      CANCEL not from the granted port
//   unicast_committed_rate             messages/s the live grants commit
//   unicast_tx_budget                  --ptp_tx_budget (0: no limit)
//   follow_up_overflows_total, mbuf_alloc_failures_total
//   tx_stamps_total {result}           t1/t3: hardware, timeout, stale,
//                                      latch_busy, no_model, software_*
//   rx_stamps_total {result}           t2/t4: hardware, not_latched, ...
//   syncs_deferred_total               Syncs that waited for the TX latch
//   follow_ups_unbuilt_total           follow-ups not sent: frame not built
//   pdelay_resp_unsent_total           Pdelay_Resp tx_burst did not take
//
// Per-reason drops of received PTP messages are in the daemon's
// zeitgeber_frames_dropped_total{reason="ptp_..."}.
//
//   PtpMetrics m(&runtime, stats_pointers);
//   ZG_RETURN_IF_ERROR(m.Add(registry));
//   m.Update();   // control thread
#ifndef ZG_DATAPLANE_PTP_PTP_METRICS_H_
#define ZG_DATAPLANE_PTP_PTP_METRICS_H_

#include <array>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ptp/ptp_unicast_service.h"
#include "dataplane/ptp/ptp_port.h"
#include "dataplane/ptp/ptp_worker.h"
#include "prometheus/histogram.h"

namespace prometheus {
class Registry;
class Counter;
class Gauge;
}  // namespace prometheus

namespace zg::dataplane {

// The message types a grandmaster sends (metrics and zgctl count these).
inline constexpr core::PtpMessageType kPtpSentMessageTypes[] = {
    core::PtpMessageType::kSync,
    core::PtpMessageType::kFollowUp,
    core::PtpMessageType::kAnnounce,
    core::PtpMessageType::kDelayResp,
    core::PtpMessageType::kPdelayResp,
    core::PtpMessageType::kPdelayRespFollowUp,
    core::PtpMessageType::kSignaling,
    core::PtpMessageType::kManagement,
};

class PtpMetrics {
 public:
  // `runtime` and the stats must outlive this object.
  PtpMetrics(const PtpPortRuntime* runtime,
             std::vector<const PtpWorkerStats*> workers)
      : runtime_(runtime), workers_(std::move(workers)) {}

  absl::Status Add(prometheus::Registry& registry);
  // Control thread.
  void Update();

 private:
  void AddAdmission(prometheus::Registry& registry);
  // A Prometheus counter advanced to a running total.
  struct Total {
    prometheus::Counter* counter = nullptr;
    double last = 0;
    void Set(double v);
  };

  const PtpPortRuntime* runtime_;
  std::vector<const PtpWorkerStats*> workers_;
  std::map<core::PtpPortState, prometheus::Gauge*> state_;
  Total state_changes_;
  prometheus::Gauge* foreign_masters_ = nullptr;
  prometheus::Gauge* clock_class_ = nullptr;
  prometheus::Gauge* clock_accuracy_ = nullptr;
  std::vector<Total> verdicts_;
  Total ring_overflows_;
  std::map<size_t, Total> sent_;  // by message type nibble
  prometheus::Gauge* subscribers_ = nullptr;
  std::vector<Total> grants_, renewals_, cancels_, expiries_, denials_;
  std::vector<Total> reductions_;  // by PtpGrantReduction, from kInterval
  Total cancels_wrong_source_;
  prometheus::Gauge* committed_rate_ = nullptr;
  prometheus::Gauge* tx_budget_ = nullptr;
  Total follow_up_overflows_;
  Total mbuf_failures_;
  std::vector<Total> tx_stamps_, rx_stamps_;  // by PtpTx/RxStampResult
  Total syncs_deferred_, follow_ups_unbuilt_, pdelay_resp_unsent_;
  // Per core::PtpTimerKind (Announce, Sync).
  std::vector<Total> originate_unbuilt_, unicast_skipped_;
  // zeitgeber_ptp_unicast_lateness_seconds, per kind, advanced by what the
  // workers' bucket counts and sums grew since the last Update.
  struct Lateness {
    prometheus::Histogram* histogram = nullptr;
    std::array<uint64_t, core::kPtpLatenessBuckets> last{};
    uint64_t last_sum_ns = 0;
  };
  std::array<Lateness, core::kPtpTimerKinds> lateness_;
  void AddSchedule(prometheus::Registry& registry);
  void UpdateSchedule();
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_METRICS_H_
