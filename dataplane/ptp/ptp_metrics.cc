// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ptp/ptp_metrics.h"

#include <string>

#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_unicast_service.h"

namespace zg::dataplane {
namespace {

constexpr core::PtpPortState kStates[] = {
    core::PtpPortState::kInitializing, core::PtpPortState::kFaulty,
    core::PtpPortState::kDisabled,     core::PtpPortState::kListening,
    core::PtpPortState::kPreMaster,    core::PtpPortState::kMaster,
    core::PtpPortState::kPassive,      core::PtpPortState::kUncalibrated,
    core::PtpPortState::kSlave,
};

}  // namespace

std::vector<prometheus::MetricFamily> PtpMetrics::Collect() const {
  ScrapeFamilies f;
  for (const Port& p : ports_) {
    f.SetCommonLabels({{"port", p.interface}});
    CollectPort(p, f);
    CollectMessages(p, f);
    CollectUnicast(p, f);
    CollectStamps(p, f);
    CollectSchedule(p, f);
  }
  return f.Take();
}

void PtpMetrics::CollectPort(const Port& p, ScrapeFamilies& f) const {
  PtpPortSnapshot port;  // INITIALIZING until the first publication
  (void)p.runtime->published().TryRead(&port);
  for (core::PtpPortState s : kStates) {
    f.Gauge("zeitgeber_ptp_port_state",
            "PTP port state: 1 for the current state",
            {{"state", core::PtpPortStateName(s)}}, port.state == s ? 1 : 0);
  }
  f.Counter("zeitgeber_ptp_port_state_changes_total", "PTP port state changes",
            {}, static_cast<double>(p.runtime->published_state_changes()));
  f.Gauge("zeitgeber_ptp_foreign_masters",
          "Foreign master records in use (BMCA)", {},
          static_cast<double>(p.runtime->published_foreign_masters()));
  const char* quality = "zeitgeber_ptp_clock_quality";
  const char* quality_help = "Clock quality announced now";
  f.Gauge(quality, quality_help, {{"field", "clock_class"}},
          port.gm.quality.clock_class);
  f.Gauge(quality, quality_help, {{"field", "clock_accuracy"}},
          port.gm.quality.clock_accuracy);
  const PtpPortRuntime::Verdicts& verdicts = p.runtime->announce_verdicts();
  for (size_t i = 0; i < verdicts.size(); ++i) {
    f.Counter("zeitgeber_ptp_announces_received_total",
              "Foreign Announce messages by BMCA verdict",
              {{"verdict", core::PtpAnnounceVerdictName(
                               static_cast<core::PtpAnnounceVerdict>(i))}},
              static_cast<double>(verdicts[i].Load()));
  }
  f.Counter("zeitgeber_ptp_announce_ring_overflows_total",
            "Announce messages lost between a worker and the BMCA", {},
            static_cast<double>(p.runtime->ring_overflows()));
}

void PtpMetrics::CollectMessages(const Port& p, ScrapeFamilies& f) const {
  for (core::PtpMessageType t : kPtpSentMessageTypes) {
    const size_t i = static_cast<size_t>(t);
    f.Counter(
        "zeitgeber_ptp_messages_sent_total", "PTP messages sent, by type",
        {{"type", core::PtpMessageTypeName(t)}},
        Sum(p, [i](const PtpWorkerStats& w) { return w.sent[i].Load(); }));
  }
  f.Counter("zeitgeber_ptp_follow_up_overflows_total",
            "Two-step messages not sent: pending follow-ups full", {},
            Sum(p, [](const PtpWorkerStats& w) {
              return w.follow_up_overflow.Load();
            }));
  f.Counter("zeitgeber_ptp_mbuf_alloc_failures_total",
            "Originated PTP frames not sent: mbuf pool empty", {},
            Sum(p, [](const PtpWorkerStats& w) {
              return w.mbuf_alloc_failures.Load();
            }));
}

void PtpMetrics::CollectUnicast(const Port& p, ScrapeFamilies& f) const {
  f.Gauge("zeitgeber_ptp_unicast_subscribers",
          "Unicast subscribers (negotiated clients)", {},
          Sum(p, [](const PtpWorkerStats& w) {
            return w.unicast_subscribers.Load();
          }));
  for (size_t i = 0; i < core::kPtpGrantTypeCount; ++i) {
    const ScrapeFamilies::Labels type = {
        {"type", core::PtpMessageTypeName(core::PtpGrantMessageType(
                     static_cast<core::PtpGrantType>(i)))}};
    f.Counter(
        "zeitgeber_ptp_unicast_grants_total",
        "Unicast grants (incl. renewals), by message type", type,
        Sum(p, [i](const PtpWorkerStats& w) { return w.grants[i].Load(); }));
    f.Counter(
        "zeitgeber_ptp_unicast_renewals_total",
        "Unicast grants renewed while live", type,
        Sum(p, [i](const PtpWorkerStats& w) { return w.renewals[i].Load(); }));
    f.Counter(
        "zeitgeber_ptp_unicast_cancels_total",
        "Unicast grants cancelled by the client", type,
        Sum(p, [i](const PtpWorkerStats& w) { return w.cancels[i].Load(); }));
    f.Counter(
        "zeitgeber_ptp_unicast_expiries_total", "Unicast grants that ran out",
        type,
        Sum(p, [i](const PtpWorkerStats& w) { return w.expiries[i].Load(); }));
  }
  for (size_t i = 1; i < core::kPtpGrantDenialCount; ++i) {
    f.Counter(
        "zeitgeber_ptp_unicast_denials_total",
        "Unicast requests denied, by reason",
        {{"reason",
          core::PtpGrantDenialName(static_cast<core::PtpGrantDenial>(i))}},
        Sum(p, [i](const PtpWorkerStats& w) { return w.denials[i].Load(); }));
  }
  for (size_t i = 1; i < core::kPtpGrantReductionCount; ++i) {
    f.Counter(
        "zeitgeber_ptp_unicast_reductions_total",
        "Unicast grants made at a longer interval than requested, by reason",
        {{"reason", core::PtpGrantReductionName(
                        static_cast<core::PtpGrantReduction>(i))}},
        Sum(p,
            [i](const PtpWorkerStats& w) { return w.reductions[i].Load(); }));
  }
  f.Counter("zeitgeber_ptp_unicast_cancels_refused_total",
            "CANCEL_UNICAST_TRANSMISSION ignored: not from the UDP port the "
            "grant was made to",
            {}, Sum(p, [](const PtpWorkerStats& w) {
              return w.cancels_wrong_source.Load();
            }));
  const double units = static_cast<double>(core::kPtpRateUnitsPerMessage);
  f.Gauge("zeitgeber_ptp_unicast_committed_rate",
          "Messages per second the live unicast grants commit (Sync with "
          "Follow_Up, Announce, Delay_Resp, Pdelay_Resp)",
          {}, Sum(p, [](const PtpWorkerStats& w) {
                return w.committed_units.Load();
              }) / units);
  f.Gauge("zeitgeber_ptp_unicast_tx_budget",
          "--ptp_tx_budget: messages per second all unicast grants may "
          "commit (0: no limit)",
          {}, Sum(p, [](const PtpWorkerStats& w) {
                return w.budget_units.Load();
              }) / units);
}

void PtpMetrics::CollectStamps(const Port& p, ScrapeFamilies& f) const {
  for (size_t i = 0; i < static_cast<size_t>(PtpTxStampResult::kCount); ++i) {
    f.Counter(
        "zeitgeber_ptp_tx_stamps_total",
        "PTP TX stamps (Sync t1, Pdelay_Resp t3), by where they came from; "
        "timeout and stale: no follow-up sent",
        {{"result", PtpTxStampResultName(static_cast<PtpTxStampResult>(i))}},
        Sum(p, [i](const PtpWorkerStats& w) { return w.stamps.tx[i].Load(); }));
  }
  for (size_t i = 0; i < static_cast<size_t>(PtpRxStampResult::kCount); ++i) {
    f.Counter(
        "zeitgeber_ptp_rx_stamps_total",
        "PTP RX stamps (Delay_Req t4, Pdelay_Req t2), by where they came from",
        {{"result", PtpRxStampResultName(static_cast<PtpRxStampResult>(i))}},
        Sum(p, [i](const PtpWorkerStats& w) { return w.stamps.rx[i].Load(); }));
  }
  f.Counter("zeitgeber_ptp_syncs_deferred_total",
            "Two-step Syncs that waited for the port's timesync TX latch", {},
            Sum(p, [](const PtpWorkerStats& w) {
              return w.stamps.syncs_deferred.Load();
            }));
  f.Counter("zeitgeber_ptp_follow_ups_unbuilt_total",
            "Follow-ups not sent: the frame could not be built", {},
            Sum(p, [](const PtpWorkerStats& w) {
              return w.follow_ups_unbuilt.Load();
            }));
  f.Counter("zeitgeber_ptp_pdelay_resp_unsent_total",
            "Pdelay_Resp not taken by tx_burst: no Pdelay_Resp_Follow_Up sent",
            {}, Sum(p, [](const PtpWorkerStats& w) {
              return w.pdelay_resp_unsent.Load();
            }));
}

// Index = core::PtpTimerKind: kAnnounce 0, kSync 1.
void PtpMetrics::CollectSchedule(const Port& p, ScrapeFamilies& f) const {
  std::vector<double> bounds;
  for (int64_t ns : core::kPtpLatenessBoundsNs) bounds.push_back(ns * 1e-9);
  const char* kinds[core::kPtpTimerKinds] = {"Announce", "Sync"};
  for (size_t k = 0; k < core::kPtpTimerKinds; ++k) {
    const ScrapeFamilies::Labels type = {{"type", kinds[k]}};
    f.Counter("zeitgeber_ptp_originate_unbuilt_total",
              "Originated Announce/Sync due but not sent: the frame could "
              "not be encoded or built",
              type, Sum(p, [k](const PtpWorkerStats& w) {
                return w.originate_unbuilt[k].Load();
              }));
    f.Counter("zeitgeber_ptp_unicast_skipped_total",
              "Unicast Announce/Sync never sent: the worker fell a whole "
              "interval behind its schedule",
              type, Sum(p, [k](const PtpWorkerStats& w) {
                return w.unicast_skipped[k].Load();
              }));
    std::vector<uint64_t> counts(core::kPtpLatenessBuckets, 0);
    for (size_t b = 0; b < counts.size(); ++b) {
      counts[b] = static_cast<uint64_t>(Sum(p, [k, b](const PtpWorkerStats& w) {
        return w.unicast_lateness[k][b].Load();
      }));
    }
    f.Histogram("zeitgeber_ptp_unicast_lateness_seconds",
                "How late unicast Announce/Sync left their schedule (the "
                "wheel's grain is 1 ms)",
                type, bounds, counts, Sum(p, [k](const PtpWorkerStats& w) {
                                        return w.unicast_lateness_ns[k].Load();
                                      }) * 1e-9);
  }
}

}  // namespace zg::dataplane
