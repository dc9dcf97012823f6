// SPDX-License-Identifier: Apache-2.0
// Prometheus metrics of zeitgeberd's PTP grandmaster: a
// prometheus::Collectable that reads the workers' PtpWorkerStats and the
// port runtime's published state when Prometheus scrapes (on the
// exporter's thread, relaxed loads and SeqLock reads only: no worker and
// no control thread waits), so a scrape equals the counters at that
// instant. Every series carries the label port (the --port's name: one PTP
// port per served port). All prefixed zeitgeber_ptp_:
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
//   exporter.AddCollectable(std::make_shared<PtpMetrics>(
//       std::vector<PtpMetrics::Port>{{"eth0", &runtime, stats_pointers}}));
#ifndef ZG_DATAPLANE_PTP_PTP_METRICS_H_
#define ZG_DATAPLANE_PTP_PTP_METRICS_H_

#include <cstdint>
#include <string>
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
  // One PTP port: its runtime and its workers' counters, which must
  // outlive this object's last Collect().
  struct Port {
    std::string interface;  // the label port
    const PtpPortRuntime* runtime = nullptr;
    std::vector<const PtpWorkerStats*> workers;
  };
  explicit PtpMetrics(std::vector<Port> ports) : ports_(std::move(ports)) {}

  // Any thread.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // The sum over the port's workers of `field(stats)`.
  template <typename F>
  static double Sum(const Port& p, F field) {
    uint64_t n = 0;
    for (const PtpWorkerStats* w : p.workers) n += field(*w);
    return static_cast<double>(n);
  }
  void CollectPort(const Port& p, ScrapeFamilies& f) const;
  void CollectMessages(const Port& p, ScrapeFamilies& f) const;
  void CollectUnicast(const Port& p, ScrapeFamilies& f) const;
  void CollectStamps(const Port& p, ScrapeFamilies& f) const;
  void CollectSchedule(const Port& p, ScrapeFamilies& f) const;

  std::vector<Port> ports_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_METRICS_H_
