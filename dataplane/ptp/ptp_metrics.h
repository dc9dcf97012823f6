// SPDX-License-Identifier: Apache-2.0
// Prometheus metrics of zeitgeberd's PTP grandmaster: a
// prometheus::Collectable that reads the workers' PtpWorkerStats and the
// port runtime's published state when Prometheus scrapes (on the
// exporter's thread, relaxed loads and SeqLock reads only: no worker and
// no control thread waits), so a scrape equals the counters at that
// instant. All prefixed zeitgeber_ptp_:
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
//   exporter.AddCollectable(
//       std::make_shared<PtpMetrics>(&runtime, stats_pointers));
#ifndef ZG_DATAPLANE_PTP_PTP_METRICS_H_
#define ZG_DATAPLANE_PTP_PTP_METRICS_H_

#include <cstdint>
#include <vector>

#include "core/ptp/ptp_unicast_service.h"
#include "dataplane/metrics/scrape_families.h"
#include "dataplane/ptp/ptp_port.h"
#include "dataplane/ptp/ptp_worker.h"
#include "prometheus/collectable.h"

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

class PtpMetrics final : public prometheus::Collectable {
 public:
  // `runtime` and the stats must outlive this object's last Collect().
  PtpMetrics(const PtpPortRuntime* runtime,
             std::vector<const PtpWorkerStats*> workers)
      : runtime_(runtime), workers_(std::move(workers)) {}

  // Any thread.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // The sum over the workers of `field(stats)`.
  template <typename F>
  double Sum(F field) const {
    uint64_t n = 0;
    for (const PtpWorkerStats* w : workers_) n += field(*w);
    return static_cast<double>(n);
  }
  void CollectPort(ScrapeFamilies& f) const;
  void CollectMessages(ScrapeFamilies& f) const;
  void CollectUnicast(ScrapeFamilies& f) const;
  void CollectStamps(ScrapeFamilies& f) const;
  void CollectSchedule(ScrapeFamilies& f) const;

  const PtpPortRuntime* runtime_;
  std::vector<const PtpWorkerStats*> workers_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_METRICS_H_
